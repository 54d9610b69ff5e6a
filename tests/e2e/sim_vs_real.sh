#!/usr/bin/env bash
# extender-sim's placements against a real kube-scheduler's, counted per node tier: on 24 nodes in
# three tiers (8 each: small 4 CPU / 8Gi, medium 8 CPU / 32Gi, large 16 CPU / 64Gi; label
# example.com/tier) spread over 3 zones, the real kube-scheduler of one minor (KUBE_SCHEDULER, its
# default profile under the schedulerName simreal-scheduler) places a seeded workload of PODS pods
# (default 80: requests of 8 shapes, best-effort ones, a few preferring a tier by node affinity, a few
# spread softly over zones), created one at a time, each once the one before is bound, so that its
# sequence is reproducible. extender-sim then runs offline on the same Node objects (a cluster file of
# them as the API server holds them) and the same pods in the same order (a workload file, one pod a
# second), with the same KubeSchedulerConfiguration file and --kubernetes-version of the scheduler's
# minor. Ties between nodes fall at random on both sides (kube-scheduler by a draw before 1.35 and, from
# 1.35, by the order its parallel filter finishes the nodes in; extender-sim by --seed at every minor),
# so each of RUNS runs (default 5) pairs one run of the real scheduler (the pods
# deleted and created again) with extender-sim at --seed 1..RUNS; REAL_RUNS=1 reuses the first real run
# for every pair. extender-sim, a fraction of a second a run, then runs on to --seed SIM_RUNS (default
# 30), so that its side's mean carries little noise. Prints, per tier, the pods placed there by each
# (mean over its runs) and their difference, and exits 1 when a tier's means differ by more than the
# larger of MAX_DIFF (default 1.5 pods) and three standard errors of that difference: a real run's
# count alone varies by a pod or two from its ties, so a few real runs' mean does too.
#
# The nodes and pods carry the label and taint kube-extender.io/e2e=simreal, which the pods select and
# tolerate, so a real cluster's own nodes and pods are left alone.
#
# Each run also names the first pod extender-sim placed in another tier, with both sides' best totals:
# kube-scheduler's from its log at -v=10 (each plugin's score for every node), extender-sim's winner and
# runner-up from its --log; equal totals across tiers mean the difference is a tie broken at random.
#
# Needs KUBECONFIG (skipped without a cluster), KUBE_SCHEDULER (started here; SCHEDULER_V its -v,
# default 10; below 10 the real side of that line is left out), jq, curl and kubectl. BUILD names the
# C++ build (default build), EXTENDER_SIM the simulator (default $BUILD/extender-sim); SEED the workload
# (default 1). Logs, inputs and placements stay in the folder printed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. tests/e2e/lib.sh

e2e_init sim_vs_real simreal
SEED=${SEED:-1}
PODS=${PODS:-80}
RUNS=${RUNS:-5}
REAL_RUNS=${REAL_RUNS:-$RUNS}
SIM_RUNS=${SIM_RUNS:-30}
MAX_DIFF=${MAX_DIFF:-1.5}
POD_TIMEOUT=${POD_TIMEOUT:-20}
SCHEDULER_V=${SCHEDULER_V:-10}
EXTENDER_SIM=${EXTENDER_SIM:-$BUILD/extender-sim}
SCHEDULER_NAME=simreal-scheduler
TIERS=(small medium large)

cleanup() {
  e2e_delete_pods "$NS"
  e2e_cleanup
}
trap cleanup EXIT
for tool in jq curl; do command -v $tool >/dev/null || fail "needs $tool"; done
[ -n "${KUBE_SCHEDULER:-}" ] || fail "needs KUBE_SCHEDULER: the scheduler is started here, on the same file as extender-sim"
[ -x "$EXTENDER_SIM" ] || fail "no extender-sim at $EXTENDER_SIM (set BUILD or EXTENDER_SIM)"
MINOR=$(e2e_scheduler_minor)
[ -n "$MINOR" ] || fail "cannot read the minor of $KUBE_SCHEDULER --version"
[ "$REAL_RUNS" = 1 ] || [ "$REAL_RUNS" = "$RUNS" ] || fail "REAL_RUNS is 1 or RUNS ($RUNS), not $REAL_RUNS"
[ "$SIM_RUNS" -ge "$RUNS" ] || fail "SIM_RUNS ($SIM_RUNS) is below RUNS ($RUNS)"

