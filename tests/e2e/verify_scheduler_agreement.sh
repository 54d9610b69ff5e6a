#!/usr/bin/env bash
# Whether the extender decides as the real kube-scheduler of one minor does, plugin by plugin, on a random
# cluster: kube-scheduler (KUBE_SCHEDULER, any pinned minor) runs its default profile with
# percentageOfNodesToScore 100 at -v=10 and calls kube-extender (the C++ build, started here on that same
# configuration file, so on the same default profile) for filter, prioritize and preempt, nodeCacheCapable.
# For each test pod, verify_compare.sh then compares
#   - scores: each plugin's score kube-scheduler logs ("Plugin scored node for pod", weighted, 0..100 before
#     the weight) with the extender's score of that plugin for that node in its decision log (0..10);
#   - filter sets: the nodes kube-scheduler sent to /filter on its first attempt (its own feasible set)
#     with the nodes the extender's /filter passes when this script asks it about every node just before
#     the pod is created;
#   - victims: for each /preempt call, the scheduler's victims per candidate node (NodeNameToMetaVictims,
#     from the extender's --record-dir) with the victims the extender chose for that node (decision log);
# prints `scores equal X/Y, filter sets equal X/Y, victims equal X/Y` and the first differences, and
# exits 1 when anything differs.
#
# The cluster (verify_cluster.awk, reproducible from SEED): NODES Node objects (default 200) in 4 zones, 2 to
# 32 CPUs, images in status.images, PreferNoSchedule and NoSchedule taints, one or two unschedulable; pods
# bound to them at creation (best-effort ones, init containers, priorities 0, 10 and 1000, pod
# (anti-)affinity, some resized in place), two Services and a PDB; then TESTS pods to schedule (default 60,
# 17 shapes: requests, best-effort, init containers, a sidecar, spread constraints, node and pod affinity,
# tolerations, images, ephemeral storage, pod-level requests, ...) with PREEMPTORS pods of priority 100000 among them (default 8) that fit nowhere
# without evicting. The pods are scheduled one at a time, each once the one before is bound (or
# POD_TIMEOUT seconds have passed, default 20, and it is deleted), so that both sides see the same cluster.
# Nodes and pods carry the label and taint kube-extender.io/e2e=verify; PriorityClasses verify-low, -mid
# and -high are created with that label and deleted afterwards.
#
# Needs KUBECONFIG (skipped without a cluster), KUBE_SCHEDULER (the scheduler is started here: -v=10 and
# its configuration are the point), jq, curl and kubectl. BUILD names the C++ build (default build);
# EXTENDER_PORT the extender's port (default 8898). The extender runs the scheduler's minor's semantics
# with --kubernetes-version.
# Logs and the data compared stay in the folder printed at the end; verify_compare.sh DIR compares again.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. tests/e2e/lib.sh

e2e_init verify_scheduler_agreement verify
SEED=${SEED:-1}
NODES=${NODES:-200}
TESTS=${TESTS:-60}
PREEMPTORS=${PREEMPTORS:-8}
POD_TIMEOUT=${POD_TIMEOUT:-20}
EXTENDER_PORT=${EXTENDER_PORT:-8898}
SCHEDULER_NAME=verify-scheduler
EXTENDER="http://127.0.0.1:$EXTENDER_PORT"

# Pods and nodes go by one delete-collection request each (kubectl deletes one object per request).
delete_all() { # namespace
  [ -n "$E2E_API" ] || return 0
  e2e_delete_pods "$1"
  e2e_api DELETE "/api/v1/nodes?labelSelector=kube-extender.io/e2e%3Dverify" -o /dev/null || true
}
cleanup() {
  delete_all "$NS"
  e2e_cleanup
  K delete priorityclass -l kube-extender.io/e2e=verify --wait=false >/dev/null 2>&1 || true
}
trap cleanup EXIT
for tool in jq curl; do command -v $tool >/dev/null || fail "needs $tool"; done
[ -n "${KUBE_SCHEDULER:-}" ] || fail "needs KUBE_SCHEDULER: the scheduler is started here, at -v=10"
[ -x "$BUILD/kube-extender" ] || fail "no kube-extender at $BUILD/kube-extender (set BUILD)"
SCHED_VERSION=$("$KUBE_SCHEDULER" --version | awk '{ print $2 }')
MINOR=$(e2e_scheduler_minor)
[ -n "$MINOR" ] || fail "cannot read the minor of $KUBE_SCHEDULER --version: $SCHED_VERSION"
read -r -a VERSION_FLAGS <<<"$(e2e_version_flags)"
SEMANTICS="$MINOR (--kubernetes-version)"

