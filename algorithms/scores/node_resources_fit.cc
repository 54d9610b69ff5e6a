#include "algorithms/scores/node_resources_fit.h"

#include <utility>

#include "algorithms/saturating.h"
#include "algorithms/scores/least_requested.h"
#include "algorithms/scores/most_requested.h"
#include "algorithms/scores/requested_to_capacity_ratio.h"
#include "algorithms/scores/resource_allocation.h"

namespace kext {

namespace {

constexpr std::string_view kName = "NodeResourcesFit";

// leastResourceScorer / mostResourceScorer: the same weighted mean over the resources with allocatable.
class AllocatedScore final : public ScorePlugin {
 public:
  AllocatedScore(std::vector<ResourceWeight> resources, bool most)
      : resources_(std::move(resources)), most_(most) {}

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost.
  uint64_t cost_per_node_ns() const override { return 20; }
  std::string_view name() const override { return kName; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    // 128 bits: weights are validated to 1..100 from a file, but a hand-built strategy may hold any.
    __int128 node_score = 0;
    __int128 weight_sum = 0;
    for (const auto& res : resources_) {
      const RequestedCapacity rc = requested_and_capacity(pod, node, res.name, false);
      if (rc.capacity == 0) continue;
      const int64_t s = most_ ? most_requested_score(rc.requested, rc.capacity, kMaxNodeScore, true)
                              : least_requested_score(rc.requested, rc.capacity, kMaxNodeScore);
      node_score += static_cast<__int128>(s) * res.weight;
      weight_sum += res.weight;
    }
    if (weight_sum <= 0) return 0;
    return saturate(div128(node_score, weight_sum));
  }

 private:
  std::vector<ResourceWeight> resources_;
  bool most_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_node_resources_fit_score(const ScoringStrategy& strategy) {
  switch (strategy.type) {
    case ScoringStrategyType::kLeastAllocated:
      return std::make_unique<AllocatedScore>(strategy.resources, false);
    case ScoringStrategyType::kMostAllocated:
      return std::make_unique<AllocatedScore>(strategy.resources, true);
    case ScoringStrategyType::kRequestedToCapacityRatio:
      break;
  }
  // MaxNodeScore / MaxCustomPriorityScore = 100 / 10.
  return make_requested_to_capacity_ratio_score({strategy.shape, strategy.resources},
                                                kMaxNodeScore / kMaxScore, kName);
}

}  // namespace kext
