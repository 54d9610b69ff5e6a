#!/usr/bin/env bash
# extender-sim capacity --drain against a real drain (docs/capacity.md, "What if these nodes go"). Node
# 0 (16 CPU) runs three web pods (a ReplicaSet, 1 CPU each, behind a budget that allows one
# disruption), a 3-CPU batch pod (a ReplicaSet, no budget) and a 4-CPU database (a ReplicaSet behind a
# budget that allows none). Pods bound to the other three nodes (4 CPU each) leave 1, 1 and 2 CPUs free.
#   1. extender-sim capacity --kubeconfig predicts the drain of node 0 from the cluster as it is;
#   2. `kubectl drain --ignore-daemonsets` drains it for real, through the Eviction API: a real
#      kube-controller-manager's ReplicaSet controller makes the replacements and its disruption
#      controller the budgets' status, and the real kube-scheduler places the replacements.
# Checked: the budgets predicted to block the drain are those of the pods kubectl could not evict; the
# pods predicted to stay pending, those of a blocking budget aside (never evicted), are those whose
# replacements stay pending; every other replacement is bound. (A budget predicted to slow the drain is
# not checked for a refused eviction: kubectl evicts in parallel, and whether a second eviction comes
# before the first one's replacement is Ready, which allows it again, is a matter of timing.)
#
# Needs KUBECONFIG naming a cluster whose credentials may create nodes, ReplicaSets, budgets and pods,
# and jq; skipped when it names none. KUBE_SCHEDULER: as follow_real_scheduler.sh (the default profile).
# KUBE_CONTROLLER_MANAGER=/path: started here with the replicaset and disruption controllers only
# (no leader election); otherwise the cluster's own must run them. EXTENDER_SIM names the binary
# (default $BUILD/extender-sim, BUILD: build).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. tests/e2e/lib.sh

e2e_init drain_real_cluster drain
EXTENDER_SIM=${EXTENDER_SIM:-$BUILD/extender-sim}
trap e2e_cleanup EXIT
command -v jq >/dev/null || fail "needs jq"
[ -x "$EXTENDER_SIM" ] || fail "no extender-sim at $EXTENDER_SIM (set BUILD or EXTENDER_SIM)"
K delete pods -A -l kube-extender.io/e2e=drain --force --grace-period=0 >/dev/null 2>&1 || true
e2e_delete_nodes
# Node names of this run's own: kwok keeps the pods of a node Pending for tens of seconds when the Lease
# of an earlier node of the same name is still there.
node_name() { echo "e2e-drain-${NS##*-}-$1"; }

e2e_create_namespace
{
  e2e_scheduler_config_head
  echo "profiles:"
  echo "- schedulerName: default-scheduler"
} >"$WORK/scheduler-config.yaml"
e2e_start_scheduler "$WORK/scheduler-config.yaml" 2
if [ -n "${KUBE_CONTROLLER_MANAGER:-}" ]; then
  "$KUBE_CONTROLLER_MANAGER" --kubeconfig "$KUBECONFIG" --controllers=replicaset-controller,disruption-controller \
    --leader-elect=false --secure-port=0 --v=2 >"$WORK/kube-controller-manager.log" 2>&1 &
  PIDS+=($!)
fi

replica_set() { # name replicas cpu
  cat <<YAML
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: $1, namespace: $NS}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1, kube-extender.io/e2e: drain}}
    spec:
      nodeSelector: {kube-extender.io/e2e: drain}
      tolerations: [{key: kube-extender.io/e2e, operator: Exists}]
      terminationGracePeriodSeconds: 0
      containers: [{name: c, image: registry.k8s.io/pause:3.9, resources: {requests: {cpu: "$3", memory: 100Mi}}}]
YAML
}
budget() { # name app field value
  printf -- '---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: %s, namespace: %s}\nspec: {%s: %s, selector: {matchLabels: {app: %s}}}\n' \
    "$1" "$NS" "$3" "$4" "$2"
}
# A pod bound to NODE at creation, as a DaemonSet's or a static pod is: the room the others leave.
filler() { # node cpu
  cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: filler-$1, namespace: $NS, labels: {kube-extender.io/e2e: drain}}
spec:
  nodeName: $1
  tolerations: [{key: kube-extender.io/e2e, operator: Exists}]
  containers: [{name: c, image: registry.k8s.io/pause:3.9, resources: {requests: {cpu: "$2", memory: 100Mi}}}]
