# Shared steps of the end-to-end scripts beside this file, sourced by each after it has changed to the
# repository's root: the skip without a cluster, a namespace and Node objects of the script's own,
# cleanup, the PodGroup CRD, the extender and kube-scheduler started from the build, and the polling
# of the namespace's pods. Each script calls e2e_init first, with its name and its label: with no
# cluster it ends the script there, skipped.
# shellcheck shell=bash

# Exits 0 with NAME's skip message when KUBECONFIG names no reachable cluster: CI has none, and a
# script run there must pass without one. Otherwise sets the state every script keeps: E2E_NAME
# (what its messages start with), E2E_LABEL (the value of the label and taint kube-extender.io/e2e
# on its nodes and pods), NS (a namespace of its own each run: without a controller manager a
# namespace never finishes deleting), WORK (its logs and generated files), PIDS (the processes it
# started, ended by e2e_cleanup) and BUILD (the build folder, default build).
e2e_init() { # name label
  if [ -z "${KUBECONFIG:-}" ] || ! kubectl get --raw /readyz >/dev/null 2>&1; then
    echo "$1: skipped: KUBECONFIG names no reachable cluster (see tests/e2e/README.md)"
    exit 0
  fi
  E2E_NAME=$1
  E2E_LABEL=$2
  BUILD=${BUILD:-build}
  NS=e2e-$2-$(date +%s)
  WORK=$(mktemp -d)
  PIDS=()
}

K() { kubectl "$@"; }
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

