#!/usr/bin/env bash
# GPU sharing against a real kube-apiserver and kube-scheduler (docs/gpu-sharing.md), with the
# configurations of manifests/overlays/gpu-sharing, on 10 nodes of 4 cards (8000 MiB, 10 slots each)
# that carry HAMi's register annotation:
#   1. a job of 40 pods of one card and 4000 MiB: every pod bound within 10 s (HAMi #1367: minutes);
#   2. every pod's annotations as HAMi's device plugin reads them, and no card holding more memory or
#      pods than it has;
#   3. with REPLICAS=2 or more, the Lease holder killed (SIGKILL) while 40 more pods fill every card's
#      memory: all bound, and no card over-committed (HAMi #877, #1954: one replica, and scheduling
#      stopped after a failover);
#   4. a deleted pod's share reused at once: with every card full, one more pod waits; one pod deleted,
#      the waiting pod binds within 10 s (HAMi #2923: a deleted pod's cards stayed taken).
# HAMi's device plugin cannot run without GPUs: a stand-in does its bookkeeping after each bind, as its
# Allocate does (PodAllocationTrySuccess: bind-phase success, the node's lock removed).
#
# Needs KUBECONFIG naming a cluster whose credentials may create nodes and pods; skipped when it names
# none. KUBE_SCHEDULER: as gang_real_scheduler.sh. REPLICAS=2 runs two extenders with --leader-elect
# behind haproxy. BUILD names the build folder (build).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. tests/e2e/lib.sh

e2e_init gpu_real_scheduler gpu
EXTENDER_PORT=${EXTENDER_PORT:-8888}
REPLICAS=${REPLICAS:-1}
trap e2e_cleanup EXIT

e2e_create_namespace
e2e_start_proxy

# With replicas, a Lease of 5 s (renewed within 4 s, tried every 1 s) instead of client-go's 15 s, so
# that the failover below costs the run seconds, not most of a minute; what it checks is the same.
lease_flags=()
[ "$REPLICAS" -gt 1 ] && lease_flags=(--leader-elect-lease-duration 5s --leader-elect-renew-deadline 4s
  --leader-elect-retry-period 1s)
e2e_start_gpu_sharing "$REPLICAS" "$EXTENDER_PORT" "${lease_flags[@]}"

pod_yaml() { # name memory
  e2e_extender_pod_yaml "$1" "{kube-extender.io/e2e: gpu}" "{kube-extender.io/e2e: gpu}" 100m |
    sed "s|resources: {requests: {cpu: \"100m\", memory: 100Mi}}|resources: {requests: {cpu: 100m, memory: 100Mi, nvidia.com/gpu: \"1\", nvidia.com/gpumem: \"$2\"}, limits: {nvidia.com/gpu: \"1\", nvidia.com/gpumem: \"$2\"}}|"
}

bound() { e2e_pods_now | awk '$2 != "-"' | wc -l; }

for i in $(seq 0 9); do e2e_hami_node_yaml "e2e-gpu-$i" 4 8000; done | e2e_create_nodes
e2e_hami_device_plugin_standin >"$WORK/standin.log" 2>&1 &
PIDS+=($!)

echo "gpu_real_scheduler: $REPLICAS extender replica(s), the gpu-sharing overlay"
# With replicas, one holds the Lease before the job comes, as in a cluster running for a while.
if [ "$REPLICAS" -gt 1 ]; then
  for _ in $(seq 100); do e2e_leader_index >/dev/null && break; sleep 0.1; done
  e2e_leader_index >/dev/null || fail "no replica took the Lease within 10 s"
fi
start=$(now)
for i in $(seq 0 39); do pod_yaml "job-$i" 4000; done | K apply -f - >/dev/null
for _ in $(seq 300); do [ "$(bound)" = 40 ] && break; sleep 0.1; done
took=$(since "$start")
[ "$(bound)" = 40 ] || fail "$(bound) of the 40-pod job bound"
gt "$took" 10 && fail "the 40-pod job took $took s to bind, more than 10 s"
echo "a 40-pod job of one card each: all bound in $took s"

