#include "algorithms/scores/resource_allocation.h"

#include "algorithms/saturating.h"

namespace kext {

int64_t pod_request(const PodContext& pod, std::string_view resource, bool use_requested) {
  // use_requested: BalancedAllocation (pod-level requests count); otherwise NodeResourcesFit's
  // strategies, whose scorer leaves them out (compute_fit_scored_pod_requests).
  const Resources& r = use_requested ? pod.requests : pod.fit_scored_requests;
  if (resource == "cpu") return r.milli_cpu;
  if (resource == "memory") return r.memory;
  if (resource == "ephemeral-storage") return pod.requests.ephemeral_storage;
  return pod.requests.scalar(resource);
}

RequestedCapacity requested_and_capacity(const PodContext& pod, const NodeInfo& node,
                                         std::string_view resource, bool use_requested) {
  const Resources& alloc = node.node->allocatable;
  const Resources& node_requested = use_requested ? node.requested : node.nonzero_requested;
  const int64_t want = pod_request(pod, resource, use_requested);
  // Saturating sums: an 8Ei request on top of the node's pods is over capacity, not negative.
  auto on_node = [&](int64_t allocated, int64_t capacity) {
    return RequestedCapacity{sat_add(allocated, want), capacity, allocated};
  };
  if (resource == "cpu") return on_node(node_requested.milli_cpu, alloc.milli_cpu);
  if (resource == "memory") return on_node(node_requested.memory, alloc.memory);
  if (resource == "ephemeral-storage")
    return on_node(node.requested.ephemeral_storage, alloc.ephemeral_storage);
  if (want == 0) return {};
  return on_node(node.requested.scalar(resource), alloc.scalar(resource));
}

}  // namespace kext