# A failure prints the end of every log the script kept, so that a CI run, whose machine is gone
# afterwards, shows why. A CI report keeps only the end of what a run printed, so the order is: the
# scheduler's log (the longest), the others, each extender's decisions that carry a gang state or an
# Error (saved whole, with its /metrics, beside the logs), and the failure itself last.
fail() {
  local f port
  for port in "${E2E_EXTENDER_PORTS[@]}"; do
    curl -s -m 5 "http://127.0.0.1:$port/debug/decisions?limit=1000" >"$WORK/decisions-$port.json" || true
    curl -s -m 5 "http://127.0.0.1:$port/metrics" >"$WORK/metrics-$port.txt" || true
  done
  for f in "$WORK"/kube-scheduler.log $(ls "$WORK"/*.log 2>/dev/null | grep -v '/kube-scheduler.log$'); do
    [ -f "$f" ] || continue
    echo "--- the last 30 lines of $(basename "$f")"
    tail -n 30 "$f" | cut -c1-300
  done
  for f in "$WORK"/decisions-*.json; do
    [ -s "$f" ] || continue
    echo "--- the newest 25 decisions with a gang state or an Error in $(basename "$f"), oldest first"
    jq -r '[.decisions[] | select(.gang != null or .reply != null)][:25] | reverse[] |
      "\(.time[11:23]) \(.verb) \(.pod) \(.gang // "") \(.reply.Error // "")"' "$f" 2>/dev/null | cut -c1-300 || true
  done
  echo "$E2E_NAME: FAIL: $*"
  echo "logs in $WORK"
  exit 1
}

# Ends the processes the script started and deletes what it created in the cluster: its pods
# (force-deleted, as no kubelet may be there to end them), its namespace, its nodes and the cluster
# roles of e2e_extenders_as_manifests_account. Run on exit.
e2e_cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  K -n "$NS" delete pods --all --force --grace-period=0 >/dev/null 2>&1 || true
  K delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  e2e_delete_nodes
  K delete clusterrolebindings,clusterroles -l "kube-extender.io/e2e-namespace=$NS" --wait=false >/dev/null 2>&1 || true
}

# Deletes the script's nodes (or the NAMEs given, whether or not they exist) and their Leases: without
# a controller manager's garbage collector a Lease outlives its node, and kwok, finding the Lease of a
# node of the same name held, keeps the node's pods Pending for tens of seconds while it retries.
e2e_delete_nodes() { # [name...]
  local nodes="$*"
  [ -n "$nodes" ] || nodes=$(K get nodes -l "kube-extender.io/e2e=$E2E_LABEL" -o name 2>/dev/null | sed 's|^node/||')
  [ -n "$nodes" ] || return 0
  # shellcheck disable=SC2086  # one name per word
  K delete nodes $nodes --wait=false >/dev/null 2>&1 || true
  # shellcheck disable=SC2086
  K -n kube-node-lease delete leases $nodes --ignore-not-found >/dev/null 2>&1 || true
}

# The extenders started after this run as the manifests' service account, with exactly the RBAC that
# FILEs (manifests/base/rbac.yaml and an overlay's) grant it, not as the admin of KUBECONFIG: a call
# the manifests do not allow fails here as it would in a cluster. The objects are made the script's
# own: the account and the Lease's Role in its namespace, the cluster roles under names prefixed with
# it (deleted by e2e_cleanup), so that a cluster's own kube-extender is left alone.
E2E_EXTENDER_KUBECONFIG=
e2e_extenders_as_manifests_account() { # file...
  local f token
  for f in "$@"; do K create -f "$f" --dry-run=client -o json; done |
    jq -s --arg ns "$NS" '[.[] | (.items // [.])[]] | map(
      .metadata.labels["kube-extender.io/e2e-namespace"] = $ns |
      if .kind == "ClusterRole" then .metadata.name = $ns + "-" + .metadata.name
      elif .kind == "ClusterRoleBinding" then .metadata.name = $ns + "-" + .metadata.name |
        .roleRef.name = $ns + "-" + .roleRef.name | .subjects[].namespace = $ns
      elif .kind == "RoleBinding" then .metadata.namespace = $ns | .subjects[].namespace = $ns
      else .metadata.namespace = $ns end) | {apiVersion: "v1", kind: "List", items: .}' |
    K apply -f - >/dev/null || fail "creating the manifests' RBAC objects in namespace $NS"
  token=$(K -n "$NS" create token kube-extender --duration 2h) || fail "no token for $NS/kube-extender"
  E2E_EXTENDER_KUBECONFIG=$WORK/extender.kubeconfig
  K config view --raw --minify >"$E2E_EXTENDER_KUBECONFIG"
  KUBECONFIG=$E2E_EXTENDER_KUBECONFIG kubectl config set-credentials e2e-extender --token "$token" >/dev/null
  KUBECONFIG=$E2E_EXTENDER_KUBECONFIG kubectl config set-context --current --user e2e-extender >/dev/null
}

# The script's namespace, with the service account "default" that a controller manager would add
# (pods are refused without it).
e2e_create_namespace() {
  K create namespace "$NS" >/dev/null
  K -n "$NS" create serviceaccount default >/dev/null 2>&1 || true
}

# scheduler-plugins' PodGroup CRD, as much of it as the extender reads, when the cluster has none.
e2e_install_pod_group_crd() {
  K get crd podgroups.scheduling.x-k8s.io >/dev/null 2>&1 && return 0
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
}

# kubectl proxy on a free port, its address in E2E_API: each later request is one curl (e2e_api), not
# one kubectl start-up, for scripts that create and poll pods one at a time.
E2E_API=
e2e_start_proxy() {
  # The log is made here, not by the background job's redirection, which may come after the first
  # read below.
  : >"$WORK/proxy.log"
  K proxy --port=0 --address=127.0.0.1 >"$WORK/proxy.log" 2>&1 &
  PIDS+=($!)
  local port=
  for _ in $(seq 100); do
    port=$(sed -n 's/^Starting to serve on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/proxy.log")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || fail "kubectl proxy did not start: $(cat "$WORK/proxy.log")"
  E2E_API=http://127.0.0.1:$port
}
e2e_api() { # method path [curl args...]
  local method=$1 path=$2
  shift 2
  curl -sS -X "$method" -H 'Content-Type: application/json' "$E2E_API$path" "$@"
}

# Deletes the pods of NAMESPACE in one delete-collection request with no grace period (kubectl deletes
# one object per request), through e2e_start_proxy's proxy; nothing before it has started.
e2e_delete_pods() { # namespace
  [ -n "$E2E_API" ] || return 0
  e2e_api DELETE "/api/v1/namespaces/$1/pods?gracePeriodSeconds=0" -o /dev/null || true
}

# An extender from the build on PORT, on default flags but --enable-bind and any given; returns once
# its /readyz answers, as kube-scheduler's first extender call must find it serving.
# The minor of KUBE_SCHEDULER ("1.31", from "Kubernetes v1.31.13"), or nothing without one: the
# extender and extender-sim then take the API server's /version, which names the cluster's own minor.
e2e_scheduler_minor() {
  [ -n "${KUBE_SCHEDULER:-}" ] || return 0
  "$KUBE_SCHEDULER" --version | sed -n 's/.* v\(1\.[0-9]*\)\..*/\1/p'
}

# --kubernetes-version for the scheduler started here: one API server of the newest minor serves
# schedulers of older minors, whose semantics the extender must follow, not the API server's.
e2e_version_flags() {
  local minor
  minor=$(e2e_scheduler_minor)
  [ -z "$minor" ] || echo "--kubernetes-version $minor"
}

# True once http://127.0.0.1:PORT/readyz answers 2xx, within 20 s.
e2e_wait_ready() { # port
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$1/readyz" >/dev/null && return 0; sleep 0.2; done
  return 1
}

e2e_start_extender() { # port [extra flags]
  local port=$1 version_flags
  shift
  read -r -a version_flags <<<"$(e2e_version_flags)"
  "$BUILD/kube-extender" --kubeconfig "${E2E_EXTENDER_KUBECONFIG:-$KUBECONFIG}" --enable-bind --port "$port" "${version_flags[@]}" "$@" \
    >"$WORK/extender-$port.log" 2>&1 &
  PIDS+=($!)
  E2E_EXTENDER_PIDS+=($!)
  e2e_wait_ready "$port" || fail "the extender on port $port is not ready"
}

# REPLICAS extenders from the build, each with the flags given, serving the scheduler on PORT. One:
# e2e_start_extender on PORT. More: replica I on PORT+I with --leader-elect (its Lease in the script's
# namespace), behind haproxy on PORT in TCP mode, which pins a connection to one replica as a Service
# does. Sets E2E_EXTENDER_PORTS to the replicas' own ports, for what must ask each (/debug/decisions),
# and E2E_EXTENDER_PIDS to their processes, in the same order.
E2E_EXTENDER_PORTS=()
E2E_EXTENDER_PIDS=()
e2e_start_extenders() { # replicas port [extra flags]
  local replicas=$1 port=$2 i backends=""
  shift 2
  if [ "$replicas" = 1 ]; then
    e2e_start_extender "$port" "$@"
    E2E_EXTENDER_PORTS=("$port")
    return 0
  fi
  for i in $(seq "$replicas"); do
    # Each advertises loopback, as the Deployment advertises its pod IP: this machine's hostname, the
    # default, need not resolve on a CI machine.
    e2e_start_extender "$((port + i))" --leader-elect --leader-elect-identity "e2e-$i" \
      --leader-elect-resource-namespace "$NS" --advertise-address 127.0.0.1 "$@"
    E2E_EXTENDER_PORTS+=("$((port + i))")
    backends+="  server r$i 127.0.0.1:$((port + i)) check"$'\n'
  done
  cat >"$WORK/haproxy.cfg" <<CFG
defaults
  mode tcp
  timeout connect 2s
  timeout client 120s
  timeout server 120s
frontend verbs
  bind 127.0.0.1:$port
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk GET /readyz
$backends
CFG
  haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.log" 2>&1 &
  PIDS+=($!)
  e2e_wait_ready "$port" || fail "haproxy on port $port does not reach the extenders"
}

# The index in E2E_EXTENDER_PORTS of the replica holding the bind Lease, from each one's /metrics
# (kube_extender_leader); fails when none holds it.
e2e_leader_index() {
  local i metrics
  for i in "${!E2E_EXTENDER_PORTS[@]}"; do
    # Read whole before grep -q stops reading: with pipefail, curl's broken pipe would fail the test.
    metrics=$(curl -sf "http://127.0.0.1:${E2E_EXTENDER_PORTS[$i]}/metrics") || continue
    grep -q '^kube_extender_leader{.*} 1$' <<<"$metrics" && { echo "$i"; return 0; }
  done
  return 1
}

# The head of every KubeSchedulerConfiguration the scripts run: the cluster of KUBECONFIG, and no
# leader election, as a single scheduler started here has no rival.
e2e_scheduler_config_head() {
  echo "apiVersion: kubescheduler.config.k8s.io/v1"
  echo "kind: KubeSchedulerConfiguration"
  echo "clientConnection: {kubeconfig: $KUBECONFIG}"
  echo "leaderElection: {leaderElect: false}"
}

# With KUBE_SCHEDULER set, starts it on CONFIG at verbosity V (logging to $WORK/kube-scheduler.log);
# without it, the cluster's own scheduler is expected to run that configuration already.
e2e_start_scheduler() { # config v
  [ -n "${KUBE_SCHEDULER:-}" ] || return 0
  "$KUBE_SCHEDULER" --config "$1" --secure-port 0 --v="$2" >"$WORK/kube-scheduler.log" 2>&1 &
  PIDS+=($!)
}

# The shipped scheduler configuration (manifests/base/scheduler-config.yaml's profiles and extender
# entry), its extender's urlPrefix pointed at the extender on EXTENDER_PORT, started when
# KUBE_SCHEDULER is set: what the gang scripts check is the configuration users deploy.
e2e_start_shipped_scheduler() {
  [ -n "${KUBE_SCHEDULER:-}" ] || return 0
  {
    e2e_scheduler_config_head
    sed -n '/^    profiles:/,$p' manifests/base/scheduler-config.yaml | sed 's/^    //' |
      sed "s|urlPrefix: .*|urlPrefix: http://127.0.0.1:$EXTENDER_PORT|"
  } >"$WORK/scheduler-config.yaml"
  e2e_start_scheduler "$WORK/scheduler-config.yaml" 2
}

# With E2E_KWOK=1 (tests/e2e/run's control plane runs kwok), the annotation that has kwok keep a node Ready
# and run its pods as a kubelet would: Running with a startTime, a deletion finished after its grace period.
e2e_kwok_annotation() {
  [ "${E2E_KWOK:-0}" = 1 ] && echo "kwok.x-k8s.io/node: fake"
  return 0
}

# The YAML of node NAME with CPU and MEMORY allocatable, labelled (kubernetes.io/hostname,
# kube-extender.io/e2e and any LABEL "key: value" given), tainted so that only the script's pods land on
# it, and Ready: a kubelet registers its node with its status, and so does this (or kwok keeps it Ready,
# with E2E_KWOK=1). E2E_NODE_ANNOTATIONS and E2E_NODE_RESOURCES ("key: value, ...") add annotations and
# resources to capacity and allocatable.
e2e_node_yaml() { # name cpu memory [label...]
  local name=$1 cpu=$2 mem=$3 labels ts l annotations
  shift 3
  labels="kubernetes.io/hostname: $name, kube-extender.io/e2e: $E2E_LABEL"
  for l in "$@"; do labels+=", $l"; done
  annotations=$(e2e_kwok_annotation)
  [ -z "${E2E_NODE_ANNOTATIONS:-}" ] || annotations+="${annotations:+, }$E2E_NODE_ANNOTATIONS"
  ts=$(date -u +%FT%TZ)
  cat <<YAML
---
apiVersion: v1
kind: Node
metadata: {name: $name, labels: {$labels}, annotations: {$annotations}}
spec: {taints: [{key: kube-extender.io/e2e, value: $E2E_LABEL, effect: NoSchedule}]}
status:
  capacity: {cpu: "$cpu", memory: $mem, pods: "110"${E2E_NODE_RESOURCES:+, $E2E_NODE_RESOURCES}}
  allocatable: {cpu: "$cpu", memory: $mem, pods: "110"${E2E_NODE_RESOURCES:+, $E2E_NODE_RESOURCES}}
  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: e2e, lastHeartbeatTime: "$ts", lastTransitionTime: "$ts"}]
