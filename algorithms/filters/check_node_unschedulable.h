#pragma once
// NodeUnschedulable filter (legacy predicate CheckNodeUnschedulable).
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "CheckNodeUnschedulable": a cordoned node (spec.unschedulable) fails unless the pod tolerates
// node.kubernetes.io/unschedulable:NoSchedule. Unresolvable, with "node(s) were unschedulable".
std::unique_ptr<FilterPlugin> make_check_node_unschedulable_filter();

}  // namespace kext
