#include "algorithms/scores/taint_toleration.h"

#include "algorithms/taints.h"

namespace kext {
namespace {

class TaintTolerationPriority final : public AliasedScore {
 public:
  TaintTolerationPriority(int64_t max_score, std::string_view shown_as)
      : AliasedScore(max_score == kMaxScore ? "TaintTolerationPriority" : "TaintToleration", shown_as),
        max_score_(max_score) {}

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost.
  uint64_t cost_per_node_ns() const override { return 10; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    return count_untolerated_prefer_no_schedule(node.node->taints, pod.pod.tolerations);
  }

  bool has_reduce() const override { return true; }
  void reduce(std::span<int64_t> scores) const override { default_normalize_score(max_score_, true, scores); }

 private:
  int64_t max_score_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_taint_toleration_score(std::string_view shown_as) {
  return std::make_unique<TaintTolerationPriority>(kMaxScore, shown_as);
}

std::unique_ptr<ScorePlugin> make_taint_toleration_plugin_score() {
  return std::make_unique<TaintTolerationPriority>(kMaxNodeScore, std::string_view());
}

}  // namespace kext
