#!/usr/bin/env bash
# Builds the e2e control plane's binaries from pinned Go modules into $CONTROLPLANE_BIN (default: bin/
# beside this file). A binary newer than what it is built from is kept.
#   build.sh v1.36 [kube-apiserver] [kube-scheduler] [kubectl]   (default: the first two) -> bin/v1.36/
#   build.sh kwok                                                  -> bin/kwok/kwok
# A minor's components come from k8s.io/kubernetes as pinned in minors/vX.Y.mod (+ .sum; pin.sh writes
# them) and report that release at /version and --version, stamped as upstream's hack/lib/version.sh
# does. kwok comes from its own module (kwok/go.mod), as a tool of it.
set -euo pipefail
# Go for the test harness: the machines have it at /usr/local/go.
command -v go >/dev/null || export PATH=/usr/local/go/bin:$PATH
here=$(cd "$(dirname "$0")" && pwd)
out_root=${CONTROLPLANE_BIN:-$here/bin}

# Whether BIN is missing or older than any of the files it is built from.
stale() { # bin source...
  local bin=$1
  shift
  [ ! -x "$bin" ] || [ -n "$(find "$@" -newer "$bin" 2>/dev/null | head -1)" ]
}

build_kwok() {
  local bin=$out_root/kwok/kwok start=$SECONDS
  stale "$bin" "$here/kwok/go.mod" "$here/kwok/go.sum" || return 0
  (cd "$here/kwok" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin" sigs.k8s.io/kwok/cmd/kwok)
  echo "built kwok in $((SECONDS - start)) s"
}

# The -X flags that make a binary report VERSION (v1.36.3).
version_stamp() { # version
  local rest=${1#v1.}
  echo "-X k8s.io/component-base/version.gitVersion=$1 -X k8s.io/component-base/version.gitMajor=1" \
    "-X k8s.io/component-base/version.gitMinor=${rest%%.*} -X k8s.io/component-base/version.gitTreeState=clean"
}

build_minor() { # minor component...
  local minor=$1 mod version c bin start
  shift
  mod=$here/minors/$minor.mod
  [ -f "$mod" ] || { echo "build.sh: no pinned release for $minor ($mod)" >&2; exit 2; }
  version=$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v1\./ { print $2; exit }' "$mod")
  (($#)) || set -- kube-apiserver kube-scheduler
  for c in "$@"; do
    bin=$out_root/$minor/$c
    stale "$bin" "$mod" "${mod%.mod}.sum" "$here/cmd/$c" || continue
    start=$SECONDS
    # providerless: upstream's tag that leaves the in-tree cloud providers out; no test here has a cloud.
    (cd "$here" && CGO_ENABLED=0 go build -modfile="$mod" -tags providerless -trimpath \
      -ldflags "-s -w $(version_stamp "$version")" -o "$bin" "./cmd/$c")
    echo "built $minor/$c ($version) in $((SECONDS - start)) s"
  done
}

case "${1:-}" in
kwok) build_kwok ;;
v1.*) build_minor "$@" ;;
*) echo "usage: build.sh vX.Y [component...] | kwok" >&2; exit 2 ;;
esac