YAML
}

# e2e_node_yaml's node of 64 CPU and 256Gi with CARDS GPUs of MEMORY MiB, 100 cores and 10 slots each
# (GPU-NAME-I, NUMA node I / 2), as HAMi's device plugin registers them: hami.io/node-nvidia-register,
# and nvidia.com/gpu allocatable, 10 a card.
e2e_hami_node_yaml() { # name cards memory [label...]
  local name=$1 n=$2 mem=$3 cards="" i
  shift 3
  for i in $(seq 0 $((n - 1))); do
    cards+="${cards:+,}{\\\"id\\\":\\\"GPU-$name-$i\\\",\\\"index\\\":$i,\\\"count\\\":10,\\\"devmem\\\":$mem,\\\"devcore\\\":100,\\\"type\\\":\\\"NVIDIA-A10\\\",\\\"numa\\\":$((i / 2)),\\\"health\\\":true,\\\"mode\\\":\\\"hami-core\\\"}"
  done
  E2E_NODE_ANNOTATIONS="hami.io/node-nvidia-register: \"[$cards]\"" E2E_NODE_RESOURCES="nvidia.com/gpu: \"$((n * 10))\"" \
    e2e_node_yaml "$name" 64 256Gi "$@"
}

# manifests/overlays/gpu-sharing as the GPU scripts run it: REPLICAS extenders (e2e_start_extenders) on
# PORT with the overlay's policy (the ConfigMap's text as the Deployment mounts it), its RBAC
# (e2e_extenders_as_manifests_account) and any FLAG given, and, with KUBE_SCHEDULER, the scheduler on
# the overlay's profile pointed at them.
e2e_start_gpu_sharing() { # replicas port [extender flag...]
  local overlay=manifests/overlays/gpu-sharing replicas=$1 port=$2
  shift 2
  sed -n '/config.yaml: |/,$p' $overlay/policy-patch.yaml | tail -n +2 | sed 's/^    //' >"$WORK/policy.yaml"
  e2e_extenders_as_manifests_account manifests/base/rbac.yaml $overlay/rbac-gpu.yaml
  e2e_start_extenders "$replicas" "$port" --config "$WORK/policy.yaml" "$@"
  [ -n "${KUBE_SCHEDULER:-}" ] || return 0
  {
    e2e_scheduler_config_head
    sed -n '/^    profiles:/,$p' $overlay/scheduler-config-patch.yaml | sed 's/^    //' |
      sed "s|urlPrefix: .*|urlPrefix: http://127.0.0.1:$port|"
  } >"$WORK/scheduler-config.yaml"
  e2e_start_scheduler "$WORK/scheduler-config.yaml" 2
}

