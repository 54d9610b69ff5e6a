#include "algorithms/filters/match_node_selector.h"

#include "algorithms/node_selector.h"

namespace kext {
namespace {

class MatchNodeSelector final : public AliasedFilter {
 public:
  explicit MatchNodeSelector(std::string_view shown_as)
      : AliasedFilter(kMatchNodeSelectorPredicate, shown_as) {}
  // bench/engine_bench.cc BM_FilterPluginCost: 4 ns per node.
  uint64_t cost_per_node_ns() const override { return 4; }

  FilterStatus filter(const PodContext& pod, const NodeInfo& node) const override {
    if (match_required_affinity(pod.pod, *node.node)) return FilterStatus::success();
    return FilterStatus::unresolvable({"node(s) didn't match Pod's node affinity/selector"});
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> make_match_node_selector_filter(std::string_view shown_as) {
  return std::make_unique<MatchNodeSelector>(shown_as);
}

}  // namespace kext
