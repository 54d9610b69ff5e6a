#!/usr/bin/env bash
# Gangs that see GPUs, against a real kube-apiserver and kube-scheduler (docs/gpu-sharing.md, "Gangs see
# the cards"), with the configurations of manifests/overlays/gpu-sharing: 2 racks (node label
# example.com/rack: r1, r2) of 4 nodes of 8 cards (81920 MiB, 10 slots each), registered as HAMi's device
# plugin does.
#   1. a pod asking for 4 whole cards, placed on r1's first node: r1 has 28 cards free, r2 32;
#   2. a scheduler-plugins PodGroup of 8 members of 4 whole cards each, annotated
#      kube-extender.io/required-topology: example.com/rack: every member bound within 60 s, all in r2,
#      two a node; no card given to two pods. Each of r1's nodes passes one member's filter, so a
#      group admitted without counting the cards of the members before it goes to r1 and never binds.
# HAMi's device plugin cannot run without GPUs: a stand-in does its bookkeeping after each bind.
#
# Needs KUBECONFIG naming a cluster whose credentials may create nodes, CRDs and pods; skipped when it
# names none. KUBE_SCHEDULER: as gang_real_scheduler.sh. REPLICAS=2 runs two extenders with
# --leader-elect behind haproxy. BUILD names the build folder (build).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. tests/e2e/lib.sh

e2e_init gpu_gang_real_scheduler gpugang
EXTENDER_PORT=${EXTENDER_PORT:-8888}
REPLICAS=${REPLICAS:-1}
RACK_KEY=example.com/rack
trap e2e_cleanup EXIT

e2e_install_pod_group_crd
e2e_create_namespace
e2e_start_proxy
e2e_start_gpu_sharing "$REPLICAS" "$EXTENDER_PORT"

# A pod asking for CARDS whole cards, in pod group GROUP ("" for none), on nodes matching SELECTOR.
pod_yaml() { # name cards group selector
  local labels="{kube-extender.io/e2e: $E2E_LABEL}"
  [ -n "$3" ] && labels="{kube-extender.io/e2e: $E2E_LABEL, scheduling.x-k8s.io/pod-group: $3}"
  e2e_extender_pod_yaml "$1" "$labels" "$4" 100m "terminationGracePeriodSeconds: 0" |
    sed "s|resources: {requests: {cpu: \"100m\", memory: 100Mi}}|resources: {requests: {cpu: 100m, memory: 100Mi, nvidia.com/gpu: \"$2\"}, limits: {nvidia.com/gpu: \"$2\"}}|"
}

bound_on() { e2e_pods_now | awk -v p="$1" 'index($1, p) == 1 && $2 != "-" { print $2 }'; }

for r in 1 2; do
  for i in 0 1 2 3; do e2e_hami_node_yaml "e2e-gpugang-r$r-n$i" 8 81920 "$RACK_KEY: r$r"; done
done | e2e_create_nodes
e2e_hami_device_plugin_standin >"$WORK/standin.log" 2>&1 &
PIDS+=($!)

echo "gpu_gang_real_scheduler: 2 racks of 4 nodes of 8 cards, $REPLICAS extender replica(s), the gpu-sharing overlay"
pod_yaml holder 4 "" "{kubernetes.io/hostname: e2e-gpugang-r1-n0}" | K apply -f - >/dev/null
for _ in $(seq 200); do [ -n "$(bound_on holder)" ] && break; sleep 0.1; done
[ "$(bound_on holder)" = e2e-gpugang-r1-n0 ] || fail "the 4-card pod is not bound on e2e-gpugang-r1-n0"
echo "4 of e2e-gpugang-r1-n0's cards taken: r1 has 28 free, r2 32"

start=$(now)
{
  cat <<YAML
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: train
  namespace: $NS
  annotations: {kube-extender.io/required-topology: $RACK_KEY}
spec: {minMember: 8, scheduleTimeoutSeconds: 30}
YAML
  for i in $(seq 0 7); do pod_yaml "train-$i" 4 train "{kube-extender.io/e2e: $E2E_LABEL}"; done
} | K apply -f - >/dev/null
for _ in $(seq 600); do [ "$(bound_on train- | wc -l)" = 8 ] && break; sleep 0.1; done
nodes=$(bound_on train- | sort | uniq -c | awk '{ print $2 "=" $1 }' | tr '\n' ' ')
[ "$(bound_on train- | wc -l)" = 8 ] || fail "$(bound_on train- | wc -l) of the group's 8 members bound in 60 s: $nodes"
echo "a group of 8 × 4 cards bound whole $(since "$start") s after its creation: $nodes"
[ "$nodes" = "e2e-gpugang-r2-n0=2 e2e-gpugang-r2-n1=2 e2e-gpugang-r2-n2=2 e2e-gpugang-r2-n3=2 " ] ||
  fail "the group is not two members a node in r2: $nodes"

# No card given to two pods: each pod's cards, as the device plugin reads them (one UUID a line in
# cards.txt), are its alone.
curl -sS "$E2E_API/api/v1/namespaces/$NS/pods" | jq -r '.items[] | select(.spec.nodeName != null) |
  .metadata.annotations["hami.io/vgpu-devices-allocated"] // "-"' | sed 's/[;:]/\n/g' |
  awk -F, 'NF > 1 { print $1 }' >"$WORK/cards.txt"
twice=$(sort "$WORK/cards.txt" | uniq -d | tr '\n' ' ')
[ -z "$twice" ] || fail "cards given to two pods: $twice"
[ "$(wc -l <"$WORK/cards.txt")" = 36 ] || fail "the 9 pods do not hold 36 cards between them"
echo "36 cards held by 9 pods, none given twice"
echo "gpu_gang_real_scheduler: PASS"
