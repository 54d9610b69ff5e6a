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

if [ -z "${KUBECONFIG:-}" ] || ! kubectl get --raw /readyz >/dev/null 2>&1; then
  echo "gang_real_scheduler: skipped: KUBECONFIG names no reachable cluster (see tests/e2e/README.md)"
  exit 0
fi

BUILD=${BUILD:-build}
EXTENDER_PORT=${EXTENDER_PORT:-8888}
REPLICAS=${REPLICAS:-1}
NS=e2e-gang-$(date +%s)  # its own each run: without a controller manager a namespace never finishes deleting
WORK=$(mktemp -d)
PIDS=()
K() { kubectl "$@"; }

cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  K -n "$NS" delete pods --all --force --grace-period=0 >/dev/null 2>&1 || true
  K delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  K delete nodes -l kube-extender.io/e2e=gang --wait=false >/dev/null 2>&1 || true
}
trap cleanup EXIT
fail() {
  echo "gang_real_scheduler: FAIL: $*"
  echo "logs in $WORK"
  exit 1
}

# scheduler-plugins' PodGroup CRD, as much of it as the extender reads, when the cluster has none.
if ! K get crd podgroups.scheduling.x-k8s.io >/dev/null 2>&1; then
  K apply -f - >/dev/null <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: podgroups.scheduling.x-k8s.io}
spec:
  group: scheduling.x-k8s.io
  scope: Namespaced
  names: {kind: PodGroup, listKind: PodGroupList, plural: podgroups, singular: podgroup, shortNames: [pg]}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
YAML
  K wait --for=condition=Established crd/podgroups.scheduling.x-k8s.io --timeout=30s >/dev/null
fi
K create namespace "$NS" >/dev/null
K -n "$NS" create serviceaccount default >/dev/null 2>&1 || true

# The extender(s), on default flags.
start_extender() { # port [extra flags]
  local port=$1
  shift
  "$BUILD/kube-extender" --kubeconfig "$KUBECONFIG" --enable-bind --port "$port" "$@" >"$WORK/extender-$port.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && return 0; sleep 0.2; done
  fail "the extender on port $port is not ready"
}
if [ "$REPLICAS" = 1 ]; then
  start_extender "$EXTENDER_PORT"
else
  backends=""
  for i in $(seq "$REPLICAS"); do
    port=$((EXTENDER_PORT + i))
    start_extender "$port" --leader-elect --leader-elect-identity "e2e-$i" --leader-elect-resource-namespace "$NS"
    backends+="  server r$i 127.0.0.1:$port check"$'\n'
  done
  cat >"$WORK/haproxy.cfg" <<CFG
defaults
  mode tcp
  timeout connect 2s
  timeout client 120s
  timeout server 120s
frontend verbs
  bind 127.0.0.1:$EXTENDER_PORT
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk GET /readyz
$backends
CFG
  haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.log" 2>&1 &
  PIDS+=($!)
fi

# The shipped scheduler configuration, its extender at this extender.
if [ -n "${KUBE_SCHEDULER:-}" ]; then
  {
    echo "apiVersion: kubescheduler.config.k8s.io/v1"
    echo "kind: KubeSchedulerConfiguration"
    echo "clientConnection: {kubeconfig: $KUBECONFIG}"
    echo "leaderElection: {leaderElect: false}"
    sed -n '/^    profiles:/,$p' manifests/base/scheduler-config.yaml | sed 's/^    //' |
      sed "s|urlPrefix: .*|urlPrefix: http://127.0.0.1:$EXTENDER_PORT|"
  } >"$WORK/scheduler-config.yaml"
  "$KUBE_SCHEDULER" --config "$WORK/scheduler-config.yaml" --secure-port 0 --v=2 >"$WORK/kube-scheduler.log" 2>&1 &
  PIDS+=($!)
fi

now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

