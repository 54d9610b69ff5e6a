#include "algorithms/filters/match_node_selector.h"

#include "algorithms/node_selector.h"

namespace kext {
namespace {

class MatchNodeSelector final : public AliasedFilter {
 public:
  explicit MatchNodeSelector(std::string_view shown_as)
      : AliasedFilter(kMatchNodeSelectorPredicate, shown_as) {}
  // Its cost per node: bench/engine_bench.cc BM_FilterPluginCost.
  uint64_t cost_per_node_ns() const override { return 4; }

  // Neither a nodeSelector nor a required node affinity: every node matches (NodeAffinity's PreFilter
  // returns Skip then, nodeaffinity/node_affinity.go PreFilter).
  bool can_fail(const PodContext& pod) const override {
    return !pod.pod.node_selector.empty() || (pod.pod.node_affinity && pod.pod.node_affinity->required);
  }
  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    if (match_required_affinity(pod.pod, *node.node)) return FilterCode::kSuccess;
    reasons.emplace_back("node(s) didn't match Pod's node affinity/selector");
    return FilterCode::kUnresolvable;
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> make_match_node_selector_filter(std::string_view shown_as) {
  return std::make_unique<MatchNodeSelector>(shown_as);
}

}  // namespace kext
