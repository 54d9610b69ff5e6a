#pragma once
// BalancedResourceAllocation: the pre-v1.17 0..10 formula (P-BRA) favouring nodes whose cpu and
// memory utilisation stay close to each other.
#include <memory>

#include "algorithms/catalogue.h"
#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"

namespace kext {

// "BalancedResourceAllocation": f = r / c per resource (1 if c == 0) in double; 0 if either
// fraction is >= 1, else int64((1 - |f_cpu - f_mem|) * 10). r counts non-zero requests. No reduce.
// shown_as: the name it is shown under (AliasedScore); empty = its own.
std::unique_ptr<ScorePlugin> make_balanced_resource_allocation_score(std::string_view shown_as = {});

// "NodeResourcesBalancedAllocation", 0..100 (kube-scheduler noderesources/balanced_allocation.go
// balancedResourceScore): per resource with allocatable, f = min(r / c, 1) counting actual requests
// (useRequested); std = |f1 - f2| / 2 for two resources, the population standard deviation for more, 0
// for one; balance = int64((1 - std) * 100). No reduce. By `version`:
//   the score is the balance with the pod on the node; since::balanced_allocation_delta_formula, it is
//     50 + (50 + balance with the pod - balance without it) / 2 in integers (balancedResourceScorer);
//   since::balanced_skips_best_effort, a pod requesting none of the resources scores 0 on every node
//     (PreScore's Skip); before, it is scored like any pod.
std::unique_ptr<ScorePlugin> make_node_resources_balanced_allocation_score(const BalancedAllocationArgs& args,
                                                                           KubeVersion version = {});

}  // namespace kext
