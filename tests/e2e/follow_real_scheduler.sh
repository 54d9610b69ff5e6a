#!/usr/bin/env bash
# extender-sim --follow's decision agreement against a real kube-apiserver and kube-scheduler 1.26
# (docs/simulator.md, "Following a live cluster"): on 12 nodes of one size in 3 zones, where
# ties are the common case, the follower runs two policies, the scheduler's own
# KubeSchedulerConfiguration file (the default profile) and examples/pack.yaml, while
#   0. before it starts, 8 pods are bound (it must take them from its first list);
#   1. 60 pods arrive 0.4 s apart: half behind a Service (PodTopologySpread's system default
#      constraints), a few with preferred pod anti-affinity on hostname, mixed CPU and memory requests;
#   2. 12 of them are deleted and one node cordoned, then 20 more arrive 0.4 s apart (it must mirror
#      deletions and node changes: production prefers the freed room and shuns the cordoned node).
# Then: the scheduler's own policy agrees with production's decisions at least 98 times in 100 (ties counted),
# with all but 5 of the 80 judged; pack on fewer than 80 % and at least 15 points below; and, given the
# apiserver's audit log (AUDIT_LOG), the follower's requests (User-Agent kube-extender/...) were all get, list
# or watch. The nodes are Node objects this script creates (label and taint kube-extender.io/e2e=follow; the
# pods select and tolerate them), so a real cluster's own nodes and pods are left alone.
#
# Needs KUBECONFIG naming a cluster whose credentials may create nodes, services and pods, and jq;
# skipped, with a message, when it names none (CI has none). The scheduler:
#   - KUBE_SCHEDULER=/path/to/kube-scheduler: started here with the default profile (schedulerName
#     default-scheduler, no extenders, no leader election; SCHEDULER_V its -v, default 2);
#   - otherwise one must already run the default profile as default-scheduler.
# AUDIT_LOG=/path: the apiserver's --audit-log-path, its --audit-policy-file logging at least
# Metadata for every request (one rule, `- level: Metadata`); without it the GET-only check is
# skipped, saying so. EXTENDER_SIM names the binary (default $BUILD/extender-sim, BUILD: build).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. tests/e2e/lib.sh

e2e_init follow_real_scheduler follow
EXTENDER_SIM=${EXTENDER_SIM:-$BUILD/extender-sim}
AUDIT_LOG=${AUDIT_LOG:-}
FOLLOWER=

cleanup() {
  if [ -n "$FOLLOWER" ]; then kill "$FOLLOWER" 2>/dev/null || true; fi
  K -n "$NS" delete service web >/dev/null 2>&1 || true
  e2e_cleanup
}
trap cleanup EXIT
command -v jq >/dev/null || fail "needs jq (the audit log and the follower's --log are JSON lines)"
[ -x "$EXTENDER_SIM" ] || fail "no extender-sim at $EXTENDER_SIM (set BUILD or EXTENDER_SIM)"

# What a run killed half-way left behind: its nodes, and its pods, which would count in
# PodTopologySpread's and InterPodAffinity's sums on nodes of the same names.
K delete pods -A -l kube-extender.io/e2e=follow --force --grace-period=0 >/dev/null 2>&1 || true
K delete nodes -l kube-extender.io/e2e=follow >/dev/null 2>&1 || true

# The default profile, as a file: the scheduler runs it and the follower is given the same file, so
# "the same policy" is literally the same configuration.
SCHED_CFG=$WORK/scheduler-config.yaml
{
  e2e_scheduler_config_head
  echo "profiles:"
  echo "- schedulerName: default-scheduler"
} >"$SCHED_CFG"
PACK_CFG=examples/pack.yaml
e2e_start_scheduler "$SCHED_CFG" "${SCHEDULER_V:-2}"

# 12 nodes of 8 CPU and 32Gi of memory, zones interleaved in name order (e2e-follow-0 in zone-a, -1 in
# zone-b, ...), as a node pool spread over zones lists them.
make_nodes() {
  local zones=(zone-a zone-b zone-c)
  for i in $(seq 0 11); do
    e2e_node_yaml "e2e-follow-$i" 8 32Gi "topology.kubernetes.io/zone: ${zones[$((i % 3))]}"
  done | e2e_create_nodes
  # The pods here tolerate only kube-extender.io/e2e: the taint the node lifecycle controller puts
  # on a node whose kubelet never reports goes as well.
  K taint nodes -l kube-extender.io/e2e=follow node.kubernetes.io/unreachable:NoSchedule- >/dev/null 2>&1 || true
}

