#!/usr/bin/env bash
# Writes minors/vMAJOR.MINOR.mod and .sum for one Kubernetes release: k8s.io/kubernetes at VERSION and
# every staging module it requires at v0.0.0 replaced by its published v0.MINOR.PATCH, as
# kubernetes-sigs/scheduler-plugins' go.mod does. Run by hand when a pin moves; builds read the result.
#   pin.sh v1.36.3
set -euo pipefail
# Go for the test harness: the machines have it at /usr/local/go.
command -v go >/dev/null || export PATH=/usr/local/go/bin:$PATH
cd "$(dirname "$0")"
version=$1                       # v1.36.3
minor=${version%.*}              # v1.36
staging=v0.${version#v1.}        # v0.36.3
mod=minors/$minor.mod
upstream=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
# The go line: the release's own, so that the toolchain it names (through GOTOOLCHAIN) builds it.
goline=$(sed -n 's/^go \(.*\)$/\1/p' "$upstream")
{
  echo "module kube-extender.test/controlplane"
  echo
  echo "go $goline"
  echo
  echo "require k8s.io/kubernetes $version"
  echo
  echo "replace ("
  awk '$2 == "v0.0.0" && $1 ~ /^k8s.io\// { print $1 }' "$upstream" | sort -u |
    while read -r m; do printf '\t%s => %s %s\n' "$m" "$m" "$staging"; done
  echo ")"
} >"$mod"
rm -f "minors/$minor.sum"
GOFLAGS=-modfile="$mod" go mod tidy -e >/dev/null 2>&1 || true
GOFLAGS=-modfile="$mod" go get "k8s.io/kubernetes@$version" ./cmd/kube-apiserver ./cmd/kube-scheduler ./cmd/kubectl \
  ./cmd/kube-controller-manager
GOFLAGS=-modfile="$mod" go mod tidy
echo "wrote $mod"
