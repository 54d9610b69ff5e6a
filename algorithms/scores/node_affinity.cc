#include "algorithms/scores/node_affinity.h"

#include "algorithms/node_selector.h"

namespace kext {
namespace {

class NodeAffinityPriority final : public ScorePlugin {
 public:
  std::string_view name() const override { return "NodeAffinityPriority"; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    if (!pod.pod.node_affinity) return 0;
    int64_t sum = 0;
    for (const auto& term : pod.pod.node_affinity->preferred) {
      if (term.weight == 0) continue;
      if (match_node_selector_term(term.preference, *node.node)) sum += term.weight;
    }
    return sum;
  }

  bool has_reduce() const override { return true; }
  void reduce(std::span<int64_t> scores) const override { default_normalize_score(kMaxScore, false, scores); }
};

}  // namespace

std::unique_ptr<ScorePlugin> make_node_affinity_score() { return std::make_unique<NodeAffinityPriority>(); }

}  // namespace kext
