#!/usr/bin/env bash
# kubernetes-sigs/cluster-capacity and `extender-sim capacity --pod` on the same random clusters
# (tests/capacity/cluster_capacity).
#
#   tests/capacity/compare_cluster_capacity.sh [capacity-compare flags: -seeds 50 -max-nodes 500 -out DIR]
#
# cluster-capacity is the Go module sigs.k8s.io/cluster-capacity v0.30.0 (kube-scheduler 1.30.1, its
# default profile), pinned in cluster_capacity/go.sum; extender-sim runs with --kubernetes-version 1.30.
# BUILD (default build) holds extender-sim, brought up to date by cmake first unless SIM_BUILD=0 (then it
# is only built when missing). Exits non-zero when a total, or a per-node count of a pod
# whose answer cannot depend on tie-breaks, differs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-$root/build}
if [[ "${SIM_BUILD:-1}" != 0 || ! -x "$build/extender-sim" ]]; then
  cmake --build "$build" --target extender-sim >/dev/null
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$here/cluster_capacity" && go build -o "$bin/capacity-compare" .)
"$bin/capacity-compare" -sim "$build/extender-sim" "$@"
