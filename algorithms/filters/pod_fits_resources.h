#pragma once
// NodeResourcesFit filter (legacy predicate name PodFitsResources), FIT-new semantics.
#include <memory>
#include <string_view>

#include "algorithms/catalogue.h"
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
// The same with NodeResourcesFitArgs: an extended resource (is_extended_resource_name) named in
// ignored_resources, or whose domain is in ignored_resource_groups, is not checked (fit.go
// fitsRequest). The plugin is still named "PodFitsResources"; the catalogue names it for the caller.
std::unique_ptr<FilterPlugin> make_node_resources_fit_filter(FitFilterArgs args);

// v1helper.IsExtendedResourceName without the qualified-name validation (the API server did it): a
// domain-prefixed name outside *kubernetes.io/ and not "requests."-prefixed.
bool is_extended_resource_name(std::string_view name);

}  // namespace kext