# HAMi's device plugin's bookkeeping once Allocate is done, for every pod of the namespace bound while
# allocating (pkg/util/util.go PodAllocationTrySuccess: bind-phase success, then the node's lock released
# if it is still the pod's, nodelock.go ReleaseNodeLock); HAMi's device plugin cannot run without GPUs.
# As the plugins of a cluster's nodes do, it serves each pod as the watch shows it, the pods of several
# nodes at once. Runs until killed.
e2e_hami_device_plugin_standin() {
  local pick='select(.spec.nodeName != null and .metadata.annotations["hami.io/bind-phase"] == "allocating") |
    "\(.metadata.namespace) \(.metadata.name) \(.spec.nodeName)"' list rv
  while true; do
    # What is allocating now, then what the watch shows from there on, until the server ends the watch.
    list=$(curl -sS "$E2E_API/api/v1/namespaces/$NS/pods") || { sleep 0.1; continue; }
    rv=$(jq -r .metadata.resourceVersion <<<"$list")
    jq -r ".items[] | $pick" <<<"$list" | e2e_hami_allocated_each
    curl -sSN "$E2E_API/api/v1/namespaces/$NS/pods?watch=true&resourceVersion=$rv" |
      jq --unbuffered -r "select(.type == \"ADDED\" or .type == \"MODIFIED\") | .object | $pick" |
      e2e_hami_allocated_each
  done
}