# Pod NAME INDEX: even indexes are app=web (behind the Service), odd ones app=worker; every tenth
# (5, 15, ...) is app=cache with preferred anti-affinity to other caches on its hostname, and every
# twentieth web pod (4, 24, ...) prefers, less strongly, no other web pod on its node. Requests cycle
# through 4 CPU and 3 memory sizes, so BalancedAllocation and LeastAllocated break some ties and not
# others.
pod_yaml() { # name index
  local i=$2 app=worker affinity=""
  local cpus=(100m 250m 500m 1) mems=(128Mi 512Mi 256Mi)
  [ $((i % 2)) = 0 ] && app=web
  [ $((i % 10)) = 5 ] && app=cache
  if [ "$app" = cache ]; then
    affinity="affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {labelSelector: {matchLabels: {app: cache}}, topologyKey: kubernetes.io/hostname}}]}}"
  elif [ $((i % 20)) = 4 ]; then
    affinity="affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 50, podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}}]}}"
  fi
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $NS, labels: {app: $app, kube-extender.io/e2e: follow}}
spec:
  nodeSelector: {kube-extender.io/e2e: follow}
  tolerations: [{key: kube-extender.io/e2e, operator: Exists}]
  $affinity
  containers: [{name: c, image: registry.k8s.io/pause:3.9, resources: {requests: {cpu: "${cpus[$((i % 4))]}", memory: "${mems[$((i % 3))]}"}}}]
YAML
}

# Creates pods PREFIX-FIRST..PREFIX-LAST (indexes as pod_yaml's) INTERVAL seconds apart. Each
# kubectl runs in the background so that its own start-up does not stretch the interval.
arrive() { # prefix first last interval
  local start i p creates=()
  start=$(now)
  for i in $(seq "$2" "$3"); do
    pod_yaml "$1-$i" "$i" >"$WORK/pod-$1-$i.yaml"
    K create -f "$WORK/pod-$1-$i.yaml" >/dev/null &
    creates+=($!)
    sleep "$4"
  done
  for p in "${creates[@]}"; do wait "$p" || fail "kubectl create of a $1 pod failed"; done
  echo "  $(($3 - $2 + 1)) pods created in $(since "$start") s"
}

# Waits until every pod of the namespace is bound, for at most LIMIT seconds.
wait_bound() { # limit
  local start unbound
  start=$(now)
  while :; do
    unbound=$(e2e_pods_now | awk '$2 == "-"' | wc -l)
    [ "$unbound" = 0 ] && return 0
    gt "$(since "$start")" "$1" && fail "$unbound pods still unbound after $1 s (is a default scheduler running?)"
    sleep 0.5
  done
}

metric() { curl -sf "http://127.0.0.1:$PORT/metrics"; }
# Every reflector of the follower has listed once.
synced() {
  metric | awk '/^kube_extender_sim_follow_reflector_synced/ { n++; if ($NF != 1) bad++ } END { exit !(n > 0 && bad == 0) }'
}
# Production's decisions the policy judged so far (the sum over verdicts).
judged() { # policy
  metric | awk -v p="policy=\"$1\"" 'index($0, "kube_extender_sim_follow_decisions_total{") == 1 && index($0, p) { n += $NF } END { print n + 0 }'
}

e2e_create_namespace
# The Service first: kube-scheduler derives PodTopologySpread's system default constraints (zone
# and hostname, ScheduleAnyway) from the Services selecting a pod when it schedules it.
K apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: {name: web, namespace: $NS}
spec: {selector: {app: web}, ports: [{port: 80}]}
YAML
make_nodes

echo "follow_real_scheduler: 12 nodes of 8 CPU / 32 GiB in 3 zones, policies: the scheduler's own profile and $PACK_CFG"
echo "phase 0: 8 pods bound before the follower starts"
arrive pre 0 7 0.2
wait_bound 60

