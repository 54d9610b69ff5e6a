#pragma once
// Effective pod requests exactly as Kubernetes computes them (component-helpers PodRequests).
#include "algorithms/model.h"

namespace kext {

inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;

// max(sum of containers incl. sidecars, max over init containers incl. earlier sidecars) + overhead.
// With non_zero, a container without a cpu/memory key counts the default (scoring only).
Resources compute_pod_requests(const Pod& pod, bool non_zero);

}  // namespace kext
