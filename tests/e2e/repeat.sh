#!/usr/bin/env bash
# Runs one e2e scenario N times in a row against the cluster already running, to measure how often it
# passes rather than whether it passed once:
#   tests/e2e/repeat.sh 10 "REPLICAS=2 ORDER=grouped gang_topology_real_scheduler.sh"
# The scenario is written as in tests/e2e/run: environment words, then a script of this folder. Needs
# KUBECONFIG naming a reachable cluster (a skipped run would pass without checking anything) and
# whatever the script needs besides (KUBE_SCHEDULER, BUILD, E2E_KWOK). Each run's output is kept in a
# folder of its own, printed first. Prints each run's result and time, then "K of N passed" and, for each
# failing run, its output and the script's logs folder; exits 1 unless all N passed.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# != 2 ] || ! [ "$1" -ge 1 ] 2>/dev/null; then
  echo "usage: tests/e2e/repeat.sh N \"[ENV=VALUE...] script.sh\"" >&2
  exit 2
fi
runs=$1
read -r -a words <<<"$2"
script=tests/e2e/${words[-1]}
unset 'words[-1]'
[ -x "$script" ] || { echo "repeat: no script $script" >&2; exit 2; }
if [ -z "${KUBECONFIG:-}" ] || ! kubectl get --raw /readyz >/dev/null 2>&1; then
  echo "repeat: KUBECONFIG names no reachable cluster (see tests/e2e/README.md)" >&2
  exit 2
fi

out=$(mktemp -d -t e2e-repeat.XXXXXX)
echo "repeat: $runs × $2, outputs in $out"
passed=0
failures=()
for i in $(seq "$runs"); do
  start=$SECONDS
  log=$out/run-$i.log
  rc=0
  env "${words[@]}" "$script" >"$log" 2>&1 || rc=$?
  # A pass is exit 0 with the script's PASS line: a run that skipped has exit 0 too.
  if [ "$rc" = 0 ] && grep -q ': PASS$' "$log"; then
    passed=$((passed + 1))
    echo "run $i: PASS in $((SECONDS - start)) s"
  else
    logs=$(sed -n 's/^logs in //p' "$log" | tail -n1)
    failures+=("run $i: $log${logs:+, logs in $logs}")
    echo "run $i: FAIL (exit $rc) in $((SECONDS - start)) s: $(grep -m1 ': FAIL: ' "$log" || tail -n1 "$log")"
  fi
done
echo "$passed of $runs passed"
for f in "${failures[@]}"; do echo "  failed $f"; done
[ "$passed" = "$runs" ]
