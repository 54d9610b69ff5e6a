#include "algorithms/scores/requested_to_capacity_ratio.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/saturating.h"
#include "algorithms/scores/resource_allocation.h"

namespace kext {

int64_t broken_linear(std::span<const UtilizationShapePoint> shape, int64_t utilization) {
  if (shape.empty()) return 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (utilization > shape[i].utilization) continue;
    if (i == 0) return shape[0].score;
    const auto& lo = shape[i - 1];
    const auto& hi = shape[i];
    // Policy validation requires strictly increasing utilizations; guard anyway so a bad shape
    // cannot divide by zero.
    if (hi.utilization <= lo.utilization) return hi.score;
    // In 128 bits: the shape is validated (0..100, 0..10) only when it comes from a policy, and the
    // result lies between lo.score and hi.score, so it fits int64 whatever the points.
    const __int128 rise = static_cast<__int128>(hi.score) - lo.score;
    const __int128 run = static_cast<__int128>(hi.utilization) - lo.utilization;
    return static_cast<int64_t>(lo.score +
                                div128(rise * (static_cast<__int128>(utilization) - lo.utilization), run));
  }
  return shape.back().score;
}

namespace {

constexpr int64_t kMaxUtilization = 100;

class RequestedToCapacityRatio final : public ScorePlugin {
 public:
  RequestedToCapacityRatio(RequestedToCapacityRatioArgs args, int64_t shape_scale, std::string_view name)
      : args_(std::move(args)), name_(name) {
    if (args_.resources.empty()) args_.resources = {{"cpu", 1}, {"memory", 1}};
    // The legacy policy loader turned an omitted weight into 1 rather than disabling the resource.
    for (auto& r : args_.resources) {
      if (r.weight == 0) r.weight = 1;
    }
    // requested_to_capacity_ratio.go: Score * (MaxNodeScore / MaxCustomPriorityScore) on the 0..100 scale.
    for (auto& p : args_.shape) p.score = saturate(static_cast<__int128>(p.score) * shape_scale);
  }

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost.
  uint64_t cost_per_node_ns() const override { return 40; }
  std::string_view name() const override { return name_; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    // Exact in 128 bits: the policy bounds a resource weight only from below, and a saturated sum
    // would skew the mean; scores (0..100) times int64 weights summed over a few resources fit.
    __int128 node_score = 0;
    __int128 weight_sum = 0;
    for (const auto& res : args_.resources) {
      const RequestedCapacity rc = requested_and_capacity(pod, node, res.name, false);
      if (rc.capacity == 0) continue;
      int64_t s = resource_score(rc.requested, rc.capacity);
      // A zero score is dropped from the mean rather than averaged in (modern RTCR behaviour).
      if (s > 0) {
        node_score += static_cast<__int128>(s) * res.weight;
        weight_sum += res.weight;
      }
    }
    if (weight_sum == 0) return 0;
    // std::round rounds half away from zero, like Go's math.Round.
    return static_cast<int64_t>(
        std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
  }

 private:
  int64_t resource_score(int64_t requested, int64_t capacity) const {
    if (requested > capacity) return broken_linear(args_.shape, kMaxUtilization);
    // 128-bit so a huge byte count times 100 cannot overflow (master's scaledUtilization does too);
    // saturated for the negative amounts only a caller bypassing the decoder can produce.
    const int64_t util = saturate(div128(static_cast<__int128>(requested) * kMaxUtilization, capacity));
    return broken_linear(args_.shape, util);
  }

  RequestedToCapacityRatioArgs args_;
  std::string_view name_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_requested_to_capacity_ratio_score(const RequestedToCapacityRatioArgs& args,
                                                                    std::string_view shown_as) {
  return std::make_unique<RequestedToCapacityRatio>(
      args, 1, shown_as.empty() ? std::string_view("RequestedToCapacityRatioPriority") : shown_as);
}

std::unique_ptr<ScorePlugin> make_requested_to_capacity_ratio_score(const RequestedToCapacityRatioArgs& args,
                                                                    int64_t shape_scale,
                                                                    std::string_view name) {
  return std::make_unique<RequestedToCapacityRatio>(args, shape_scale, name);
}

}  // namespace kext
