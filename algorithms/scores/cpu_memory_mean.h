#pragma once
// The legacy resource priorities share one shape: score cpu and memory separately from the node's
// non-zero requests plus the pod's, against allocatable, then take the integer mean.
#include <cstdint>

#include "algorithms/model.h"
#include "algorithms/plugin.h"

namespace kext {

template <typename PerResource>
int64_t cpu_memory_mean(const PodContext& pod, const NodeInfo& node, PerResource per_resource) {
  const Resources& alloc = node.node->allocatable;
  const int64_t cpu = per_resource(node.nonzero_requested.milli_cpu + pod.nonzero_requests.milli_cpu, alloc.milli_cpu);
  const int64_t mem = per_resource(node.nonzero_requested.memory + pod.nonzero_requests.memory, alloc.memory);
  return (cpu + mem) / 2;
}

}  // namespace kext
