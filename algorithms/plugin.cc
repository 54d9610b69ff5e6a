#include "algorithms/plugin.h"

#include <algorithm>

#include "algorithms/pod_requests.h"

namespace kext {

PodContext::PodContext(const Pod& p)
    : pod(p), requests(compute_pod_requests(p, false)), nonzero_requests(compute_pod_requests(p, true)) {}

// pkg/scheduler/framework/plugins/helper/normalize_score.go: DefaultNormalizeScore, except that a
// negative raw score (only a preferred term with a negative weight, which the API server refuses,
// produces one) counts as 0 so the result stays in 0..max_priority, and the product is taken in 128
// bits so a raw score above int64 max / max_priority cannot wrap.
void default_normalize_score(int64_t max_priority, bool reverse, std::span<int64_t> scores) {
  int64_t max_count = 0;
  for (int64_t s : scores) max_count = std::max(max_count, s);
  if (max_count == 0) {
    std::fill(scores.begin(), scores.end(), reverse ? max_priority : 0);
    return;
  }
  for (auto& s : scores) {
    s = static_cast<int64_t>(static_cast<__int128>(max_priority) * std::max<int64_t>(s, 0) / max_count);
    if (reverse) s = max_priority - s;
  }
}

}  // namespace kext
