#pragma once
// NodePorts filter (legacy predicate PodFitsHostPorts).
#include <memory>
#include <string_view>

#include "algorithms/plugin.h"

namespace kext {

// The filter's two names: the current framework plugin and the legacy Policy predicate (name()).
inline constexpr std::string_view kNodePortsPlugin = "NodePorts";
inline constexpr std::string_view kPodFitsHostPortsPredicate = "PodFitsHostPorts";

// "PodFitsHostPorts": a node fails when a pod already on it holds one of the pod's host ports
// (PodMeta::host_ports). Unschedulable, with "node(s) didn't have free ports for the requested pod
// ports" (nodeports/node_ports.go Filter): preemption can free the port.
// shown_as: the name it is shown under (AliasedFilter); empty = its predicate's.
std::unique_ptr<FilterPlugin> make_node_ports_filter(std::string_view shown_as = {});

}  // namespace kext
