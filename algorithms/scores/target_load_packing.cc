#include "algorithms/scores/target_load_packing.h"

#include <cmath>

#include "algorithms/usage_lookup.h"

namespace kext {

int64_t predicted_pod_milli_cpu(const Pod& pod, const TargetLoadPackingArgs& args) {
  int64_t total = pod.overhead.milli_cpu;
  for (const Container& c : pod.containers) {
    total += c.has_cpu_request
                 ? std::llround(static_cast<double>(c.requests.milli_cpu) * args.default_requests_multiplier)
                 : args.default_requests_milli_cpu;
  }
  return total;
}

namespace {

// targetloadpacking.go Score, from the predicted utilization on.
int64_t target_load_score(double predicted_percent, double target) {
  if (predicted_percent > target) {
    if (predicted_percent > 100) return 0;
    return std::llround(target * (100 - predicted_percent) / (100 - target));
  }
  return std::llround((100 - target) * predicted_percent / target + target);
}

struct Prepared final : ScorePrepared {
  const UsageView* view = nullptr;
  int64_t pod_milli_cpu = 0;
};

class TargetLoadPacking final : public ScorePlugin {
 public:
  explicit TargetLoadPacking(const TargetLoadPackingArgs& args) : args_(args) {}
  std::string_view name() const override { return kTargetLoadPackingPlugin; }
  bool reads_cluster() const override { return true; }
  // Its cost per node with a sample for every node: bench/engine_bench.cc BM_LoadAwarePrioritize (the
  // difference its arg 0 makes, shared by the two scores), mostly the lookup and the lag estimate.
  uint64_t cost_per_node_ns() const override { return 200; }

  std::unique_ptr<ScorePrepared> prepare(const PodContext& pod,
                                         std::span<const NodeInfo* const>) const override {
    auto p = std::make_unique<Prepared>();
    p->view = fresh_usage(pod);
    p->pod_milli_cpu = predicted_pod_milli_cpu(pod.pod, args_);
    return p;
  }

  int64_t score(const PodContext&, const ScorePrepared* prepared, const NodeInfo& node) const override {
    const auto* p = static_cast<const Prepared*>(prepared);
    if (p == nullptr || p->view == nullptr || node.node == nullptr) return 0;
    const std::optional<NodeUsage> usage = node_usage(*p->view, node);
    if (!usage) return 0;
    const double capacity = static_cast<double>(node.node->allocatable.milli_cpu);
    const double predicted =
        capacity > 0 ? 100 * static_cast<double>(usage->milli_cpu + p->pod_milli_cpu) / capacity : 0;
    return target_load_score(predicted, static_cast<double>(args_.target_utilization));
  }

 private:
  TargetLoadPackingArgs args_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_target_load_packing_score(const TargetLoadPackingArgs& args) {
  return std::make_unique<TargetLoadPacking>(args);
}

}  // namespace kext
