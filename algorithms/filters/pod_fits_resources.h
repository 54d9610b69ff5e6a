#pragma once
// NodeResourcesFit filter (legacy predicate name PodFitsResources), FIT-new semantics.
#include <memory>
#include <string_view>

#include "algorithms/catalogue.h"
#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"

namespace kext {

// The filter's two names: the current framework plugin and the legacy Policy predicate (name()).
inline constexpr std::string_view kNodeResourcesFitPlugin = "NodeResourcesFit";
inline constexpr std::string_view kPodFitsResourcesPredicate = "PodFitsResources";

// "PodFitsResources": pod count, then cpu / memory / ephemeral-storage / scalars against
// allocatable minus the node's actual requests. Every failing resource is reported; unschedulable
// (preemption may help), unresolvable when a request exceeds the node's whole allocatable
// (noderesources/fit.go Filter: InsufficientResource.Unresolvable). The newest minor's semantics.
// shown_as: the name it is shown under (AliasedFilter); empty = its predicate's.
std::unique_ptr<FilterPlugin> make_pod_fits_resources_filter(std::string_view shown_as = {});
// The same with NodeResourcesFitArgs: an extended resource (is_extended_resource_name) named in
// ignored_resources, or whose domain is in ignored_resource_groups, is not checked (fit.go
// fitsRequest). Named "PodFitsResources" unless shown_as says otherwise (the catalogue passes the
// framework name). `version` selects the minor's fitsRequest and Filter:
//   since::fit_skips_unrequested_resources: cpu, memory and ephemeral-storage are checked only when
//     the pod requests some (before, a pod asking 0 cpu fails a node whose cpu is over-committed, and
//     only a pod with no request at all, not even a zero scalar, skips the three checks);
//   since::fit_unresolvable_above_allocatable: a request above the node's allocatable is
//     unresolvable (before, every failure is unschedulable);
//   fit_version_rules.h: sidecars while the gate is off (1.28), extended resources DRA backs (1.36).
std::unique_ptr<FilterPlugin> make_node_resources_fit_filter(FitFilterArgs args,
                                                             std::string_view shown_as = {},
                                                             KubeVersion version = KubeVersion::newest());

// v1helper.IsExtendedResourceName without the qualified-name validation (the API server did it): a
// domain-prefixed name outside *kubernetes.io/ and not "requests."-prefixed.
bool is_extended_resource_name(std::string_view name);

}  // namespace kext
