#include "algorithms/scores/load_variation_risk_balancing.h"

#include <algorithm>
#include <cmath>

#include "algorithms/usage_lookup.h"

namespace kext {

namespace {

// analysis.go computeScore, on fractions of allocatable: the risk of one resource, scored 0..100.
double resource_score(double mean, double stddev, double request_fraction,
                      const LoadVariationRiskBalancingArgs& a) {
  const double mu = std::clamp(std::clamp(mean, 0.0, 1.0) + std::max(request_fraction, 0.0), 0.0, 1.0);
  double sigma = std::clamp(stddev, 0.0, 1.0);
  if (a.safe_variance_sensitivity >= 0) sigma = std::pow(sigma, 1 / a.safe_variance_sensitivity);
  sigma = std::clamp(sigma * a.safe_variance_margin, 0.0, 1.0);
  return (1 - (mu + sigma) / 2) * static_cast<double>(kMaxNodeScore);
}

double fraction(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0;
}

class LoadVariationRiskBalancing final : public ScorePlugin {
 public:
  explicit LoadVariationRiskBalancing(const LoadVariationRiskBalancingArgs& args) : args_(args) {}
  std::string_view name() const override { return kLoadVariationRiskBalancingPlugin; }
  bool reads_cluster() const override { return true; }
  // Its cost per node with a sample for every node: bench/engine_bench.cc BM_LoadAwarePrioritize (the
  // difference its arg 0 makes, shared by the two scores), mostly the lookup and the lag estimate.
  uint64_t cost_per_node_ns() const override { return 200; }

  std::unique_ptr<ScorePrepared> prepare(const PodContext& pod,
                                         std::span<const NodeInfo* const>) const override {
    return std::make_unique<UsagePrepared>(fresh_usage(pod));
  }

  int64_t score(const PodContext& pod, const ScorePrepared* prepared, const NodeInfo& node) const override {
    const auto* p = static_cast<const UsagePrepared*>(prepared);
    if (p == nullptr || p->view == nullptr || node.node == nullptr) return 0;
    const std::optional<NodeUsage> u = node_usage(*p->view, node);
    if (!u) return 0;
    // loadvariationriskbalancing.go Score: both resources measured, the worse of the two. An allocatable
    // of 0 makes Trimaran's computeScore 0 for that resource.
    const Resources& alloc = node.node->allocatable;
    const double cpu = alloc.milli_cpu > 0
                           ? resource_score(u->cpu_mean, u->cpu_stddev,
                                            fraction(pod.requests.milli_cpu, alloc.milli_cpu), args_)
                           : 0;
    const double memory = alloc.memory > 0
                              ? resource_score(u->memory_mean, u->memory_stddev,
                                               fraction(pod.requests.memory, alloc.memory), args_)
                              : 0;
    return std::llround(std::min(cpu, memory));
  }

 private:
  LoadVariationRiskBalancingArgs args_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_load_variation_risk_balancing_score(
    const LoadVariationRiskBalancingArgs& args) {
  return std::make_unique<LoadVariationRiskBalancing>(args);
}

}  // namespace kext
