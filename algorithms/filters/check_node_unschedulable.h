#pragma once
// NodeUnschedulable filter (legacy predicate CheckNodeUnschedulable).
#include <memory>
#include <string_view>

#include "algorithms/plugin.h"

namespace kext {

// The filter's two names: the current framework plugin and the legacy Policy predicate (name()).
inline constexpr std::string_view kNodeUnschedulablePlugin = "NodeUnschedulable";
inline constexpr std::string_view kCheckNodeUnschedulablePredicate = "CheckNodeUnschedulable";

// "CheckNodeUnschedulable": a cordoned node (spec.unschedulable) fails unless the pod tolerates
// node.kubernetes.io/unschedulable:NoSchedule. Unresolvable, with "node(s) were unschedulable"
// (nodeunschedulable/node_unschedulable.go Filter: UnschedulableAndUnresolvable).
// shown_as: the name it is shown under (AliasedFilter); empty = its predicate's.
std::unique_ptr<FilterPlugin> make_check_node_unschedulable_filter(std::string_view shown_as = {});

}  // namespace kext
