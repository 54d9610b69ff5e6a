#pragma once
// NodeResourcesFit filter (legacy predicate name PodFitsResources), FIT-new semantics.
#include <memory>
#include <string_view>

#include "algorithms/plugin.h"

namespace kext {

// The filter's two names: the current framework plugin and the legacy Policy predicate (name()).
inline constexpr std::string_view kNodeResourcesFitPlugin = "NodeResourcesFit";
inline constexpr std::string_view kPodFitsResourcesPredicate = "PodFitsResources";

// "PodFitsResources": pod count, then cpu / memory / ephemeral-storage / scalars against
// allocatable minus the node's actual requests. Every failing resource is reported; unschedulable
// (preemption may help), unresolvable when a request exceeds the node's whole allocatable
// (noderesources/fit.go Filter: InsufficientResource.Unresolvable).
std::unique_ptr<FilterPlugin> make_pod_fits_resources_filter();

}  // namespace kext
