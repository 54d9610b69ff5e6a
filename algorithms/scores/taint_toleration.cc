#include "algorithms/scores/taint_toleration.h"

#include "algorithms/taints.h"

namespace kext {
namespace {

class TaintTolerationPriority final : public ScorePlugin {
 public:
  std::string_view name() const override { return "TaintTolerationPriority"; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    return count_untolerated_prefer_no_schedule(node.node->taints, pod.pod.tolerations);
  }

  bool has_reduce() const override { return true; }
  void reduce(std::span<int64_t> scores) const override { default_normalize_score(kMaxScore, true, scores); }
};

}  // namespace

std::unique_ptr<ScorePlugin> make_taint_toleration_score() {
  return std::make_unique<TaintTolerationPriority>();
}

}  // namespace kext
