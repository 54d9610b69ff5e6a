#!/usr/bin/env bash
# Builds the e2e control plane's binaries from pinned Go modules into $CONTROLPLANE_BIN (default: bin/
# beside this file).
#   build.sh v1.36 [kube-apiserver] [kube-scheduler] [kubectl] [kube-controller-manager]
#                                                                  (default: the first two) -> bin/v1.36/
#   build.sh kwok                                                  -> bin/kwok/kwok
#   build.sh helm                                                  -> bin/helm/helm
# A minor's components come from k8s.io/kubernetes as pinned in minors/vX.Y.mod (+ .sum; pin.sh writes
# them) and report that release at /version and --version, stamped as upstream's hack/lib/version.sh
# does. kwok and Helm come from their own modules (kwok/go.mod, helm/go.mod), each as a tool of it.
# Every binary is also kept in $CONTROLPLANE_CACHE (default ~/.cache/kube-extender-controlplane) under the
# hash of everything it is built from (pins, main, Go version, flags), so a fresh clone on the same machine
# links nothing again; Go's own build cache keeps the compiled packages.
set -euo pipefail
# Go for the test harness: the machines have it at /usr/local/go. Go keeps its caches under HOME, which
# an environment stripped for CI may lack.
command -v go >/dev/null || export PATH=/usr/local/go/bin:$PATH
[ -n "${HOME:-}" ] || export HOME=$(getent passwd "$(id -u)" | cut -d: -f6)
here=$(cd "$(dirname "$0")" && pwd)
out_root=${CONTROLPLANE_BIN:-$here/bin}

cache=${CONTROLPLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-extender-controlplane}

# Runs `go build FLAGS... -o BIN PACKAGE` in DIR unless the cache holds a binary built from the same
# inputs (the files named, the Go version, the flags and the package); either way BIN ends up a copy of it.
cached_build() { # dir bin "input files" package go-build-flags...
  local dir=$1 bin=$2 inputs=$3 package=$4 key start=$SECONDS
  shift 4
  # shellcheck disable=SC2086  # inputs is a list of paths
  key=$( (cat $inputs; go version; echo "$package $*") | sha256sum | cut -c1-32)
  if [ ! -x "$cache/$key/$(basename "$bin")" ]; then
    mkdir -p "$cache/$key"
    (cd "$dir" && CGO_ENABLED=0 go build -trimpath "$@" -o "$cache/$key/$(basename "$bin").tmp" "$package")
    mv "$cache/$key/$(basename "$bin").tmp" "$cache/$key/$(basename "$bin")"
    echo "built $bin in $((SECONDS - start)) s"
  fi
  mkdir -p "$(dirname "$bin")"
  # A rename, not a copy over BIN: a control plane may be running it.
  cp "$cache/$key/$(basename "$bin")" "$bin.tmp"
  mv "$bin.tmp" "$bin"
}

build_kwok() {
  cached_build "$here/kwok" "$out_root/kwok/kwok" "$here/kwok/go.mod $here/kwok/go.sum" \
    sigs.k8s.io/kwok/cmd/kwok -ldflags "-s -w"
}

# Stamped as Helm's Makefile stamps a release: its version, and the Kubernetes minor of its client-go
# (v0.37 is 1.37), which `helm template` and `helm lint` take as the cluster's without one to ask.
build_helm() {
  local mod=$here/helm/go.mod version client minor
  version=$(awk '$1 == "helm.sh/helm/v3" { print $2; exit }' "$mod")
  client=$(awk '$1 == "k8s.io/client-go" { print $2; exit }' "$mod")
  minor=$(echo "$client" | cut -d. -f2)
  cached_build "$here/helm" "$out_root/helm/helm" "$mod $here/helm/go.sum" helm.sh/helm/v3/cmd/helm \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version \
      -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$minor \
      -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$minor"
}

# The -X flags that make a binary report VERSION (v1.36.3).
version_stamp() { # version
  local rest=${1#v1.}
  echo "-X k8s.io/component-base/version.gitVersion=$1 -X k8s.io/component-base/version.gitMajor=1" \
    "-X k8s.io/component-base/version.gitMinor=${rest%%.*} -X k8s.io/component-base/version.gitTreeState=clean"
}

build_minor() { # minor component...
  local minor=$1 mod version c
  shift
  mod=$here/minors/$minor.mod
  [ -f "$mod" ] || { echo "build.sh: no pinned release for $minor ($mod)" >&2; exit 2; }
  version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v1\./ { print $2; exit }' "$mod")
  (($#)) || set -- kube-apiserver kube-scheduler
  for c in "$@"; do
    # providerless: upstream's tag that leaves the in-tree cloud providers out; no test here has a cloud.
    # The modfile relative to the module root: the cache key then holds no path of this clone.
    cached_build "$here" "$out_root/$minor/$c" "$mod ${mod%.mod}.sum $here/cmd/$c/main.go" "./cmd/$c" \
      -modfile="minors/$minor.mod" -tags providerless -ldflags "-s -w $(version_stamp "$version")"
  done
}

case "${1:-}" in
kwok) build_kwok ;;
helm) build_helm ;;
v1.*) build_minor "$@" ;;
*) echo "usage: build.sh vX.Y [component...] | kwok | helm" >&2; exit 2 ;;
esac
