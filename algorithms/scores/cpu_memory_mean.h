#pragma once
// The legacy resource priorities share one shape: score cpu and memory separately from the node's
// non-zero requests plus the pod's, against allocatable, then take the integer mean.
#include <algorithm>
#include <cstdint>

#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "algorithms/saturating.h"

namespace kext {

// The requested sums saturate (a pod asking for 8Ei on top of the node's pods is over capacity, not
// negative), and each per-resource score is clamped to 0..kMaxScore so the mean stays in range even
// for amounts the API server would have refused (negative requests or allocatable).
template <typename PerResource>
int64_t cpu_memory_mean(const PodContext& pod, const NodeInfo& node, PerResource per_resource) {
  const Resources& alloc = node.node->allocatable;
  auto one = [&](int64_t node_requested, int64_t pod_requested, int64_t capacity) {
    return std::clamp<int64_t>(per_resource(sat_add(node_requested, pod_requested), capacity), 0, kMaxScore);
  };
  const int64_t cpu = one(node.nonzero_requested.milli_cpu, pod.nonzero_requests.milli_cpu, alloc.milli_cpu);
  const int64_t mem = one(node.nonzero_requested.memory, pod.nonzero_requests.memory, alloc.memory);
  return (cpu + mem) / 2;
}

}  // namespace kext
