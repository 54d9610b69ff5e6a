#!/usr/bin/env bash
# Topology-aware gangs against a real kube-apiserver and kube-scheduler (docs/gang-scheduling.md,
# "Topology: a whole group in one rack"), on default extender flags apart from --enable-bind:
#   1. 8 racks (node label example.com/rack: r1..r8) of 4 nodes of 4 CPU; six scheduler-plugins
#      PodGroups of 8 annotated kube-extender.io/required-topology: example.com/rack, members of 2 CPU:
#      each binds whole, all 8 members in one rack, a rack each, within 60 s;
#   2. ordinary pods fill the two racks left: rack A with eight 2-CPU pods of priority 100, rack B
#      with eight of priority 50;
#   3. a seventh such group of priority 1000: it evicts in exactly one rack, B (the lower highest
#      victim priority), never a gang member, and binds whole there within 90 s.
# No group may be seen partly bound for more than 3 s. Prints how long the six groups took to bind
# whole, how long the seventh took after it was created, and its victims with their racks.
#
# The nodes are Node objects this script creates (label and taint kube-extender.io/e2e=topology; the
# pods select and tolerate them), so a real cluster's own nodes and pods are left alone. With no
# kubelet to end them, the filler pods have terminationGracePeriodSeconds 0: the scheduler's
# preemption deletes a victim with the pod's own grace period, so they go at once, as the kubelet
# would end them; pods still terminating are force-deleted here all the same.
#
# Needs KUBECONFIG naming a cluster whose credentials may create nodes, CRDs, PriorityClasses and
# pods; skipped, with a message, when it names none (CI has none). The scheduler:
#   - KUBE_SCHEDULER=/path/to/kube-scheduler: started here with manifests/base/scheduler-config.yaml's
#     profile and extender entry, its urlPrefix pointed at the extender started here;
#   - otherwise one must already run with that configuration and urlPrefix http://127.0.0.1:$EXTENDER_PORT.
# REPLICAS=2 runs two extenders with --leader-elect behind haproxy (tcp mode, a connection pinned to
# one replica, as a Service is), each with EXTENDER_FLAGS. BUILD names the build folder (build).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. tests/e2e/lib.sh

e2e_init gang_topology_real_scheduler topology
EXTENDER_PORT=${EXTENDER_PORT:-8888}
REPLICAS=${REPLICAS:-1}
RACK_KEY=example.com/rack
RACKS=8
NODES_PER_RACK=4
GROUPS_FIRST=6
LAST=g7

cleanup() {
  e2e_cleanup
  K delete priorityclass -l kube-extender.io/e2e=topology --wait=false >/dev/null 2>&1 || true
}
trap cleanup EXIT

