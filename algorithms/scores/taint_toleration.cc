#include "algorithms/scores/taint_toleration.h"

#include "algorithms/taints.h"

namespace kext {
namespace {

class TaintTolerationPriority final : public ScorePlugin {
 public:
  explicit TaintTolerationPriority(int64_t max_score) : max_score_(max_score) {}

  // bench/engine_bench.cc BM_ScorePluginCost: 10 ns per node.
  uint64_t cost_per_node_ns() const override { return 10; }
  std::string_view name() const override {
    return max_score_ == kMaxScore ? "TaintTolerationPriority" : "TaintToleration";
  }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    return count_untolerated_prefer_no_schedule(node.node->taints, pod.pod.tolerations);
  }

  bool has_reduce() const override { return true; }
  void reduce(std::span<int64_t> scores) const override { default_normalize_score(max_score_, true, scores); }

 private:
  int64_t max_score_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_taint_toleration_score() {
  return std::make_unique<TaintTolerationPriority>(kMaxScore);
}

std::unique_ptr<ScorePlugin> make_taint_toleration_plugin_score() {
  return std::make_unique<TaintTolerationPriority>(kMaxNodeScore);
}

}  // namespace kext
