#pragma once
// TaintToleration filter (legacy predicate PodToleratesNodeTaints).
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "PodToleratesNodeTaints": the first NoSchedule/NoExecute taint the pod does not tolerate fails the
// node, unresolvable, with "node(s) had untolerated taint {<key>: <value>}".
std::unique_ptr<FilterPlugin> make_pod_tolerates_node_taints_filter();

}  // namespace kext
