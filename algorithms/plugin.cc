#include "algorithms/plugin.h"

#include <algorithm>

#include "algorithms/pod_requests.h"
#include "algorithms/saturating.h"

namespace kext {

PodContext::PodContext(const Pod& p, const ClusterView* c, KubeVersion v)
    : pod(p),
      requests(compute_pod_requests(p, false, v)),
      nonzero_requests(compute_scored_pod_requests(p, v)),
      fit_scored_requests(compute_fit_scored_pod_requests(p, v)),
      cluster(c),
      version(v) {}

PodContext PodContext::with_cloned_states() const {
  PodContext copy(*this);
  for (auto& [f, s] : copy.filter_states)
    if (s) s = s->clone();
  return copy;
}

void PodContext::remove_pod(const PodInfo& p, const NodeInfo& node) {
  for (auto& [f, s] : filter_states)
    if (s) s->remove_pod(*this, p, node);
}

void PodContext::add_pod(const PodInfo& p, const NodeInfo& node) {
  for (auto& [f, s] : filter_states)
    if (s) s->add_pod(*this, p, node);
}

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
    s = static_cast<int64_t>(
        div128(static_cast<__int128>(max_priority) * std::max<int64_t>(s, 0), max_count));
    if (reverse) s = max_priority - s;
  }
}

namespace {

// Divides in score() when the plugin has no reduce (so the engine keeps skipping the reduce task), else
// after the inner reduce: DefaultNormalizeScore must see the 0..100 values to round as the scheduler does.
class OnWireScale final : public ScorePlugin {
 public:
  explicit OnWireScale(std::unique_ptr<ScorePlugin> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }
  std::unique_ptr<ScorePrepared> prepare(const PodContext& pod,
                                         std::span<const NodeInfo* const> nodes) const override {
    return inner_->prepare(pod, nodes);
  }
  int64_t score(const PodContext& pod, const ScorePrepared* prepared, const NodeInfo& node) const override {
    const int64_t s = inner_->score(pod, prepared, node);
    return inner_->has_reduce() ? s : s / kWireDivisor;
  }
  int64_t score_at(const PodContext& pod, const ScorePrepared* prepared,
                   std::span<const NodeInfo* const> nodes, size_t i) const override {
    const int64_t s = inner_->score_at(pod, prepared, nodes, i);
    return inner_->has_reduce() ? s : s / kWireDivisor;
  }
  bool has_reduce() const override { return inner_->has_reduce(); }
  void reduce(std::span<int64_t> scores) const override {
    inner_->reduce(scores);
    for (auto& s : scores) s /= kWireDivisor;
  }
  uint64_t cost_per_node_ns() const override { return inner_->cost_per_node_ns(); }
  bool reads_cluster() const override { return inner_->reads_cluster(); }
  const ScorePlugin& on_scheduler_scale() const override { return *inner_; }

 private:
  std::unique_ptr<ScorePlugin> inner_;
};

}  // namespace

std::unique_ptr<ScorePlugin> on_wire_scale(std::unique_ptr<ScorePlugin> inner) {
  return std::make_unique<OnWireScale>(std::move(inner));
}

}  // namespace kext