# e2e_hami_device_plugin_standin's bookkeeping for each "namespace name node" read, each in the background.
e2e_hami_allocated_each() {
  local ns name node
  while read -r ns name node; do
    [ -n "$name" ] && e2e_hami_allocated "$ns" "$name" "$node" &
  done
  wait
}

e2e_hami_allocated() { # namespace name node
  local node_json lock
  curl -sS -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' \
    -d '{"metadata":{"annotations":{"hami.io/bind-phase":"success"}}}' "$E2E_API/api/v1/namespaces/$1/pods/$2"
  for _ in 1 2 3 4 5; do
    node_json=$(curl -sS "$E2E_API/api/v1/nodes/$3") || return 0
    lock=$(jq -r '.metadata.annotations["hami.io/mutex.lock"] // ""' <<<"$node_json")
    [[ $lock == *",$1,$2" ]] || return 0
    # The node's resourceVersion as precondition: a lock taken since is left alone.
    curl -sS -o /dev/null -w '%{http_code}' -X PATCH -H 'Content-Type: application/merge-patch+json' \
      -d "{\"metadata\":{\"resourceVersion\":\"$(jq -r .metadata.resourceVersion <<<"$node_json")\",\"annotations\":{\"hami.io/mutex.lock\":null}}}" \
      "$E2E_API/api/v1/nodes/$3" | grep -q 409 || return 0
  done
}

# Creates the nodes of e2e_node_yaml documents read from stdin in one request, then removes the
# not-ready taint the apiserver's admission put on each at creation, as the node lifecycle controller
# would once a node is Ready.
e2e_create_nodes() {
  K create -f - >/dev/null
  K taint nodes -l "kube-extender.io/e2e=$E2E_LABEL" node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1 || true
}