# Sends every "PATH<TAB>JSON" merge patch of FILE from one curl, 8 at a time; fails on any answer but 200.
patch_all() { # file
  awk -F'\t' -v api="$E2E_API" '{
      gsub(/\\/, "\\\\", $2); gsub(/"/, "\\\"", $2)
      if (NR > 1) print "next"
      printf "url = \"%s%s\"\nrequest = \"PATCH\"\nheader = \"Content-Type: application/merge-patch+json\"\n", api, $1
      printf "data = \"%s\"\noutput = \"/dev/null\"\nwrite-out = \"%%{http_code} %%{url_effective}\\n\"\n", $2
    }' "$1" >"$WORK/patches.curl"
  curl --parallel --parallel-max 8 -K "$WORK/patches.curl" >"$WORK/patches.out" 2>"$WORK/patches.err"
  local bad
  bad=$(awk '$1 != 200' "$WORK/patches.out" | head -3)
  [ -z "$bad" ] || fail "status patches failed: $bad"
}

make_cluster() {
  mkdir -p "$WORK/gen/test"
  awk -v seed="$SEED" -v nodes="$NODES" -v tests="$TESTS" -v preemptors="$PREEMPTORS" -v ns="$NS" \
    -v label=verify -v scheduler="$SCHEDULER_NAME" -v out="$WORK/gen" -v now_epoch="$(date +%s)" \
    -f tests/e2e/verify_cluster.awk
  K apply -f - >/dev/null <<'YAML'
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: verify-low, labels: {kube-extender.io/e2e: verify}}
value: 10
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: verify-mid, labels: {kube-extender.io/e2e: verify}}
value: 1000
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: verify-high, labels: {kube-extender.io/e2e: verify}}
value: 100000
YAML
  e2e_create_namespace
  K create -f "$WORK/gen/nodes.json" >/dev/null
  K create -f "$WORK/gen/extras.json" >/dev/null
  K create -f "$WORK/gen/pods.json" >/dev/null
  patch_all "$WORK/gen/patches.tsv"
  # UID -> name of every pod, for the victims (NodeNameToMetaVictims carries UIDs only).
  e2e_api GET "/api/v1/namespaces/$NS/pods" | jq -r '.items[] | [.metadata.uid, .metadata.name] | @tsv' >"$WORK/uids.tsv"
}

# The default profile under a name of its own, every node scored, the extender for every verb but bind.
# The extender is given this same file, so "the same profile" is literally the same configuration.
write_config() {
  {
    e2e_scheduler_config_head
    echo "percentageOfNodesToScore: 100"
    echo "profiles:"
    echo "- schedulerName: $SCHEDULER_NAME"
    echo "extenders:"
    echo "- urlPrefix: $EXTENDER"
    echo "  filterVerb: filter"
    echo "  prioritizeVerb: prioritize"
    echo "  preemptVerb: preempt"
    echo "  weight: 1"
    echo "  nodeCacheCapable: true"
    echo "  httpTimeout: 30s"
  } >"$WORK/scheduler-config.yaml"
}

start_extender() {
  "$BUILD/kube-extender" --kubeconfig "$KUBECONFIG" --bind-address 127.0.0.1 --port "$EXTENDER_PORT" \
    --config "$WORK/scheduler-config.yaml" --scheduler-name "$SCHEDULER_NAME" "${VERSION_FLAGS[@]}" \
    --decision-log-size 1000000 --decision-log-max-bytes 4294967296 --record-dir "$WORK/records" \
    --shutdown-delay-seconds 0 >"$WORK/extender.log" 2>&1 &
  EXTENDER_PID=$!
  PIDS+=("$EXTENDER_PID")
  for _ in $(seq 150); do curl -sf "$EXTENDER/readyz" >/dev/null && return 0; sleep 0.2; done
  fail "the extender is not ready: $(tail -n 5 "$WORK/extender.log")"
}

# Force-deletes the namespace's terminating pods: preemption's victims, as a kubelet would end them.
end_terminating() {
  e2e_api GET "/api/v1/namespaces/$NS/pods" | jq -r '.items[] | select(.metadata.deletionTimestamp) | .metadata.name' |
    while read -r p; do
      e2e_api DELETE "/api/v1/namespaces/$NS/pods/$p" -d '{"gracePeriodSeconds":0}' -o /dev/null
      echo "$p" >>"$WORK/force-deleted"
    done
}

