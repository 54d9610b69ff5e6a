#!/usr/bin/env bash
# GPU sharing against a real kube-apiserver and kube-scheduler (docs/gpu-sharing.md), with the
# configurations of manifests/overlays/gpu-sharing, on 10 nodes of 4 cards (8000 MiB, 10 slots each)
# that carry HAMi's register annotation:
#   1. a job of 40 pods of one card and 4000 MiB: every pod bound within 10 s (HAMi #1367: minutes);
#   2. every pod's annotations as HAMi's device plugin reads them, and no card holding more memory or
#      pods than it has;
#   3. a deleted pod's share reused at once: 40 more pods fill every card's memory, one more waits; one
#      pod deleted, the waiting pod binds within 10 s (HAMi #2923: a deleted pod's cards stayed taken).
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
overlay=manifests/overlays/gpu-sharing

e2e_create_namespace
e2e_start_proxy

# The overlay's policy, the ConfigMap's text as the Deployment mounts it.
sed -n '/config.yaml: |/,$p' $overlay/policy-patch.yaml | tail -n +2 | sed 's/^    //' >"$WORK/policy.yaml"
e2e_start_extenders "$REPLICAS" "$EXTENDER_PORT" --config "$WORK/policy.yaml"

if [ -n "${KUBE_SCHEDULER:-}" ]; then
  {
    e2e_scheduler_config_head
    sed -n '/^    profiles:/,$p' $overlay/scheduler-config-patch.yaml | sed 's/^    //' |
      sed "s|urlPrefix: .*|urlPrefix: http://127.0.0.1:$EXTENDER_PORT|"
  } >"$WORK/scheduler-config.yaml"
  e2e_start_scheduler "$WORK/scheduler-config.yaml" 2
fi

node_yaml() { # name
  local name=$1 cards="" i ts kwok
  for i in 0 1 2 3; do
    cards+="${cards:+,}{\\\"id\\\":\\\"GPU-$name-$i\\\",\\\"index\\\":$i,\\\"count\\\":10,\\\"devmem\\\":8000,\\\"devcore\\\":100,\\\"type\\\":\\\"NVIDIA-A10\\\",\\\"numa\\\":$((i / 2)),\\\"health\\\":true,\\\"mode\\\":\\\"hami-core\\\"}"
  done
  ts=$(date -u +%FT%TZ)
  kwok=$(e2e_kwok_annotation)
  cat <<YAML
---
apiVersion: v1
kind: Node
metadata:
  name: $name
  labels: {kubernetes.io/hostname: $name, kube-extender.io/e2e: $E2E_LABEL}
  annotations: {${kwok:+$kwok, }hami.io/node-nvidia-register: "[$cards]"}
spec: {taints: [{key: kube-extender.io/e2e, value: $E2E_LABEL, effect: NoSchedule}]}
status:
  capacity: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/gpu: "40"}
  allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/gpu: "40"}
  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: e2e, lastHeartbeatTime: "$ts", lastTransitionTime: "$ts"}]
YAML
}

pod_yaml() { # name memory
  e2e_extender_pod_yaml "$1" "{kube-extender.io/e2e: gpu}" "{kube-extender.io/e2e: gpu}" 100m |
    sed "s|resources: {requests: {cpu: \"100m\", memory: 100Mi}}|resources: {requests: {cpu: 100m, memory: 100Mi, nvidia.com/gpu: \"1\", nvidia.com/gpumem: \"$2\"}, limits: {nvidia.com/gpu: \"1\", nvidia.com/gpumem: \"$2\"}}|"
}

# HAMi's device plugin's bookkeeping once Allocate is done, for every pod bound while allocating.
device_plugin_standin() {
  local pods ns name node
  while true; do
    pods=$(curl -sS "$E2E_API/api/v1/namespaces/$NS/pods" | jq -r '.items[] |
      select(.spec.nodeName != null and .metadata.annotations["hami.io/bind-phase"] == "allocating") |
      "\(.metadata.namespace) \(.metadata.name) \(.spec.nodeName)"') || true
    while read -r ns name node; do
      [ -n "$name" ] || continue
      curl -sS -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d '{"metadata":{"annotations":{"hami.io/bind-phase":"success"}}}' "$E2E_API/api/v1/namespaces/$ns/pods/$name"
      curl -sS -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
        -d '{"metadata":{"annotations":{"hami.io/mutex.lock":null}}}' "$E2E_API/api/v1/nodes/$node"
    done <<<"$pods"
    sleep 0.1
  done
}

bound() { e2e_pods_now | awk '$2 != "-"' | wc -l; }

for i in $(seq 0 9); do node_yaml "e2e-gpu-$i"; done | e2e_create_nodes
device_plugin_standin >"$WORK/standin.log" 2>&1 &
PIDS+=($!)

echo "gpu_real_scheduler: $REPLICAS extender replica(s), the gpu-sharing overlay"
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

# Fill every card: the 40 cards hold 80 pods of 4000 MiB, and the job bound 40.
for i in $(seq 0 39); do pod_yaml "fill-$i" 4000; done | K apply -f - >/dev/null
for _ in $(seq 600); do [ "$(bound)" = 80 ] && break; sleep 0.1; done
[ "$(bound)" = 80 ] || fail "$(bound) of 80 pods bound after filling the cards"
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
echo "gpu_real_scheduler: PASS"