AUDIT_FROM=0
[ -n "$AUDIT_LOG" ] && AUDIT_FROM=$(wc -l <"$AUDIT_LOG")
read -r -a version_flags <<<"$(e2e_version_flags)"
"$EXTENDER_SIM" --follow --kubeconfig "$KUBECONFIG" --config "$SCHED_CFG" --config "$PACK_CFG" "${version_flags[@]}" \
  --listen 127.0.0.1:0 --log "$WORK/follow.jsonl" --html "$WORK/follow.html" \
  >"$WORK/follow.out" 2>"$WORK/follow.err" &
FOLLOWER=$!
PORT=
for _ in $(seq 100); do
  PORT=$(sed -n 's|.*live page http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$WORK/follow.err" 2>/dev/null || true)
  [ -n "$PORT" ] && break
  kill -0 "$FOLLOWER" 2>/dev/null || fail "extender-sim --follow exited: $(cat "$WORK/follow.err")"
  sleep 0.1
done
[ -n "$PORT" ] || fail "extender-sim --follow is not serving after 10 s"
# Serving comes before listing: a pod created before the first list of pods would be seen bound, not judged.
for _ in $(seq 100); do synced && break; sleep 0.1; done
synced || fail "extender-sim --follow has not listed everything 10 s after serving"
echo "extender-sim --follow serving on 127.0.0.1:$PORT"

echo "phase 1: 60 pods, 0.4 s apart"
arrive web 0 59 0.4
wait_bound 60
echo "phase 2: 12 deleted, e2e-follow-0 cordoned, 20 more 0.4 s apart"
for i in $(seq 0 5 55); do echo "web-$i"; done | xargs kubectl -n "$NS" delete pod --force --grace-period=0 >/dev/null 2>&1
K cordon e2e-follow-0 >/dev/null
arrive more 60 79 0.4
wait_bound 60

# The last bindings reach the follower by its watch a moment after kubectl sees them.
EXPECTED=80
for _ in $(seq 50); do [ "$(judged "$SCHED_CFG")" -ge "$EXPECTED" ] && break; sleep 0.2; done
metric >"$WORK/metrics.txt" || fail "no /metrics from the follower"
kill -TERM "$FOLLOWER"
for _ in $(seq 300); do kill -0 "$FOLLOWER" 2>/dev/null || break; sleep 0.1; done
kill -0 "$FOLLOWER" 2>/dev/null && fail "extender-sim --follow still running 30 s after SIGTERM"
status=0
wait "$FOLLOWER" || status=$?
FOLLOWER=
[ "$status" = 0 ] || fail "extender-sim --follow exited $status: $(tail -n 5 "$WORK/follow.err")"

echo "--- extender-sim --follow's summary"
sed "s|$SCHED_CFG|scheduler-config.yaml|" "$WORK/follow.out"
echo "---"

# Its figures for POLICY: "PERCENT AGREED DECISIONS REJECTED" from the summary line
#   "  POLICY: decision agreement 98.8 % (79 of 80 of production's decisions; 0 rejected by its filters)".
figures() { # policy
  awk -v p="  $1: decision agreement " 'index($0, p) == 1 {
      sub(/.*decision agreement /, ""); gsub(/[%();]/, ""); print $1, $2, $4, $8 }' "$WORK/follow.out"
}
read -r SCHED_PCT SCHED_AGREED SCHED_N SCHED_REJ <<<"$(figures "$SCHED_CFG")" || true
read -r PACK_PCT PACK_AGREED PACK_N PACK_REJ <<<"$(figures "$PACK_CFG")" || true
if [ -z "${SCHED_N:-}" ] || [ -z "${PACK_N:-}" ]; then fail "no decision agreement lines in the summary"; fi
ratio() { # policy
  awk -v p="kube_extender_sim_follow_decision_agreement_ratio{policy=\"$1\"}" 'index($0, p) == 1 { print $NF }' "$WORK/metrics.txt"
}
echo "/metrics: decision agreement ratio: scheduler-config.yaml $(ratio "$SCHED_CFG"), $PACK_CFG $(ratio "$PACK_CFG")"

