#!/usr/bin/env bash
# The comparison of verify_scheduler_agreement.sh, on the folder a run left (DIR): kube-scheduler.log
# (-v=10), decisions.json (the extender's GET /debug/decisions), records/ (its --record-dir: the requests
# kube-scheduler sent), probe/POD.json (the extender's /filter reply about every node, asked just before
# POD was created), uids.tsv (pod UID and name) and placements.tsv (pod and node, in scheduling order).
# Prints `scores equal X/Y, filter sets equal X/Y, victims equal X/Y`, the differing scores counted by
# plugin and pod shape with the first of each, and the first DIFF_LINES (default 15) differing filter sets
# and victims; keeps every comparison in DIR/compare/*.tsv; exits 1 when anything differs, 2 when the
# inputs are missing.
#   verify_compare.sh DIR
set -euo pipefail
dir=${1:?usage: verify_compare.sh DIR}
lines=${DIFF_LINES:-15}
for f in kube-scheduler.log decisions.json uids.tsv placements.tsv; do
  [ -s "$dir/$f" ] || { echo "verify_compare: no $dir/$f" >&2; exit 2; }
done
out=$dir/compare
mkdir -p "$out"

# --- scores ---
# kube-scheduler's per-plugin scores of each pod's first scoring, "pod plugin node score": the score is
# weighted (runtime/framework.go RunScorePlugins multiplies by the plugin's weight before
# schedule_one.go prioritizeNodes logs it at V(10)).
sed -n 's/.*"Plugin scored node for pod".* pod="[^"/]*\/\([^"]*\)" plugin="\([^"]*\)" node="\([^"]*\)" score=\(-\{0,1\}[0-9]*\).*/\1\t\2\t\3\t\4/p' \
  "$dir/kube-scheduler.log" | awk -F'\t' '!seen[$1 FS $2 FS $3]++' >"$out/scheduler-scores.tsv"
# The extender's of each pod's first prioritize, "pod plugin node score raw": score is the plugin's
# normalised score on the reply's 0..10 (its 0..100 divided by 10), raw its map before normalisation
# ("ignored": PodTopologySpread's mark for a node it does not score, the least int64 in the log).
jq -r '[.decisions[] | select(.verb == "prioritize")] | group_by(.pod) | map(min_by(.seq))[] |
    (.pod | split("/")[1]) as $p | .nodes[] | .name as $n |
    if .known == false then [$p, "-", $n, "unknown", ""] | @tsv
    else .scores[] | [$p, .algorithm, $n, .score, (if .raw < -1e18 then "ignored" else .raw end)] | @tsv end' \
  "$dir/decisions.json" >"$out/extender-scores.tsv"

# Each row: "equal|differ pod plugin node scheduler extender raw note"; the scheduler's score is shown
# unweighted (0..100), the extender's on 0..10, and they are equal when the first is the second's decade.
# The weights are the default profile's (pkg/scheduler/apis/config/v1 default_plugins.go).
awk -F'\t' -v OFS='\t' '
  BEGIN { w["TaintToleration"] = 3; w["NodeAffinity"] = 2; w["PodTopologySpread"] = 2; w["InterPodAffinity"] = 2
          w["DynamicResources"] = 2 }
  FILENAME ~ /extender-scores/ { ext[$1 FS $2 FS $3] = $4; raw[$1 FS $2 FS $3] = $5
                                 if ($2 == "-") unknown[$1 FS $3] = 1; next }
  { sched[$1 FS $2 FS $3] = $4; sched_pod[$1] = 1
    k = $1 FS $2 FS $3; weight = ($2 in w) ? w[$2] : 1; s = $4 / weight
    if (($1 FS $3) in unknown) { print "differ", $1, $2, $3, s, "-", "", "node unknown to the extender"; next }
    # A plugin the extender does not run adds 0 to each node there: not compared where the scheduler
    # scored 0 too (DynamicResources for a pod without claims), a difference elsewhere.
    if (!(k in ext)) { print (s == 0 ? "absent" : "differ"), $1, $2, $3, s, "-", "", "plugin not run by the extender"; next }
    print (int(s / 10) == ext[k] ? "equal" : "differ"), $1, $2, $3, s, ext[k], raw[k], ""
  }
  END {
    # Plugins the extender scored and the scheduler did not log for a pod it scored: skipped there
    # (PreScore returned Skip), which adds 0 to every node.
    for (k in ext) {
      split(k, a, FS)
      if (a[2] == "-" || (k in sched)) continue
      if (!(a[1] in sched_pod)) { print "differ", a[1], a[2], a[3], "-", ext[k], raw[k], "not scored by the scheduler"; continue }
      print (ext[k] == 0 ? "equal" : "differ"), a[1], a[2], a[3], "skipped", ext[k], raw[k], "skipped by the scheduler"
    }
  }' "$out/extender-scores.tsv" "$out/scheduler-scores.tsv" | sort -t$'\t' -k2,2 -k3,3 -k4,4 >"$out/scores.tsv"