# Node I of 24 (names in zero-padded order): zone I % 3 and tier (I / 3 + I % 3) % 3, so that each
# tier has 8 nodes over the 3 zones and each zone 8 nodes over the 3 tiers. The names list the zones
# interleaved, a, b, c, a, ..., as kube-scheduler's node tree lists a snapshot's nodes; extender-sim
# evaluates nodes in the cluster file's order, so both start their walk alike.
make_nodes() {
  local zones=(zone-a zone-b zone-c) cpus=(4 8 16) mems=(8Gi 32Gi 64Gi) i t name
  : >"$WORK/tiers.tsv"
  for i in $(seq 0 23); do
    t=$(((i / 3 + i % 3) % 3))
    name=$(printf 'e2e-simreal-%02d' "$i")
    printf '%s\t%s\n' "$name" "${TIERS[$t]}" >>"$WORK/tiers.tsv"
    e2e_node_yaml "$name" "${cpus[$t]}" "${mems[$t]}" \
      "topology.kubernetes.io/zone: ${zones[$((i % 3))]}" "example.com/tier: ${TIERS[$t]}"
  done | e2e_create_nodes
  K taint nodes -l kube-extender.io/e2e=simreal node.kubernetes.io/unreachable:NoSchedule- >/dev/null 2>&1 || true
}

# The workload, one pod JSON a line in creation order ($WORK/pods.jsonl), from SEED: app web, api,
# batch or cache; 1 in 10 best-effort, the others requesting one of 8 shapes (CPU-heavy, memory-heavy
# and balanced, so that BalancedAllocation tells the tiers' CPU/memory ratios apart); 1 in 8 prefers a
# tier (node affinity, weight 20, 60 or 100); half the web pods spread over zones, ScheduleAnyway.
make_pods() {
  awk -v seed="$SEED" -v pods="$PODS" -v ns="$NS" -v scheduler="$SCHEDULER_NAME" '
    function q(s) { return "\"" s "\"" }
    function pick(list, a, n) { n = split(list, a, " "); return a[int(rand() * n) + 1] }
    BEGIN {
      srand(seed)
      split("100m:128Mi 250m:256Mi 500m:512Mi 500m:2Gi 1:1Gi 1:4Gi 2:2Gi 2:6Gi", shapes, " ")
      for (i = 0; i < pods; i++) {
        app = pick("web api batch cache")
        res = "{}"
        if (rand() >= 0.1) {
          split(shapes[int(rand() * 8) + 1], s, ":")
          res = "{\"requests\":{\"cpu\":" q(s[1]) ",\"memory\":" q(s[2]) "}}"
        }
        extra = ""
        if (rand() < 0.125)
          extra = extra ",\"affinity\":{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":" \
            pick("20 60 100") ",\"preference\":{\"matchExpressions\":[{\"key\":\"example.com/tier\",\"operator\":\"In\",\"values\":[" \
            q(pick("small medium large")) "]}]}}]}}"
        if (app == "web" && rand() < 0.5)
          extra = extra ",\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"topology.kubernetes.io/zone\"," \
            "\"whenUnsatisfiable\":\"ScheduleAnyway\",\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}}}]"
        printf "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p-%02d\",\"namespace\":%s,", i, q(ns)
        printf "\"labels\":{\"app\":%s,\"kube-extender.io/e2e\":\"simreal\"}},\"spec\":{\"schedulerName\":%s,", q(app), q(scheduler)
        printf "\"terminationGracePeriodSeconds\":0,\"nodeSelector\":{\"kube-extender.io/e2e\":\"simreal\"},"
        printf "\"tolerations\":[{\"key\":\"kube-extender.io/e2e\",\"operator\":\"Exists\"},"
        printf "{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\"},{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\"}]"
        printf "%s,\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.9\",\"resources\":%s}]}}\n", extra, res
      }
    }' >"$WORK/pods.jsonl"
}

# The default profile under a name of its own, percentageOfNodesToScore left at its default: the
# scheduler runs this file and extender-sim is given the same file.
write_config() {
  {
    e2e_scheduler_config_head
    echo "profiles:"
    echo "- schedulerName: $SCHEDULER_NAME"
  } >"$WORK/scheduler-config.yaml"
}

