#include "algorithms/filters/load_aware_scheduling.h"

#include <cmath>
#include <string>

#include "algorithms/usage_lookup.h"

namespace kext {

namespace {

// load_aware.go filterNodeUsage: usage rounded to a whole percent, over the threshold only.
bool over_threshold(double used, int64_t allocatable, int64_t threshold_percent) {
  if (threshold_percent == 0 || allocatable <= 0) return false;
  return std::llround(used / static_cast<double>(allocatable) * 100) > threshold_percent;
}

class LoadAwareScheduling final : public FilterPlugin {
 public:
  explicit LoadAwareScheduling(const LoadAwareSchedulingArgs& args) : args_(args) {}
  std::string_view name() const override { return kLoadAwareSchedulingPlugin; }
  bool reads_cluster() const override { return true; }
  // Its cost per node: the same lookup and lag estimate as each load-aware score's
  // (bench/engine_bench.cc BM_LoadAwarePrioritize).
  uint64_t cost_per_node_ns() const override { return 200; }
  bool can_fail(const PodContext& pod) const override {
    return (args_.cpu_percent != 0 || args_.memory_percent != 0) && fresh_usage(pod) != nullptr;
  }

  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    const UsageView* view = fresh_usage(pod);
    if (view == nullptr || node.node == nullptr) return FilterCode::kSuccess;
    const std::optional<NodeUsage> u = node_usage(*view, node);
    if (!u) return FilterCode::kSuccess;
    // The pod itself is not in any sample yet: it counts as estimated_usage counts such pods.
    const double share = view->estimate_fraction();
    const Resources& alloc = node.node->allocatable;
    const double cpu =
        static_cast<double>(u->milli_cpu) + share * static_cast<double>(pod.requests.milli_cpu);
    const double memory = static_cast<double>(u->memory) + share * static_cast<double>(pod.requests.memory);
    if (over_threshold(cpu, alloc.milli_cpu, args_.cpu_percent)) {
      reasons.emplace_back("node(s) cpu usage exceed threshold");
      return FilterCode::kUnschedulable;
    }
    if (over_threshold(memory, alloc.memory, args_.memory_percent)) {
      reasons.emplace_back("node(s) memory usage exceed threshold");
      return FilterCode::kUnschedulable;
    }
    return FilterCode::kSuccess;
  }

 private:
  LoadAwareSchedulingArgs args_;
};

}  // namespace

std::unique_ptr<FilterPlugin> make_load_aware_scheduling_filter(const LoadAwareSchedulingArgs& args) {
  return std::make_unique<LoadAwareScheduling>(args);
}

}  // namespace kext
