#include "algorithms/filters/pod_tolerates_node_taints.h"

#include <string>

#include "algorithms/taints.h"

namespace kext {
namespace {

class PodToleratesNodeTaints final : public AliasedFilter {
 public:
  explicit PodToleratesNodeTaints(std::string_view shown_as)
      : AliasedFilter(kPodToleratesNodeTaintsPredicate, shown_as) {}
  // Its cost per node: bench/engine_bench.cc BM_FilterPluginCost (more when it returned a FilterStatus and
  // searched the tolerations for a node without taints).
  uint64_t cost_per_node_ns() const override { return 7; }

  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    if (node.node->taints.empty()) return FilterCode::kSuccess;
    const Taint* taint = first_untolerated_scheduling_taint(node.node->taints, pod.pod.tolerations);
    if (taint == nullptr) return FilterCode::kSuccess;
    // Same words as the modern TaintToleration plugin, so an empty value reads "{key: }" there too.
    reasons.push_back("node(s) had untolerated taint {" + taint->key + ": " + taint->value + "}");
    return FilterCode::kUnresolvable;
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> make_pod_tolerates_node_taints_filter(std::string_view shown_as) {
  return std::make_unique<PodToleratesNodeTaints>(shown_as);
}

}  // namespace kext
