#pragma once
// A canonical text of a ClusterState: one sorted line per node, pod, PodDisruptionBudget, namespace,
// Service, ReplicationController, ReplicaSet and StatefulSet with what the verbs read (allocatable,
// labels, taints, images, the per-node aggregates and pod lists; pod identity, placement, priority,
// requests; budgets; namespace labels; selectors), and a count line for each of the last five kinds that has
// objects. Two states that decide alike give the same text, so a cache kept by events can be compared with a
// from-scratch build of the same objects (GET /debug/state, the watch tests, bench/soak).
#include <string>

#include "kube/state/cluster_state.h"

namespace kext {

std::string dump_state(const ClusterState& state);

}  // namespace kext