# The extender's /filter for the pod of FILE over every node, as kube-scheduler would send it, just before
# the pod is created: the pod as the API server would store it (a dry-run create: admission's priority and
# default tolerations), with a UID of its own so that its decisions and records are told apart.
probe_filter() { # file name
  e2e_api POST "/api/v1/namespaces/$NS/pods?dryRun=All" --data-binary @"$1" >"$WORK/probe/$2.pod.json"
  jq -c --arg uid "verify-probe-$2" --slurpfile names "$WORK/nodes.jsonarray" \
    '{Pod: (.metadata.uid = $uid), NodeNames: $names[0], Nodes: null}' "$WORK/probe/$2.pod.json" >"$WORK/probe/$2.request.json"
  curl -sS -X POST -H 'Content-Type: application/json' --data-binary @"$WORK/probe/$2.request.json" \
    "$EXTENDER/filter" >"$WORK/probe/$2.json"
}

# A bound pod made Running with a startTime of its own, a second after the last one, as a kubelet would
# start it: preemption ranks equal priorities by start time (MoreImportantPod), and kube-scheduler takes
# "now" for a pod without one, which would make the victims among test pods a matter of timing.
LAST_START=$(date +%s)
mark_started() { # name
  LAST_START=$((LAST_START + 1))
  curl -sS -X PATCH -H 'Content-Type: application/merge-patch+json' -o /dev/null \
    -d "{\"status\":{\"phase\":\"Running\",\"startTime\":\"$(date -u -d "@$LAST_START" +%FT%TZ)\"}}" \
    "$E2E_API/api/v1/namespaces/$NS/pods/$1/status"
}

# Creates the pod and waits until it is bound, ending preemption's victims meanwhile; a pod still unbound
# after POD_TIMEOUT is deleted, so that no later retry of it mixes with the next pod's decisions.
schedule_one() { # file name
  local uid node start
  uid=$(e2e_api POST "/api/v1/namespaces/$NS/pods" --data-binary @"$1" | jq -r '.metadata.uid')
  [ -n "$uid" ] && [ "$uid" != null ] || fail "creating $2 failed"
  printf '%s\t%s\n' "$uid" "$2" >>"$WORK/uids.tsv"
  start=$(now)
  while :; do
    node=$(e2e_api GET "/api/v1/namespaces/$NS/pods/$2" | jq -r '.spec.nodeName // ""')
    [ -n "$node" ] && break
    if gt "$(since "$start")" "$POD_TIMEOUT"; then
      e2e_api DELETE "/api/v1/namespaces/$NS/pods/$2" -d '{"gracePeriodSeconds":0}' -o /dev/null
      node=-
      break
    fi
    sleep 0.3
    end_terminating
  done
  end_terminating
  [ "$node" = - ] || mark_started "$2"
  printf '%s\t%s\n' "$2" "$node" >>"$WORK/placements.tsv"
  # The binding (and the victims' deletion) reaches the extender's watch a moment after the API.
  sleep 0.5
}

echo "verify_scheduler_agreement: kube-scheduler $SCHED_VERSION, extender semantics $SEMANTICS, seed $SEED"
e2e_start_proxy
# What a run killed half-way left behind: its pods would count on nodes of the same names.
for ns in $(e2e_api GET /api/v1/namespaces | jq -r '.items[].metadata.name | select(startswith("e2e-verify-"))'); do
  delete_all "$ns"
done
made=$(now)
make_cluster
jq -R . "$WORK/gen/nodes.txt" | jq -sc . >"$WORK/nodes.jsonarray"
echo "  cluster: $NODES nodes, $(jq '.items | length' "$WORK/gen/pods.json") pods bound," \
  "$(find "$WORK/gen/test" -name '*.json' | wc -l) to schedule; made in $(since "$made") s"
write_config
start_extender
e2e_start_scheduler "$WORK/scheduler-config.yaml" 10
mkdir -p "$WORK/probe"
: >"$WORK/placements.tsv"
run_start=$(now)
for f in "$WORK"/gen/test/*.json; do
  name=$(jq -r .metadata.name "$f")
  probe_filter "$f" "$name"
  schedule_one "$f" "$name"
done
echo "  scheduled in $(since "$run_start") s: $(awk '$2 != "-"' "$WORK/placements.tsv" | wc -l) bound," \
  "$(awk '$2 == "-"' "$WORK/placements.tsv" | wc -l) unschedulable, $(cat "$WORK/force-deleted" 2>/dev/null | wc -l) victims force-deleted"

curl -sf "$EXTENDER/debug/decisions?limit=1000000" >"$WORK/decisions.json" || fail "no /debug/decisions"
# SIGTERM flushes the recordings.
kill -TERM "$EXTENDER_PID"
for _ in $(seq 100); do kill -0 "$EXTENDER_PID" 2>/dev/null || break; sleep 0.1; done
{
  echo "kube-scheduler $SCHED_VERSION"
  echo "extender semantics $SEMANTICS"
} >"$WORK/versions.txt"
status=0
tests/e2e/verify_compare.sh "$WORK" || status=$?
echo "data and logs in $WORK"
exit "$status"
