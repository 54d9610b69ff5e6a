#include "algorithms/plugin.h"

#include <algorithm>

#include "algorithms/pod_requests.h"

namespace kext {

PodContext::PodContext(const Pod& p)
    : pod(p), requests(compute_pod_requests(p, false)), nonzero_requests(compute_pod_requests(p, true)) {}

void default_normalize_score(int64_t max_priority, bool reverse, std::span<int64_t> scores) {
  int64_t max_count = 0;
  for (int64_t s : scores) max_count = std::max(max_count, s);
  if (max_count == 0) {
    if (reverse) std::fill(scores.begin(), scores.end(), max_priority);
    return;
  }
  for (auto& s : scores) {
    s = max_priority * s / max_count;
    if (reverse) s = max_priority - s;
  }
}

}  // namespace kext
