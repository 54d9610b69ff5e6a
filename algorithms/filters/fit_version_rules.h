#pragma once
// NodeResourcesFit's rules that turn on and off with a kube-scheduler minor's feature gates, beside the
// request-against-allocatable check: a pod with sidecars while SidecarContainers is off (1.28), and
// extended resources that DRA devices back (DRAExtendedResource, 1.36).
#include <cstdint>
#include <string_view>

#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"

namespace kext {

inline constexpr std::string_view kSidecarsDisabledReason =
    "Pod has a restartable init container and the SidecarContainers feature is disabled";

// noderesources/fit.go PreFilter: with the field in the API but the gate off (1.28), a pod with a
// restartable init container is UnschedulableAndUnresolvable on every node. Before 1.28 the scheduler
// does not know the field: such a container is a plain init container.
bool fit_rejects_sidecars(KubeVersion version, const Pod& pod);

// noderesources/fit.go shouldDelegateResourceToDRA: from 1.36 an extended resource the node does not
// list in its allocatable (or lists as 0) but a DeviceClass maps is left to the DynamicResources
// plugin, not found short here.
bool fit_delegates_to_dra(KubeVersion version, const ClusterView* cluster, std::string_view name,
                          int64_t allocatable);

}  // namespace kext