# The scheduler's own policy's disagreements, from --log, for whoever reads a failure.
jq -r --arg p "$SCHED_CFG" 'select(.policy == $p and .decision != null and .decision.verdict != "agreed") | .decision |
    "  \(.pod): production \(.production), \(.verdict), choice \(.choice), rank \(.rank), gap \(.gap), terms \(.terms | tojson) \(.rejected | tojson)"' \
  "$WORK/follow.jsonl" >"$WORK/disagreements.txt"
if [ -s "$WORK/disagreements.txt" ]; then
  echo "the scheduler's own profile disagreed on:"
  cat "$WORK/disagreements.txt"
fi
# Ties: decisions the policy agreed with although its own first choice (the first of its best nodes
# in node order) was another node, i.e. production's node tied with it and kube-scheduler's random
# pick among the best took another. Without ties counted, these would be disagreements.
TIES=$(jq -r --arg p "$SCHED_CFG" 'select(.policy == $p and .decision != null) | .decision |
    select(.verdict == "agreed" and .choice != .production) | .pod' "$WORK/follow.jsonl" | wc -l)
echo "$PACK_CFG's verdicts: $(jq -r --arg p "$PACK_CFG" 'select(.policy == $p and .decision != null) | .decision.verdict' "$WORK/follow.jsonl" | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }' | sed 's/, $//')"

# Only GET: the audit events of the follower's requests (one auditID per request, whichever stages
# were logged) since it started, by verb. The follower is the only kube-extender client this script
# runs; kubectl and kube-scheduler have User-Agents of their own.
VERBS=skipped
if [ -n "$AUDIT_LOG" ]; then
  sleep 1  # a closed watch's ResponseComplete is logged as the apiserver notices the close
  VERBS=$(tail -n +"$((AUDIT_FROM + 1))" "$AUDIT_LOG" |
    jq -r 'select((.userAgent // "") | startswith("kube-extender/")) | "\(.auditID) \(.verb)"' |
    sort -u | awk '{ n[$2]++ } END { for (v in n) printf "%s=%d ", v, n[v] }' | sed 's/ $//')
  [ -n "$VERBS" ] || fail "no audit events with User-Agent kube-extender/... in $AUDIT_LOG (is its policy logging Metadata for every request?)"
fi

echo "figures: $SCHED_N decisions judged (of $EXPECTED bindings); agreement: scheduler-config.yaml $SCHED_PCT % ($SCHED_AGREED, $SCHED_REJ rejected; $TIES of them ties production broke towards another node than its first), $PACK_CFG $PACK_PCT % ($PACK_AGREED, $PACK_REJ rejected); the follower's requests by verb: $VERBS"
[ "$SCHED_N" -ge $((EXPECTED - 5)) ] || fail "only $SCHED_N of production's $EXPECTED decisions judged"
# On the counts, not the rounded percentages the summary prints.
[ $((SCHED_AGREED * 100)) -ge $((SCHED_N * 98)) ] ||
  fail "the scheduler's own profile agreed on $SCHED_PCT % of production's decisions, below 98 %"
[ $((PACK_AGREED * 100)) -lt $((PACK_N * 80)) ] || fail "$PACK_CFG agreed on $PACK_PCT %, not clearly fewer (80 % or more)"
awk -v a="$SCHED_AGREED" -v n="$SCHED_N" -v b="$PACK_AGREED" -v m="$PACK_N" 'BEGIN { exit !(100 * a / n - 100 * b / m >= 15) }' ||
  fail "$PACK_CFG agreed on $PACK_PCT %, less than 15 points below the scheduler's own $SCHED_PCT %"
# The point of the workload: kube-scheduler picks at random among its best nodes, so of some two
# dozen ties, fewer than 5 landing elsewhere than the policy's first choice would mean the ties were
# not there (P < 0.1 % otherwise).
[ "$TIES" -ge 5 ] || fail "only $TIES ties broken towards another node: the workload made too few ties to test counting them"
if [ "$VERBS" = skipped ]; then
  echo "GET only: skipped (no AUDIT_LOG)"
else
  bad=$(echo "$VERBS" | tr ' ' '\n' | grep -v -E '^(get|list|watch)=' || true)
  [ -z "$bad" ] || fail "the follower sent more than GET: $VERBS"
  echo "GET only: yes ($VERBS)"
fi
echo "follow_real_scheduler: PASS"
