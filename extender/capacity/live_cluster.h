#pragma once
// The extender's live state as a simulated cluster: what its capacity endpoint places copies in. The
// running pods are shared with the state (their PodInfos as the watch cached them), not decoded again.
#include <memory>

#include "algorithms/kube_version.h"
#include "kube/state/cluster_state.h"
#include "sim/core/cluster.h"

namespace kext::capacity {

// The nodes that have a node object, by name (kube-scheduler's node order only breaks ties, which
// cluster-capacity's answers already leave to chance), each with the pods bound or assumed on it; the
// pending pods are left out, as cluster-capacity leaves them. With the budgets, the namespaces' labels,
// the workloads' selectors and the DeviceClasses' resources. `usage` (may be null) must outlive the
// cluster's views.
sim::SimCluster cluster_of(const ClusterState& state, KubeVersion version, const UsageView* usage);

}  // namespace kext::capacity
