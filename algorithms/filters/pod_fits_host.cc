#include "algorithms/filters/pod_fits_host.h"

namespace kext {
namespace {

class PodFitsHost final : public AliasedFilter {
 public:
  explicit PodFitsHost(std::string_view shown_as) : AliasedFilter(kPodFitsHostPredicate, shown_as) {}
  // bench/engine_bench.cc BM_FilterPluginCost: 3 ns per node.
  uint64_t cost_per_node_ns() const override { return 3; }

  FilterStatus filter(const PodContext& pod, const NodeInfo& node) const override {
    if (pod.pod.node_name.empty() || pod.pod.node_name == node.name()) return FilterStatus::success();
    return FilterStatus::unresolvable({"node(s) didn't match the requested node name"});
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> make_pod_fits_host_filter(std::string_view shown_as) {
  return std::make_unique<PodFitsHost>(shown_as);
}

}  // namespace kext