e2e_install_pod_group_crd
e2e_create_namespace
for pc in e2e-topology-filler-a:100 e2e-topology-filler-b:50 e2e-topology-gang-high:1000; do
  K apply -f - >/dev/null <<YAML
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: ${pc%%:*}, labels: {kube-extender.io/e2e: topology}}
value: ${pc#*:}
YAML
done

# The extender(s), on default flags and EXTENDER_FLAGS (e.g. "--gang-max-held-binds 2", which defers
# binds past the second held call).
read -r -a extra_flags <<<"${EXTENDER_FLAGS:-}"
e2e_start_extenders "$REPLICAS" "$EXTENDER_PORT" "${extra_flags[@]}"
e2e_start_shipped_scheduler

# Node e2e-topo-rR-nI, in rack rR.
make_nodes() {
  for r in $(seq "$RACKS"); do
    for i in $(seq 0 $((NODES_PER_RACK - 1))); do
      e2e_node_yaml "e2e-topo-r$r-n$i" 4 16Gi "$RACK_KEY: r$r"
    done
  done | e2e_create_nodes
}

pod_group_yaml() { # name
  cat <<YAML
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: $1
  namespace: $NS
  annotations: {kube-extender.io/required-topology: $RACK_KEY}
spec: {minMember: 8, scheduleTimeoutSeconds: 30}
YAML
}

pod_yaml() { # name group priorityClassName rack ("" for none)
  local labels="{kube-extender.io/e2e: topology}" selector="{kube-extender.io/e2e: topology}" spec=()
  [ -n "$2" ] && labels="{kube-extender.io/e2e: topology, scheduling.x-k8s.io/pod-group: $2}"
  [ -n "$3" ] && spec+=("priorityClassName: $3")
  [ -n "$4" ] && selector="{kube-extender.io/e2e: topology, $RACK_KEY: $4}"
  e2e_extender_pod_yaml "$1" "$labels" "$selector" 2 "${spec[@]}" "terminationGracePeriodSeconds: 0"
}

rack_of() { echo "$1" | sed -n 's/^e2e-topo-\(r[0-9]*\)-n[0-9]*$/\1/p'; }

# Polls until `done_test COUNTS LISTING` holds (LISTING: e2e_pods_now's) or `limit` seconds pass;
# fails when a group is seen partly bound for more than 3 s. Force-deletes pods left terminating
# (what a kubelet would end). WAITED: the seconds since `start` (default now: the objects' creation
# began there); LISTING: the last e2e_pods_now.
E2E_FORCE_DELETE_TERMINATING=1
wait_for() { # groups limit done_test [start]
  e2e_wait_for_groups "$1" "$2" "$3" "${4:-$(now)}" e2e_group_counts
}
whole() { e2e_group_counts "$1" "$2" | tr ' ' '\n' | grep -c '^g[0-9]*=8/8' || true; }
first_whole() { [ "$(whole "$2" "$GROUPS_FIRST")" = "$GROUPS_FIRST" ]; }
fillers_bound() { [ "$(echo "$2" | awk '/^(a|b)-/ && $2 != "-"' | wc -l)" = 16 ]; }
last_whole() { [ "$(echo "$2" | awk -v g="$LAST-" 'index($1, g) == 1 && $2 != "-"' | wc -l)" = 8 ]; }

# The racks a group's bound members are in, one a line.
racks_of_group() { # listing group
  echo "$1" | awk -v g="$2-" 'index($1, g) == 1 && $2 != "-" { print $2 }' | while read -r n; do rack_of "$n"; done | sort -u
}

# The decision log's records of POD, as each replica's /debug/decisions answers (one JSON document a
# replica): with replicas, a member's verbs are decided on the Lease holder, other pods' anywhere.
decisions_of() { # pod limit
  local port
  for port in "${E2E_EXTENDER_PORTS[@]}"; do
    curl -s "http://127.0.0.1:$port/debug/decisions?pod=$NS/$1&limit=$2"
    echo
  done
}

# The state the extender's decision log gave a group's admission: "pod group NS/g1: admitted now in
# rack r1" ("" when none of its members' decisions kept says it).
admitted_state() { # group
  for i in $(seq 0 7); do
    decisions_of "$1-$i" 100 | grep -o '"gang":"[^"]*admitted now[^"]*"' || true
  done | head -n1 | sed 's/^"gang":"//; s/"$//'
}

# With replicas, what each served, from its /metrics: whether it holds the Lease, the verbs the
# scheduler's connection brought it, and the binds it passed on to the holder.
replica_traffic() {
  local port
  for port in "${E2E_EXTENDER_PORTS[@]}"; do
    curl -s "http://127.0.0.1:$port/metrics" | awk -v port="$port" '
      /^kube_extender_leader[{ ]/ { leader = $NF }
      /^kube_extender_requests_total[{]/ { split($0, a, "verb=\""); split(a[2], b, "\""); n[b[1]] += $NF }
      /^kube_extender_bind_forwards_total / { fwd = $NF }
      END { printf "  replica on %s: leader %d, filter %d, preempt %d, bind %d, binds passed on %d\n",
              port, leader, n["filter"], n["preempt"], n["bind"], fwd }'
  done
}

echo "gang_topology_real_scheduler: $RACKS racks of $NODES_PER_RACK nodes, pods ${ORDER:-interleaved}, $REPLICAS extender replica(s), flags: ${EXTENDER_FLAGS:-default}"
make_nodes
{
  for g in $(seq "$GROUPS_FIRST"); do pod_group_yaml "g$g"; done
  if [ "${ORDER:-interleaved}" = grouped ]; then
    # Group after group, as one Job after another.
    for g in $(seq "$GROUPS_FIRST"); do for i in $(seq 0 7); do pod_yaml "g$g-$i" "g$g" "" ""; done; done
  else
    # Interleaved, as a Job controller per group creates them.
    for i in $(seq 0 7); do for g in $(seq "$GROUPS_FIRST"); do pod_yaml "g$g-$i" "g$g" "" ""; done; done
  fi
} >"$WORK/groups.yaml"
created=$(now)
K apply -f "$WORK/groups.yaml" >/dev/null
wait_for "$GROUPS_FIRST" 60 first_whole "$created"
GROUPS_TIME=$WAITED
used=""
for g in $(seq "$GROUPS_FIRST"); do
  racks=$(racks_of_group "$LISTING" "g$g")
  if [ "$(echo "$racks" | wc -l)" != 1 ]; then
    # What the extender decided for each member, newest first: the verb, the group's state, the nodes.
    for i in $(seq 0 7); do
      decisions_of "g$g-$i" 20 |
        jq -r '.decisions[] | "\(.time) \(.pod) \(.verb) \(.gang // "") \(.error // "") \([.nodes[]? | select(.filter == "passed" or .filter == null) | .name] | length) nodes"' 2>/dev/null || true
    done | sort >"$WORK/decisions-g$g.txt"
    cat "$WORK/decisions-g$g.txt"
    fail "g$g spans racks: $(echo "$racks" | tr '\n' ' ')"
  fi
  used+=" $racks"
done
[ "$(echo "$used" | tr ' ' '\n' | sed '/^$/d' | sort -u | wc -l)" = "$GROUPS_FIRST" ] || fail "groups share racks:$used"
echo "$GROUPS_FIRST groups of 8 × 2 CPU, each whole in one rack ($used ) in $GROUPS_TIME s"
echo "  decision log: $(admitted_state g1)"

free=$(for r in $(seq "$RACKS"); do echo "$used" | tr ' ' '\n' | grep -qx "r$r" || echo "r$r"; done)
RACK_A=$(echo "$free" | sed -n 1p)
RACK_B=$(echo "$free" | sed -n 2p)
if [ -z "$RACK_A" ] || [ -z "$RACK_B" ]; then fail "not two free racks: $free"; fi
{
  for i in $(seq 0 7); do pod_yaml "a-$i" "" e2e-topology-filler-a "$RACK_A"; done
  for i in $(seq 0 7); do pod_yaml "b-$i" "" e2e-topology-filler-b "$RACK_B"; done
} >"$WORK/fillers.yaml"
created=$(now)
K apply -f "$WORK/fillers.yaml" >/dev/null
wait_for "$GROUPS_FIRST" 60 fillers_bound "$created"
echo "rack $RACK_A filled with 8 × 2 CPU of priority 100, rack $RACK_B with 8 of priority 50, in $WAITED s"
before=$LISTING

{
  pod_group_yaml "$LAST"
  for i in $(seq 0 7); do pod_yaml "$LAST-$i" "$LAST" e2e-topology-gang-high ""; done
} >"$WORK/last.yaml"
created=$(now)
K apply -f "$WORK/last.yaml" >/dev/null
wait_for 7 90 last_whole "$created"
LAST_TIME=$WAITED
after=$LISTING

# Victims: the pods bound before that are gone now (or terminating).
victims=$(echo "$before" | while read -r name node _; do
  echo "$after" | awk -v p="$name" '$1 == p && $3 == 0 { found = 1 } END { exit !found }' || echo "$name $node"
done)
[ -n "$victims" ] || fail "$LAST bound whole with no victim"
victim_racks=$(echo "$victims" | while read -r _ node; do rack_of "$node"; done | sort -u)
echo "$victims" | grep -q '^g' && fail "gang members evicted: $(echo "$victims" | grep '^g' | tr '\n' ' ')"
[ "$(echo "$victim_racks" | wc -l)" = 1 ] || fail "victims in several racks: $(echo "$victim_racks" | tr '\n' ' ')"
[ "$victim_racks" = "$RACK_B" ] || fail "victims in $victim_racks, not in $RACK_B (priority 50)"
last_racks=$(racks_of_group "$after" "$LAST")
[ "$last_racks" = "$RACK_B" ] || fail "$LAST in $(echo "$last_racks" | tr '\n' ' '), not whole in $RACK_B"
for g in $(seq "$GROUPS_FIRST"); do
  [ "$(racks_of_group "$after" "g$g" | wc -l)" = 1 ] || fail "g$g no longer whole"
done
# kube-scheduler's DefaultPreemption made the evictions, each reported in a Preempted event.
preempted=$(K -n "$NS" get events --field-selector reason=Preempted -o jsonpath='{range .items[*]}{.involvedObject.name}{"\n"}{end}' | sort -u | wc -l)
echo "$LAST (8 × 2 CPU, priority 1000) whole in rack $RACK_B $LAST_TIME s after it was created"
echo "victims ($(echo "$victims" | wc -l), $preempted with a Preempted event of kube-scheduler's): $(echo "$victims" | while read -r p node; do printf '%s@%s ' "$p" "$(rack_of "$node")"; done)"
echo "  decision log: $(admitted_state "$LAST")"
echo "pods force-deleted while terminating: $(sort -u "$WORK/force-deleted" 2>/dev/null | wc -l)"
echo "longest a group was seen partly bound: $PARTLY_MAX s"
[ "$REPLICAS" = 1 ] || replica_traffic
echo "gang_topology_real_scheduler: PASS"
