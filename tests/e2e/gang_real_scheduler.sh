#!/usr/bin/env bash
# Gang scheduling against a real kube-apiserver and kube-scheduler (docs/gang-scheduling.md, "Checked
# against a real scheduler"), on default extender flags:
#   1. 10 nodes of 4 CPU, three PodGroups of eight 2-CPU pods (room for two), then four 1-CPU pods:
#      two groups bind whole within 60 s, the third binds nothing; one group deleted, the third binds
#      whole within 90 s;
#   2. 40 nodes of 4 CPU, ten PodGroups of eight 4-CPU pods (room for five): exactly five bind whole
#      within 60 s; two deleted, exactly two more bind whole within 60 s.
# No group may be seen partly bound for more than 3 s. The nodes are Node objects this script creates
# (label and taint kube-extender.io/e2e=gang; the pods select and tolerate them), so a real cluster's
# own nodes and pods are left alone.
#
# Needs KUBECONFIG naming a cluster whose credentials may create nodes, CRDs and pods; skipped, with
# a message, when it names none (CI has none). The scheduler:
#   - KUBE_SCHEDULER=/path/to/kube-scheduler: started here with manifests/base/scheduler-config.yaml's
#     profile and extender entry, its urlPrefix pointed at the extender started here;
#   - otherwise one must already run with that configuration and urlPrefix http://127.0.0.1:$EXTENDER_PORT.
# REPLICAS=2 runs two extenders with --leader-elect behind haproxy (tcp mode, a connection pinned to
# one replica, as a Service is). BUILD names the build folder (build).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. tests/e2e/lib.sh

e2e_init gang_real_scheduler gang
EXTENDER_PORT=${EXTENDER_PORT:-8888}
REPLICAS=${REPLICAS:-1}
trap e2e_cleanup EXIT

e2e_install_pod_group_crd
e2e_create_namespace

# The extender(s), on default flags.
e2e_start_extenders "$REPLICAS" "$EXTENDER_PORT"

e2e_start_shipped_scheduler

make_nodes() { # count
  for i in $(seq 0 $(($1 - 1))); do e2e_node_yaml "e2e-gang-$i" 4 16Gi; done | e2e_create_nodes
}

pod_yaml() { # name group cpu
  local labels="{kube-extender.io/e2e: gang}"
  [ -n "$2" ] && labels="{kube-extender.io/e2e: gang, scheduling.x-k8s.io/pod-group: $2}"
  e2e_extender_pod_yaml "$1" "$labels" "{kube-extender.io/e2e: gang}" "$3"
}

make_groups() { # groups cpu web
  {
    for g in $(seq "$1"); do
      printf -- '---\napiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g%s, namespace: %s}\nspec: {minMember: 8, scheduleTimeoutSeconds: 20}\n' "$g" "$NS"
    done
    # Interleaved, as a Job controller per group creates them.
    for i in $(seq 0 7); do for g in $(seq "$1"); do pod_yaml "g$g-$i" "g$g" "$2"; done; done
    for i in $(seq 0 $(($3 - 1))); do pod_yaml "web-$i" "" 1; done
  } >"$WORK/workload.yaml"
  K apply -f "$WORK/workload.yaml" >/dev/null
}

# Bound of existing members per group, from an e2e_pods_now listing: "g1=8/8 g2=0/8 ..." (groups
# 1..N), then "web=K".
bound_counts() { # listing groups
  printf '%sweb=%s\n' "$(e2e_group_counts "$1" "$2")" "$(echo "$1" | awk 'index($1, "web-") == 1 && $2 != "-"' | wc -l)"
}

# Polls until `done_test COUNTS` holds (COUNTS: bound_counts's) or `limit` seconds pass; fails when a
# group is seen partly bound for more than 3 s. WAITED: the seconds it took.
wait_for() { # groups limit done_test
  e2e_wait_for_groups "$1" "$2" "$3" "$(now)" bound_counts
}
whole() { echo "$1" | tr ' ' '\n' | grep -c '^g[0-9]*=8/' || true; }
empty() { echo "$1" | tr ' ' '\n' | grep -c '^g[0-9]*=0/[1-9]' || true; }
three_first() { [ "$(whole "$1")" = 2 ] && [ "$(empty "$1")" = 1 ] && echo "$1" | grep -q 'web=4'; }
three_all() { [ "$(whole "$1")" = 2 ] && [ "$(empty "$1")" = 0 ]; }
ten_first() { [ "$(whole "$1")" = 5 ] && [ "$(empty "$1")" = 5 ]; }
ten_after() { [ "$(whole "$1")" = 5 ] && [ "$(empty "$1")" = 3 ]; }

delete_group() { K -n "$NS" delete pods -l "scheduling.x-k8s.io/pod-group=$1" --force --grace-period=0 >/dev/null 2>&1; }
reset() {
  K -n "$NS" delete pods --all --force --grace-period=0 >/dev/null 2>&1 || true
  K -n "$NS" delete podgroups --all >/dev/null 2>&1 || true
  K delete nodes -l kube-extender.io/e2e=gang >/dev/null 2>&1 || true
}

echo "gang_real_scheduler: $REPLICAS extender replica(s), default flags"
make_nodes 10
make_groups 3 2 4
wait_for 3 60 three_first
echo "three groups, room for two: two whole and four web pods bound in $WAITED s, the third nothing"
line=$(bound_counts "$(e2e_pods_now)" 3)
first=$(echo "$line" | tr ' ' '\n' | grep '=8/' | head -n1 | cut -d= -f1)
delete_group "$first"
wait_for 3 90 three_all
echo "$first deleted: the third group whole $WAITED s later"
reset
make_nodes 40
make_groups 10 4 0
wait_for 10 60 ten_first
echo "ten groups, room for five: five whole in $WAITED s, five with nothing bound"
line=$(bound_counts "$(e2e_pods_now)" 10)
for g in $(echo "$line" | tr ' ' '\n' | grep '=8/' | head -n2 | cut -d= -f1); do delete_group "$g"; done
wait_for 10 60 ten_after
echo "two deleted: two more whole $WAITED s later, three with nothing bound"
echo "longest a group was seen partly bound: $PARTLY_MAX s"
reset
echo "gang_real_scheduler: PASS"