# --- the scheduler's calls ---
# "seq verb pod uid JSON" per /filter and /preempt kube-scheduler sent (the probes' UIDs start verify-probe-):
# JSON is the filter's node names, or the preempt's node -> victim UIDs and PDB violations.
cat "$dir"/records/rec-*.jsonl 2>/dev/null | jq -r 'select(.verb == "filter" or .verb == "preempt") |
    (.body | fromjson) as $b | select(($b.Pod.metadata.uid // "") | startswith("verify-probe-") | not) |
    [.seq, .verb, $b.Pod.metadata.name, $b.Pod.metadata.uid,
     (if .verb == "filter" then ($b.NodeNames // [($b.Nodes.items // [])[].metadata.name]) | tojson
      else ($b.NodeNameToMetaVictims // {}) | map_values({uids: [.Pods[].UID] | sort, pdb: .NumPDBViolations}) | tojson
      end)] | @tsv' | sort -n >"$out/scheduler-calls.tsv"

# --- filter sets ---
# Per pod: the scheduler's feasible set on its first attempt (its first /filter, or none when its first
# call was /preempt or it made none: no node passed its own filters) against the probe's passed set.
: >"$out/filters.tsv"
while IFS=$'\t' read -r pod _; do
  first=$(awk -F'\t' -v p="$pod" '$3 == p { print $2 "\t" $5; exit }' "$out/scheduler-calls.tsv")
  sched='[]'
  [ "${first%%$'\t'*}" = filter ] && sched=${first#*$'\t'}
  [ -s "$dir/probe/$pod.json" ] || { printf 'differ\t%s\tno probe reply\n' "$pod" >>"$out/filters.tsv"; continue; }
  jq -r --arg pod "$pod" --argjson s "$sched" '
      ($s | sort) as $s | ((.NodeNames // []) | sort) as $e |
      ((.FailedNodes // {}) + (.FailedAndUnresolvableNodes // {})) as $why |
      if $s == $e then ["equal", $pod, ($s | length | tostring) + " nodes"] | @tsv
      else ($s - $e) as $so | ($e - $s) as $eo |
        ["differ", $pod, "scheduler \($s | length) nodes, extender \($e | length)",
         "\($so | length): " + ($so[:4] | map("\(.) (extender: \($why[.] // "not in its reply"))") | join(", ")),
         "\($eo | length): " + ($eo[:4] | join(", "))] | @tsv end' "$dir/probe/$pod.json" >>"$out/filters.tsv"
done <"$dir/placements.tsv"

# --- victims ---
# The k-th /preempt of a pod against the extender's k-th preempt decision for it, node by node.
jq -r '[.decisions[] | select(.verb == "preempt")] | group_by(.pod) | map(sort_by(.seq) | to_entries)[] | .[] |
    (.value.pod | split("/")[1]) as $p | .key as $k | .value.nodes[] |
    [$p, $k, .name, ([.victims[].uid] | sort | tojson), .numPDBViolations] | @tsv' "$dir/decisions.json" >"$out/extender-victims.tsv"
awk -F'\t' '$2 == "preempt" { n[$3]++; print $3 "\t" (n[$3] - 1) "\t" $5 }' "$out/scheduler-calls.tsv" |
  jq -R -r 'split("\t") as [$p, $k, $v] | $v | fromjson | to_entries[] |
      [$p, $k, .key, (.value.uids | tojson), .value.pdb] | @tsv' >"$out/scheduler-victims.tsv"
awk -F'\t' -v OFS='\t' '
  FILENAME ~ /uids/ { name[$1] = $2; next }
  FILENAME ~ /extender-victims/ { ext[$1 FS $2 FS $3] = $4; epdb[$1 FS $2 FS $3] = $5; next }
  function names(j, a, n, i, s) {
    gsub(/[][" ]/, "", j); n = split(j, a, ","); s = ""
    for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") ((a[i] in name) ? name[a[i]] : a[i])
    return "[" s "]"
  }
  { k = $1 FS $2 FS $3
    if (!(k in ext)) { print "differ", $1, $3, names($4) " pdb " $5, "not a candidate"; next }
    print ($4 == ext[k] ? "equal" : "differ"), $1, $3, names($4) " pdb " $5, names(ext[k]) " pdb " epdb[k]
  }' "$dir/uids.tsv" "$out/extender-victims.tsv" "$out/scheduler-victims.tsv" >"$out/victims.tsv"

# --- report ---
count() { awk -F'\t' '$1 == "equal" { e++ } $1 != "absent" { n++ } END { printf "%d/%d", e, n }' "$1"; }
cat "$dir/versions.txt" 2>/dev/null || true
echo "scores equal $(count "$out/scores.tsv"), filter sets equal $(count "$out/filters.tsv"), victims equal $(count "$out/victims.tsv")"
absent=$(awk -F'\t' '$1 == "absent" { n[$3]++ } END { for (p in n) printf " %s (%d)", p, n[p] }' "$out/scores.tsv")
[ -z "$absent" ] || echo "not compared (the scheduler's score 0, a plugin the extender does not run):$absent"
echo "scores equal per plugin:$(awk -F'\t' '$1 != "absent" { n[$3]++; if ($1 == "equal") e[$3]++ }
    END { for (p in n) printf " %s %d/%d,", p, e[p], n[p] }' "$out/scores.tsv" | sed 's/,$//')"
if grep -q '^differ' "$out/scores.tsv"; then
  echo "score differences by plugin and pod shape, differing/compared, and the first (pod node: the scheduler's" \
    "0..100, the extender's 0..10 [its raw]):"
  awk -F'\t' '{ s = $2; sub(/^[tp][0-9]*-/, "", s); sub(/^preempt-.*/, "preempt", s); k = $3 " " s; n[k]++
                if ($1 != "differ") next
                if (!d[k]++) first[k] = sprintf("%s %s: scheduler %s, extender %s [%s]%s", $2, $4, $5, $6, $7, ($8 == "" ? "" : " (" $8 ")")) }
              END { for (k in d) printf "  %s %d/%d: %s\n", k, d[k], n[k], first[k] }' "$out/scores.tsv" | sort
fi
if grep -q '^differ' "$out/filters.tsv"; then
  echo "filter set differences (pod: sizes; passed by the scheduler only; passed by the extender only), first $lines:"
  awk -F'\t' -v n="$lines" '$1 == "differ" && n-- > 0 {
      printf "  %s: %s; scheduler only: %s; extender only: %s\n", $2, $3, $4, $5 }' "$out/filters.tsv"
fi
if grep -q '^differ' "$out/victims.tsv"; then
  echo "victim differences (pod, node: scheduler's, extender's), first $lines:"
  awk -F'\t' -v n="$lines" '$1 == "differ" && n-- > 0 { printf "  %s %s: scheduler %s, extender %s\n", $2, $3, $4, $5 }' \
    "$out/victims.tsv"
fi
! grep -q '^differ' "$out/scores.tsv" "$out/filters.tsv" "$out/victims.tsv"
