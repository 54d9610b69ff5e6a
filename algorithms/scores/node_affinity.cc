#include "algorithms/scores/node_affinity.h"

#include "algorithms/node_selector.h"

namespace kext {
namespace {

class NodeAffinityPriority final : public AliasedScore {
 public:
  NodeAffinityPriority(int64_t max_score, std::string_view shown_as)
      : AliasedScore(max_score == kMaxScore ? "NodeAffinityPriority" : "NodeAffinity", shown_as),
        max_score_(max_score) {}

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost.
  uint64_t cost_per_node_ns() const override { return 5; }

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
  void reduce(std::span<int64_t> scores) const override {
    default_normalize_score(max_score_, false, scores);
  }

 private:
  int64_t max_score_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_node_affinity_score(std::string_view shown_as) {
  return std::make_unique<NodeAffinityPriority>(kMaxScore, shown_as);
}

std::unique_ptr<ScorePlugin> make_node_affinity_plugin_score() {
  return std::make_unique<NodeAffinityPriority>(kMaxNodeScore, std::string_view());
}

}  // namespace kext
