#include "algorithms/scores/most_requested.h"

#include "algorithms/scores/cpu_memory_mean.h"

namespace kext {

namespace {

// An over-committed resource scores 0 rather than 10: that is what v1.16 did, and the later clamp
// is a different product.
int64_t most_requested(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return saturate(static_cast<__int128>(requested) * kMaxScore / capacity);
}

class MostRequested final : public ScorePlugin {
 public:
  std::string_view name() const override { return "MostRequestedPriority"; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    return cpu_memory_mean(pod, node, most_requested);
  }
};

}  // namespace

std::unique_ptr<ScorePlugin> make_most_requested_score() { return std::make_unique<MostRequested>(); }

}  // namespace kext
