#include "algorithms/scores/most_requested.h"

#include "algorithms/saturating.h"
#include "algorithms/scores/cpu_memory_mean.h"

namespace kext {

int64_t most_requested_score(int64_t requested, int64_t capacity, int64_t max_score,
                             bool clamp_over_capacity) {
  if (capacity == 0) return 0;
  if (requested > capacity) {
    if (!clamp_over_capacity) return 0;
    requested = capacity;
  }
  return saturate(div128(static_cast<__int128>(requested) * max_score, capacity));
}

namespace {

// An over-committed resource scores 0 rather than 10: that is what v1.16 did, and the later clamp
// is a different product.
int64_t most_requested(int64_t requested, int64_t capacity) {
  return most_requested_score(requested, capacity, kMaxScore, false);
}

class MostRequested final : public AliasedScore {
 public:
  explicit MostRequested(std::string_view shown_as) : AliasedScore("MostRequestedPriority", shown_as) {}

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost.
  uint64_t cost_per_node_ns() const override { return 10; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    return cpu_memory_mean(pod, node, most_requested);
  }
};

}  // namespace

std::unique_ptr<ScorePlugin> make_most_requested_score(std::string_view shown_as) {
  return std::make_unique<MostRequested>(shown_as);
}

}  // namespace kext
