#include "algorithms/filters/check_node_unschedulable.h"

#include <string>

#include "algorithms/taints.h"

namespace kext {
namespace {

class CheckNodeUnschedulable final : public FilterPlugin {
 public:
  // bench/engine_bench.cc BM_FilterPluginCost: 3 ns per node.
  uint64_t cost_per_node_ns() const override { return 3; }
  std::string_view name() const override { return kCheckNodeUnschedulablePredicate; }

  FilterStatus filter(const PodContext& pod, const NodeInfo& node) const override {
    if (!node.node->unschedulable) return FilterStatus::success();
    // Cordoning is modelled as this implicit taint so DaemonSet-style tolerations let pods through.
    const Taint unschedulable{std::string(kTaintNodeUnschedulable), "", std::string(kTaintEffectNoSchedule)};
    if (tolerations_tolerate_taint(pod.pod.tolerations, unschedulable)) return FilterStatus::success();
    return FilterStatus::unresolvable({"node(s) were unschedulable"});
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> make_check_node_unschedulable_filter() {
  return std::make_unique<CheckNodeUnschedulable>();
}

}  // namespace kext
