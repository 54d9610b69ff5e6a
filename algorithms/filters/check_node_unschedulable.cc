#include "algorithms/filters/check_node_unschedulable.h"

#include <string>

#include "algorithms/taints.h"

namespace kext {
namespace {

class CheckNodeUnschedulable final : public AliasedFilter {
 public:
  explicit CheckNodeUnschedulable(std::string_view shown_as)
      : AliasedFilter(kCheckNodeUnschedulablePredicate, shown_as) {}
  // Its cost per node: bench/engine_bench.cc BM_FilterPluginCost.
  uint64_t cost_per_node_ns() const override { return 3; }

  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    if (!node.node->unschedulable) return FilterCode::kSuccess;
    // Cordoning is modelled as this implicit taint so DaemonSet-style tolerations let pods through.
    const Taint unschedulable{std::string(kTaintNodeUnschedulable), "", std::string(kTaintEffectNoSchedule)};
    if (tolerations_tolerate_taint(pod.pod.tolerations, unschedulable)) return FilterCode::kSuccess;
    reasons.emplace_back("node(s) were unschedulable");
    return FilterCode::kUnresolvable;
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> make_check_node_unschedulable_filter(std::string_view shown_as) {
  return std::make_unique<CheckNodeUnschedulable>(shown_as);
}

}  // namespace kext