make_nodes() { # count
  local ts
  ts=$(date -u +%FT%TZ)
  for i in $(seq 0 $(($1 - 1))); do
    K create -f - >/dev/null <<YAML
apiVersion: v1
kind: Node
metadata: {name: e2e-gang-$i, labels: {kubernetes.io/hostname: e2e-gang-$i, kube-extender.io/e2e: gang}}
spec: {taints: [{key: kube-extender.io/e2e, value: gang, effect: NoSchedule}]}
YAML
    K patch node "e2e-gang-$i" --subresource=status --type=merge -p "{\"status\":{\"capacity\":{\"cpu\":\"4\",\"memory\":\"16Gi\",\"pods\":\"110\"},\"allocatable\":{\"cpu\":\"4\",\"memory\":\"16Gi\",\"pods\":\"110\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"message\":\"e2e\",\"lastHeartbeatTime\":\"$ts\",\"lastTransitionTime\":\"$ts\"}]}}" >/dev/null
    K taint node "e2e-gang-$i" node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1 || true
  done
}

pod_yaml() { # name group cpu
  local labels="{kube-extender.io/e2e: gang}"
  [ -n "$2" ] && labels="{kube-extender.io/e2e: gang, scheduling.x-k8s.io/pod-group: $2}"
  cat <<YAML
---
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $NS, labels: $labels}
spec:
  schedulerName: kube-extender-scheduler
  nodeSelector: {kube-extender.io/e2e: gang}
  tolerations: [{key: kube-extender.io/e2e, operator: Exists}, {key: node.kubernetes.io/unreachable, operator: Exists}, {key: node.kubernetes.io/not-ready, operator: Exists}]
  containers: [{name: c, image: registry.k8s.io/pause:3.9, resources: {requests: {cpu: "$3", memory: 100Mi}}}]
YAML
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

# Bound of existing members per group now: "g1=8/8 g2=0/8 ..." (groups 1..N), then "web=K".
bound_counts() { # groups
  local out
  out=$(K -n "$NS" get pods -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.spec.nodeName}{"\n"}{end}')
  for g in $(seq "$1"); do
    printf 'g%s=%s ' "$g" "$(echo "$out" | awk -v g="g$g-" 'index($1, g) == 1 { n++; if ($2 != "") b++ } END { printf "%d/%d", b, n }')"
  done
  printf 'web=%s\n' "$(echo "$out" | awk 'index($1, "web-") == 1 && $2 != ""' | wc -l)"
}

# Polls every 0.5 s until `done_test` (a function of the counts line) holds or `limit` seconds pass;
# fails when a group is seen partly bound for more than 3 s. WAITED: the seconds it took.
PARTLY_MAX=0
WAITED=0
wait_for() { # groups limit done_test
  local start line
  start=$(now)
  declare -A since_partly=()
  while :; do
    line=$(bound_counts "$1")
    for kv in $line; do
      local g=${kv%%=*} n=${kv#*=}
      [ "$g" = web ] && continue
      n=${n%/*}
      if [ "$n" -gt 0 ] && [ "$n" -lt 8 ]; then
        [ -n "${since_partly[$g]:-}" ] || since_partly[$g]=$(now)
        local d
        d=$(since "${since_partly[$g]}")
        gt "$d" "$PARTLY_MAX" && PARTLY_MAX=$d
        gt "$d" 3 && fail "pod group $g partly bound ($n of 8) for $d s: $line"
      else
        unset "since_partly[$g]"
      fi
    done
    if $3 "$line"; then
      WAITED=$(since "$start")
      return 0
    fi
    gt "$(since "$start")" "$2" && fail "not within $2 s: $line"
    sleep 0.5
  done
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
line=$(bound_counts 3)
first=$(echo "$line" | tr ' ' '\n' | grep '=8/' | head -n1 | cut -d= -f1)
delete_group "$first"
wait_for 3 90 three_all
echo "$first deleted: the third group whole $WAITED s later"
reset
make_nodes 40
make_groups 10 4 0
wait_for 10 60 ten_first
echo "ten groups, room for five: five whole in $WAITED s, five with nothing bound"
line=$(bound_counts 10)
for g in $(echo "$line" | tr ' ' '\n' | grep '=8/' | head -n2 | cut -d= -f1); do delete_group "$g"; done
wait_for 10 60 ten_after
echo "two deleted: two more whole $WAITED s later, three with nothing bound"
echo "longest a group was seen partly bound: $PARTLY_MAX s"
reset
echo "gang_real_scheduler: PASS"