# Creates the pods of pods.jsonl one at a time, each once the one before is bound (or POD_TIMEOUT
# seconds have passed: "-"), writing "name node" lines to FILE; then deletes them all and waits until
# they are gone, so that the next run starts on empty nodes.
real_run() { # file
  local line name node start
  : >"$1"
  while read -r line; do
    name=$(jq -r .metadata.name <<<"$line")
    e2e_api POST "/api/v1/namespaces/$NS/pods" -d "$line" -o /dev/null -w '%{http_code}\n' | grep -q '^201$' ||
      fail "creating pod $name failed"
    start=$(now)
    while :; do
      node=$(e2e_api GET "/api/v1/namespaces/$NS/pods/$name" | jq -r '.spec.nodeName // ""')
      [ -n "$node" ] && break
      if gt "$(since "$start")" "$POD_TIMEOUT"; then node=-; break; fi
      sleep 0.05
    done
    echo "$name $node" >>"$1"
  done <"$WORK/pods.jsonl"
  e2e_delete_pods "$NS"
  for _ in $(seq 100); do
    [ "$(e2e_api GET "/api/v1/namespaces/$NS/pods" | jq '.items | length')" = 0 ] && return 0
    sleep 0.1
  done
  fail "the pods of a run are still there 10 s after their deletion"
}

# extender-sim on the cluster file and the workload, seed S, writing "name node" lines to FILE.
sim_run() { # seed file
  "$EXTENDER_SIM" --cluster "$WORK/cluster.json" --workload "$WORK/workload.json" \
    --config "$WORK/scheduler-config.yaml" --kubernetes-version "$MINOR" --seed "$1" --arrival-interval 1 \
    --log "$WORK/sim-$1.jsonl" >"$WORK/sim-$1.out" 2>"$WORK/sim-$1.log" ||
    fail "extender-sim --seed $1 exited $?"
  jq -r 'select(.outcome == "scheduled") | "\(.name) \(.node)"' "$WORK/sim-$1.jsonl" >"$2"
  # A pod never scheduled has no "scheduled" line; named "-" as the real run names one.
  jq -r .metadata.name "$WORK/pods.jsonl" | while read -r name; do
    grep -q "^$name " "$2" || echo "$name -" >>"$2"
  done
}