# Every pod's cards as the device plugin reads them; each card's memory and pods within its own.
check_cards() {
  curl -sS "$E2E_API/api/v1/namespaces/$NS/pods" | jq -r '.items[] | select(.spec.nodeName != null) |
    [.metadata.name, .spec.nodeName, (.metadata.annotations["hami.io/vgpu-node"] // "-"),
     (.metadata.annotations["hami.io/vgpu-devices-to-allocate"] // "-"),
     (.metadata.annotations["hami.io/vgpu-devices-allocated"] // "-")] | @tsv' >"$WORK/cards.tsv"
  awk -F'\t' '
    $3 != $2 { print "pod " $1 " on " $2 " has hami.io/vgpu-node " $3; bad = 1 }
    $4 != $5 || $4 !~ /^GPU-[^,]*,NVIDIA,[0-9]+,[0-9]+:;$/ { print "pod " $1 ": cards " $4 " / " $5; bad = 1 }
    { split($4, f, ","); card = f[1]; if (index(card, "GPU-" $2 "-") != 1) { print "pod " $1 " on " $2 " has card " card; bad = 1 }
      mem[card] += f[3]; pods[card]++ }
    END { for (c in mem) if (mem[c] > 8000 || pods[c] > 10) { print c ": " mem[c] " MiB, " pods[c] " pods"; bad = 1 }
          exit bad }' "$WORK/cards.tsv"
}
check_cards || fail "cards over-committed or annotated wrong (above)"
echo "every pod's cards annotated as HAMi's device plugin reads them; no card over its memory or slots"

# Fill every card: the 40 cards hold 80 pods of 4000 MiB, and the job bound 40. With replicas, the
# Lease holder is killed once 5 of them are bound; the other takes the Lease over and binds the rest.
for i in $(seq 0 39); do pod_yaml "fill-$i" 4000; done | K apply -f - >/dev/null
start=$(now)
if [ "$REPLICAS" -gt 1 ]; then
  for _ in $(seq 300); do [ "$(bound)" -ge 45 ] && break; sleep 0.05; done
  holder=$(e2e_leader_index) || fail "no replica holds the Lease"
  kill -9 "${E2E_EXTENDER_PIDS[$holder]}"
  { wait "${E2E_EXTENDER_PIDS[$holder]}"; } 2>/dev/null || true
  echo "the Lease holder (port ${E2E_EXTENDER_PORTS[$holder]}) killed with $(bound) of 80 pods bound"
fi
for _ in $(seq 900); do [ "$(bound)" = 80 ] && break; sleep 0.1; done
[ "$(bound)" = 80 ] || fail "$(bound) of 80 pods bound after filling the cards"
echo "40 more pods fill every card: all bound $(since "$start") s after their creation"
check_cards || fail "cards over-committed after filling them (above)"
pod_yaml waiting 4000 | K apply -f - >/dev/null
scheduled() { K -n "$NS" get pod waiting -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}'; }
for _ in $(seq 100); do [ -n "$(scheduled)" ] && break; sleep 0.1; done
[ "$(scheduled)" = False ] || fail "the waiting pod was not refused with every card full (PodScheduled: $(scheduled))"
victim=$(e2e_pods_now | awk '$1 ~ /^fill-/ && $2 != "-" { print $1; exit }')
start=$(now)
K -n "$NS" delete pod "$victim" --force --grace-period=0 >/dev/null 2>&1
for _ in $(seq 100); do K -n "$NS" get pod waiting -o jsonpath='{.spec.nodeName}' | grep -q . && break; sleep 0.1; done
K -n "$NS" get pod waiting -o jsonpath='{.spec.nodeName}' | grep -q . || fail "the waiting pod did not take $victim's share"
echo "$victim deleted: its share taken by the waiting pod $(since "$start") s later"
check_cards || fail "cards over-committed after the reuse (above)"
# GPU pods sent back to the scheduler's queue when cards freed (gpu_requeue.h), by the replicas alive.
requeues=0
for port in "${E2E_EXTENDER_PORTS[@]}"; do
  n=$(curl -sf "http://127.0.0.1:$port/metrics" | awk '$1 == "kube_extender_gpu_requeues_total" { print $2 }') || n=0
  requeues=$((requeues + ${n:-0}))
done
echo "GPU pods sent back to the scheduler's queue when cards freed: $requeues"
echo "gpu_real_scheduler: PASS"
