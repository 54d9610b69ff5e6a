#pragma once
// ResourceSinks that decode nodes, pods and PodDisruptionBudgets into the StateCache.
#include <memory>

#include "extender/kube/resource_sink.h"
#include "extender/state/state_cache.h"

namespace kext::kube {

std::unique_ptr<ResourceSink> make_node_sink(StateCache& cache);
std::unique_ptr<ResourceSink> make_pod_sink(StateCache& cache);
std::unique_ptr<ResourceSink> make_pdb_sink(StateCache& cache);

}  // namespace kext::kube