# The first pod that run R placed in another tier than the real scheduler did, with why: extender-sim's
# best total and runner-up's (equal: a tie it broke at random) and, at -v=10, the real scheduler's best
# total for that pod in that run (its log lines FROM..TO) with the tiers of the nodes that had it.
first_difference() { # run from to
  local pod real_tier sim_tier sim best
  read -r pod real_tier sim_tier <<<"$(join <(sort "$WORK/real-$1.txt") <(sort "$WORK/sim-$1.txt") |
    awk 'NR == FNR { tier[$1] = $2; next } { r = tier[$2]; s = tier[$3] } r != s { print $1, r, s; exit }' "$WORK/tiers.tsv" -)"
  [ -n "$pod" ] || return 0
  sim=$(jq -r --arg p "$pod" 'select(.name == $p and .outcome == "scheduled") |
    "sim \(.score // "-") (runner-up \(.runnerUpScore // "-"))"' "$WORK/sim-$1.jsonl")
  best=
  if [ "$SCHEDULER_V" -ge 10 ] && [ "$1" -le "$REAL_RUNS" ]; then
    best=$(sed -n "$2,$3p" "$WORK/kube-scheduler.log" | grep -F "pod=\"$NS/$pod\"" | grep -F '"Plugin scored node for pod"' |
      sed 's/.* node="\([^"]*\)" score=\([0-9]*\).*/\1 \2/' |
      awk 'NR == FNR { tier[$1] = $2; next } { t[$1] += $2 }
        END { for (n in t) if (t[n] > m) m = t[n]; for (n in t) if (t[n] == m) c[tier[n]]++
              printf "; real %d on", m; for (x in c) printf " %s %d", x, c[x] }' "$WORK/tiers.tsv" -)
  fi
  echo "    first pod in another tier: $pod (real $real_tier, sim $sim_tier); best totals: $sim$best"
}

# "small medium large unplaced" counts of a placements FILE.
tier_counts() { # file
  awk 'NR == FNR { tier[$1] = $2; next }
       { n[$2 == "-" ? "-" : tier[$2]]++ }
       END { printf "%d %d %d %d\n", n["small"], n["medium"], n["large"], n["-"] }' "$WORK/tiers.tsv" "$1"
}

echo "sim_vs_real: kube-scheduler $("$KUBE_SCHEDULER" --version | awk '{ print $2 }'), extender-sim --kubernetes-version $MINOR, seed $SEED, $PODS pods, $REAL_RUNS real runs, $SIM_RUNS simulated"
e2e_start_proxy
# What a run killed half-way left behind: its pods would count on nodes of the same names.
K delete pods -A -l kube-extender.io/e2e=simreal --force --grace-period=0 >/dev/null 2>&1 || true
K delete nodes -l kube-extender.io/e2e=simreal >/dev/null 2>&1 || true
e2e_create_namespace
make_nodes
make_pods
write_config
e2e_start_scheduler "$WORK/scheduler-config.yaml" "$SCHEDULER_V"
# The nodes as the API server holds them (what the scheduler sees), in name order; the pods unbound, in
# creation order.
K get nodes -l kube-extender.io/e2e=simreal -o json | jq '{apiVersion: "v1", kind: "List", items: (.items | sort_by(.metadata.name))}' \
  >"$WORK/cluster.json"
jq -s '{apiVersion: "v1", kind: "List", items: .}' "$WORK/pods.jsonl" >"$WORK/workload.json"

# counts.txt: "small medium large unplaced" per real run; sim-counts.txt the same per simulated run.
: >"$WORK/counts.txt"
: >"$WORK/sim-counts.txt"
for r in $(seq "$RUNS"); do
  start=$(now)
  log_from=$(($(wc -l <"$WORK/kube-scheduler.log") + 1))
  if [ "$r" -le "$REAL_RUNS" ]; then
    real_run "$WORK/real-$r.txt"
    tier_counts "$WORK/real-$r.txt" >>"$WORK/counts.txt"
  else
    cp "$WORK/real-1.txt" "$WORK/real-$r.txt"
  fi
  real_time=$(since "$start")
  start=$(now)
  sim_run "$r" "$WORK/sim-$r.txt"
  tier_counts "$WORK/sim-$r.txt" >>"$WORK/sim-counts.txt"
  read -r rs rm rl ru <<<"$(tier_counts "$WORK/real-$r.txt")"
  read -r ss sm sl su <<<"$(tier_counts "$WORK/sim-$r.txt")"
  same=$(join <(sort "$WORK/real-$r.txt") <(sort "$WORK/sim-$r.txt") | awk '$2 == $3' | wc -l)
  echo "  run $r: real small/medium/large $rs/$rm/$rl (unplaced $ru, ${real_time} s), sim --seed $r $ss/$sm/$sl (unplaced $su, $(since "$start") s); same node for $same of $PODS pods"
  first_difference "$r" "$log_from" "$(wc -l <"$WORK/kube-scheduler.log")"
done
start=$(now)
for r in $(seq $((RUNS + 1)) "$SIM_RUNS"); do
  sim_run "$r" "$WORK/sim-$r.txt"
  tier_counts "$WORK/sim-$r.txt" >>"$WORK/sim-counts.txt"
done
[ "$SIM_RUNS" -le "$RUNS" ] || echo "  sim --seed $((RUNS + 1))..$SIM_RUNS in $(since "$start") s"

# Per tier: each side's mean count over its runs and the difference of the two means, which the check
# reads against the larger of MAX_DIFF and three standard errors of the difference: the pooled standard
# deviation of a run's count (each side's runs about their own mean) × sqrt(1/real runs + 1/simulated
# runs). Both sides break ties at random, so a run's count is a draw and so is a mean of a few.
status=0
for t in 0 1 2; do
  read -r real sim diff sd allowed <<<"$(awk -v t="$((t + 1))" -v max="$MAX_DIFF" '
      NR == FNR { r[++nr] = $t; rs += $t; next } { s[++ns] = $t; ss += $t }
      END { mr = rs / nr; ms = ss / ns
            for (i = 1; i <= nr; i++) q += (r[i] - mr) ^ 2
            for (i = 1; i <= ns; i++) q += (s[i] - ms) ^ 2
            sd = (nr + ns > 2) ? sqrt(q / (nr + ns - 2)) : 0
            a = 3 * sd * sqrt(1 / nr + 1 / ns); if (a < max) a = max
            d = mr - ms; printf "%.1f %.1f %.2f %.2f %.2f\n", mr, ms, d < 0 ? -d : d, sd, a }' \
    "$WORK/counts.txt" "$WORK/sim-counts.txt")"
  echo "tier ${TIERS[$t]}: real $real, sim $sim, difference $diff (a run's standard deviation $sd; allowed $allowed)"
  gt "$diff" "$allowed" && status=1
done
unplaced=$(cat "$WORK/counts.txt" "$WORK/sim-counts.txt" | awk '{ n += $4 } END { print n }')
[ "$unplaced" = 0 ] || { echo "sim_vs_real: $unplaced pods left unplaced over the runs"; status=1; }
echo "inputs, logs and placements in $WORK"
[ "$status" = 0 ] || fail "a tier's mean placements differ by more than noise allows, or pods were left unplaced"
echo "sim_vs_real: PASS"
