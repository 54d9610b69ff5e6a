#include "algorithms/filters/pod_fits_host.h"

namespace kext {
namespace {

class PodFitsHost final : public AliasedFilter {
 public:
  explicit PodFitsHost(std::string_view shown_as) : AliasedFilter(kPodFitsHostPredicate, shown_as) {}
  // Its cost per node: bench/engine_bench.cc BM_FilterPluginCost (more when it returned a FilterStatus).
  uint64_t cost_per_node_ns() const override { return 2; }

  // A pod without spec.nodeName fits every node's name (nodename/node_name.go Fits).
  bool can_fail(const PodContext& pod) const override { return !pod.pod.node_name.empty(); }
  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    if (pod.pod.node_name.empty() || pod.pod.node_name == node.name()) return FilterCode::kSuccess;
    reasons.emplace_back("node(s) didn't match the requested node name");
    return FilterCode::kUnresolvable;
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> make_pod_fits_host_filter(std::string_view shown_as) {
  return std::make_unique<PodFitsHost>(shown_as);
}

}  // namespace kext
