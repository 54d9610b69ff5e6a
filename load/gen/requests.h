#pragma once
// What kube-scheduler sends an extender about a generated cluster: the pending pods of the traffic and
// the ExtenderArgs, ExtenderPreemptionArgs and ExtenderBindingArgs bodies
// (k8s.io/kube-scheduler/extender/v1/types.go), as Go's encoding/json prints them.
#include <cstdint>
#include <string>
#include <vector>

#include "load/gen/cluster.h"
#include "load/gen/prng.h"

namespace kext::gen {

constexpr int64_t kTrafficStart = 1767225600 + 86400 * 28;  // after every generated object's creation
constexpr int32_t kPreemptorPriority = 100000;

// A pod of one of the cluster's apps, pending, created at kTrafficStart + `cycle` seconds; a preemptor
// (kPreemptorPriority) asks for more than a node's free share.
PodSpec pending_pod(const Cluster& c, Prng& rng, size_t cycle, int32_t priority);

// ExtenderArgs for filter and prioritize: `nodes` (indices into c.nodes) as NodeNames, or with `full` as
// the Nodes list with each node's whole object.
std::string extender_args(const Cluster& c, const std::string& pod_json, const std::vector<size_t>& nodes,
                          bool full);

// ExtenderPreemptionArgs: per candidate node, the dry run's victims (at most 4 lower-priority pods, the
// least important, offered most important first) and their PDB violations; as metadata victims (UIDs)
// in NodeNameToMetaVictims, or with `full` as whole pods in NodeNameToVictims.
std::string preemption_args(const Cluster& c, const std::string& pod_json, std::vector<size_t> nodes,
                            int32_t priority, bool full);

// ExtenderBindingArgs, as kube-scheduler sends it after the pod's cycle chose a node.
std::string binding_args(const PodSpec& pod, const std::string& node);

}  // namespace kext::gen