# A pod for the shipped profile's kube-extender-scheduler, in the namespace: NAME with LABELS and
# nodeSelector SELECTOR (flow maps), requesting CPU and 100Mi, each SPEC_LINE ("key: value") added
# to its spec. It tolerates the script's taint and, as no kubelet ever reports for the script's
# nodes, the not-ready and unreachable ones a cluster may put on them.
e2e_extender_pod_yaml() { # name labels selector cpu [spec line...]
  local name=$1 labels=$2 selector=$3 cpu=$4 line
  shift 4
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: %s, labels: %s}\n' "$name" "$NS" "$labels"
  echo "spec:"
  echo "  schedulerName: kube-extender-scheduler"
  for line in "$@"; do echo "  $line"; done
  cat <<YAML
  nodeSelector: $selector
  tolerations: [{key: kube-extender.io/e2e, operator: Exists}, {key: node.kubernetes.io/unreachable, operator: Exists}, {key: node.kubernetes.io/not-ready, operator: Exists}]
  containers: [{name: c, image: registry.k8s.io/pause:3.9, resources: {requests: {cpu: "$cpu", memory: 100Mi}}}]
YAML
}

# "name node deleting" per pod of the namespace now (node "-" when unbound, deleting 1 when it has a
# deletionTimestamp).
e2e_pods_now() {
  K -n "$NS" get pods -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.spec.nodeName}{" "}{.metadata.deletionTimestamp}{"\n"}{end}' |
    awk '{ print $1, ($2 == "" ? "-" : $2), ($3 == "" ? 0 : 1) }'
}

# "g1=8/8 g2=0/8 ...": bound of existing members per group 1..N (pods named gN-I), from an
# e2e_pods_now listing.
e2e_group_counts() { # listing groups
  local g
  for g in $(seq "$2"); do
    printf 'g%s=%s ' "$g" "$(echo "$1" | awk -v g="g$g-" 'index($1, g) == 1 { n++; if ($2 != "-") b++ } END { printf "%d/%d", b, n }')"
  done
  echo
}

# Force-deletes the pods of a listing that are terminating: without a kubelet nothing ends them,
# and a preemption victim left terminating would hold its node's room. Names them in
# $WORK/force-deleted.
e2e_force_delete_terminating() { # listing
  echo "$1" | awk '$3 == 1 { print $1 }' | while read -r p; do
    K -n "$NS" delete pod "$p" --force --grace-period=0 >/dev/null 2>&1 || true
    echo "$p" >>"$WORK/force-deleted"
  done
}

# Polls the namespace's pods every 0.5 s until `done_test COUNTS LISTING` holds or LIMIT seconds
# have passed since START, failing when a group of 8 is seen partly bound for more than 3 s (gang
# scheduling binds a group whole or not at all). Each round sets LISTING (e2e_pods_now's) and COUNTS
# (`counts LISTING GROUPS`, e.g. e2e_group_counts); with E2E_FORCE_DELETE_TERMINATING=1 it also
# force-deletes the pods left terminating. Sets WAITED (seconds since START) and PARTLY_MAX (the
# longest a group was seen partly bound in any wait).
PARTLY_MAX=0
WAITED=0
LISTING=
COUNTS=
e2e_wait_for_groups() { # groups limit done_test start counts
  local start=$4
  declare -A since_partly=()
  while :; do
    LISTING=$(e2e_pods_now)
    [ "${E2E_FORCE_DELETE_TERMINATING:-0}" = 1 ] && e2e_force_delete_terminating "$LISTING"
    COUNTS=$($5 "$LISTING" "$1")
    for kv in $COUNTS; do
      local g=${kv%%=*} n=${kv#*=}
      [ "$g" = web ] && continue
      n=${n%/*}
      if [ "$n" -gt 0 ] && [ "$n" -lt 8 ]; then
        [ -n "${since_partly[$g]:-}" ] || since_partly[$g]=$(now)
        local d
        d=$(since "${since_partly[$g]}")
        gt "$d" "$PARTLY_MAX" && PARTLY_MAX=$d
        gt "$d" 3 && fail "pod group $g partly bound ($n of 8) for $d s: $COUNTS"
      else
        unset "since_partly[$g]"
      fi
    done
    if $3 "$COUNTS" "$LISTING"; then
      # shellcheck disable=SC2034 # the scripts print it
      WAITED=$(since "$start")
      return 0
    fi
    gt "$(since "$start")" "$2" && fail "not within $2 s: $COUNTS"
    sleep 0.5
  done
}
