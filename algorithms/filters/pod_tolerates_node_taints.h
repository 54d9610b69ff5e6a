#pragma once
// TaintToleration filter (legacy predicate PodToleratesNodeTaints).
#include <memory>
#include <string_view>

#include "algorithms/plugin.h"

namespace kext {

// The filter's two names: the current framework plugin and the legacy Policy predicate (name()).
inline constexpr std::string_view kTaintTolerationPlugin = "TaintToleration";
inline constexpr std::string_view kPodToleratesNodeTaintsPredicate = "PodToleratesNodeTaints";

// "PodToleratesNodeTaints": the first NoSchedule/NoExecute taint the pod does not tolerate fails the
// node, unresolvable, with "node(s) had untolerated taint {<key>: <value>}"
// (tainttoleration/taint_toleration.go Filter: UnschedulableAndUnresolvable).
// shown_as: the name it is shown under (AliasedFilter); empty = its predicate's.
std::unique_ptr<FilterPlugin> make_pod_tolerates_node_taints_filter(std::string_view shown_as = {});

}  // namespace kext
