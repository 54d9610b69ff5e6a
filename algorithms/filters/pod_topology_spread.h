#pragma once
// PodTopologySpread filter (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go).
#include <memory>

#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"
#include "algorithms/plugin_args.h"

namespace kext {

// "PodTopologySpread": the pod's DoNotSchedule constraints (or, for a pod without constraints, the
// defaults of `args` that are DoNotSchedule, when a workload selects the pod; see topology_spread.h).
// pre_filter counts the matching pods per topology domain over every node of the cluster that has all
// the constraints' topology keys, per constraint only on nodes its inclusion policies admit. check():
// a node without one of the keys is unresolvable, "node(s) didn't match pod topology spread constraints
// (missing required label)"; a node whose domain's count + 1 (if the pod matches its own selector) -
// the global minimum (0 while fewer than minDomains domains exist) exceeds maxSkew is unschedulable,
// "node(s) didn't match pod topology spread constraints". The state follows preemption's removals and
// additions as updateWithPod does. `version` decides matchLabelKeys, minDomains and what an empty
// selector counts (SpreadRules).
std::unique_ptr<FilterPlugin> make_pod_topology_spread_filter(const TopologySpreadArgs& args,
                                                              KubeVersion version = KubeVersion::newest());

}  // namespace kext