YAML
}
bound_on() { e2e_pods_now | awk -v n="$1" '$2 == n && $3 == 0' | wc -l; }
# "app node" per pod of the namespace not being deleted, node "-" when unbound.
pods_by_app() {
  K -n "$NS" get pods -o json | jq -r '.items[] | select(.metadata.deletionTimestamp == null) |
    [(.metadata.labels.app // "filler"), (.spec.nodeName // "-")] | @tsv'
}
wait_until() { # seconds what command...
  local limit=$1 what=$2 start
  shift 2
  start=$(now)
  until "$@"; do
    gt "$(since "$start")" "$limit" && fail "$what: not within $limit s"
    sleep 0.5
  done
}

# Only node 0 first, so that every ReplicaSet's pods land there.
e2e_node_yaml "$(node_name 0)" 16 64Gi | e2e_create_nodes
{ replica_set web 3 1; replica_set batch 1 3; replica_set db 1 4; budget web web maxUnavailable 1; budget db db minAvailable 1; } |
  K apply -f - >/dev/null
wait_until 60 "the five pods bound to $(node_name 0)" test "$(bound_on "$(node_name 0)")" = 5
for i in 1 2 3; do e2e_node_yaml "$(node_name "$i")" 4 16Gi; done | e2e_create_nodes
{ filler "$(node_name 1)" 3; filler "$(node_name 2)" 3; filler "$(node_name 3)" 2; } | K apply -f - >/dev/null
allowed() { K -n "$NS" get pdb "$1" -o jsonpath='{.status.disruptionsAllowed}'; }
wait_until 60 "the budgets' status (disruption controller)" test "$(allowed web)/$(allowed db)" = 1/0
echo "drain_real_cluster: $(node_name 0) runs web x3 (1 CPU), batch (3 CPU), db (4 CPU); 1, 1, 2 CPUs free elsewhere"

# 1. The prediction, from the cluster as it is.
# shellcheck disable=SC2046  # e2e_version_flags is a list of arguments
"$EXTENDER_SIM" capacity --kubeconfig "$KUBECONFIG" --drain "$(node_name 0)" --json $(e2e_version_flags) \
  >"$WORK/predicted.json" 2>"$WORK/extender-sim.log" || fail "extender-sim capacity failed: $(cat "$WORK/extender-sim.log")"
app_of() { sed 's|^[^/]*/||; s|-[a-z0-9]\{5\}$||'; } # "ns/web-x7k2p" -> "web"
predicted_pending=$(jq -r '.pending[].pod' "$WORK/predicted.json" | app_of | sort | tr '\n' ' ')
predicted_placed=$(jq -r '.placed[].pod' "$WORK/predicted.json" | app_of | sort | tr '\n' ' ')
predicted_blocks=$(jq -r '.budgets[] | select(.blocks) | .pdb' "$WORK/predicted.json" | app_of | sort | tr '\n' ' ')
predicted_slows=$(jq -r '.budgets[] | select(.slows and (.blocks | not)) | .pdb' "$WORK/predicted.json" | app_of | sort | tr '\n' ' ')
echo "predicted: safe $(jq .safe "$WORK/predicted.json"); placed: $predicted_placed; pending: $predicted_pending; blocking budgets: $predicted_blocks; slowing: $predicted_slows"

# 2. The drain, for real. A budget that blocks holds it until the timeout.
start=$(now)
drain_status=0
K drain "$(node_name 0)" --ignore-daemonsets --timeout=20s >"$WORK/drain.log" 2>&1 || drain_status=$?
echo "kubectl drain: exit $drain_status after $(since "$start") s"
# Every replacement created, and each one bound or found unschedulable by the scheduler.
settled() {
  local pods
  pods=$(K -n "$NS" get pods -o json)
  [ "$(jq '[.items[] | select(.metadata.labels.app == "web" and .spec.nodeName != null and .spec.nodeName != $n0)] | length' --arg n0 "$(node_name 0)" <<<"$pods")" = 3 ] &&
    jq -e '[.items[] | select(.spec.nodeName == null)] | all(.status.conditions // [] | any(.type == "PodScheduled" and .reason == "Unschedulable"))' <<<"$pods" >/dev/null
}
wait_until 60 "the replacements bound or unschedulable" settled
pods_by_app >"$WORK/after.tsv"
real_pending=$(awk '$2 == "-" { print $1 }' "$WORK/after.tsv" | sort | tr '\n' ' ')
not_evicted=$(awk -v n0="$(node_name 0)" '$2 == n0 { print $1 }' "$WORK/after.tsv" | sort | tr '\n' ' ')
echo "real: pending: $real_pending; not evicted: $not_evicted"

[ "$predicted_blocks" = "$not_evicted" ] ||
  fail "budgets predicted to block: '$predicted_blocks'; pods kubectl could not evict: '$not_evicted'"
[ -z "$not_evicted" ] || [ "$drain_status" != 0 ] || fail "kubectl drain succeeded with pods not evicted"
expected_pending=$(comm -23 <(tr ' ' '\n' <<<"$predicted_pending" | sed '/^$/d') <(tr ' ' '\n' <<<"$predicted_blocks" | sed '/^$/d') | tr '\n' ' ')
[ "$expected_pending" = "$real_pending" ] ||
  fail "predicted pending (blocked ones aside): '$expected_pending'; pending for real: '$real_pending'"
for app in $predicted_placed; do
  [ "$(awk -v a="$app" -v n0="$(node_name 0)" '$1 == a && $2 != "-" && $2 != n0' "$WORK/after.tsv" | wc -l)" -gt 0 ] ||
    fail "$app predicted placed elsewhere; not bound for real"
done
echo "prediction and drain agree: blocking budgets '$predicted_blocks', pending '$real_pending'"
echo "drain_real_cluster: PASS"
