#pragma once
// What the resource score plugins compare per resource: kube-scheduler's
// noderesources/resource_allocation.go calculateResourceAllocatableRequest.
#include <cstdint>
#include <string_view>

#include "algorithms/plugin.h"

namespace kext {

struct RequestedCapacity {
  int64_t requested = 0;  // the node's requests plus the pod's, saturating
  int64_t capacity = 0;   // allocatable; 0 means "skip this resource"
  int64_t allocated = 0;  // the node's requests alone (calculateNodeAllocatableRequest's `allocated`)
};

// use_requested = false (NodeResourcesFit, RequestedToCapacityRatio): cpu and memory count non-zero
// requests (100m / 200Mi for a container asking nothing). true (NodeResourcesBalancedAllocation): actual
// requests. Ephemeral storage and scalars always count actual requests, and a scalar the pod does not
// request is skipped (capacity 0), so that an idle GPU node is not favoured or penalised.
RequestedCapacity requested_and_capacity(const PodContext& pod, const NodeInfo& node,
                                         std::string_view resource, bool use_requested);

// The pod's own request of one resource, counted as above.
int64_t pod_request(const PodContext& pod, std::string_view resource, bool use_requested);

}  // namespace kext
