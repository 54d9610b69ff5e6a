#include "algorithms/scores/least_requested.h"

#include "algorithms/saturating.h"
#include "algorithms/scores/cpu_memory_mean.h"

namespace kext {

// int128 keeps (c - r) * max exact for any allocatable a node can report.
int64_t least_requested_score(int64_t requested, int64_t capacity, int64_t max_score) {
  if (capacity == 0 || requested > capacity) return 0;
  return saturate(div128((static_cast<__int128>(capacity) - requested) * max_score, capacity));
}

namespace {

int64_t least_requested(int64_t requested, int64_t capacity) {
  return least_requested_score(requested, capacity, kMaxScore);
}

class LeastRequested final : public AliasedScore {
 public:
  explicit LeastRequested(std::string_view shown_as) : AliasedScore("LeastRequestedPriority", shown_as) {}

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost.
  uint64_t cost_per_node_ns() const override { return 10; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    return cpu_memory_mean(pod, node, least_requested);
  }
};

}  // namespace

std::unique_ptr<ScorePlugin> make_least_requested_score(std::string_view shown_as) {
  return std::make_unique<LeastRequested>(shown_as);
}

}  // namespace kext
