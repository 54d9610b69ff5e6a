#pragma once
// NodeName filter (legacy predicate PodFitsHost).
#include <memory>
#include <string_view>

#include "algorithms/plugin.h"

namespace kext {

// The filter's two names: the current framework plugin and the legacy Policy predicate (name()).
inline constexpr std::string_view kNodeNamePlugin = "NodeName";
inline constexpr std::string_view kPodFitsHostPredicate = "PodFitsHost";

// "PodFitsHost": a pod bound to a node by spec.nodeName fits only that node. Unresolvable, with
// "node(s) didn't match the requested node name" (nodename/node_name.go Filter:
// UnschedulableAndUnresolvable).
// shown_as: the name it is shown under (AliasedFilter); empty = its predicate's.
std::unique_ptr<FilterPlugin> make_pod_fits_host_filter(std::string_view shown_as = {});

}  // namespace kext
