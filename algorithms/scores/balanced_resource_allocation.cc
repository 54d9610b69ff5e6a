#include "algorithms/scores/balanced_resource_allocation.h"

#include <cmath>
#include <utility>
#include <vector>

#include "algorithms/saturating.h"
#include "algorithms/scores/resource_allocation.h"

namespace kext {

namespace {

// Same operation order as Go's fractionOfCapacity; the build disables FMA contraction so the
// doubles match amd64 Go bit for bit.
double fraction_of_capacity(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 1;
  return static_cast<double>(requested) / static_cast<double>(capacity);
}

class BalancedResourceAllocation final : public AliasedScore {
 public:
  explicit BalancedResourceAllocation(std::string_view shown_as)
      : AliasedScore("BalancedResourceAllocation", shown_as) {}

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost.
  uint64_t cost_per_node_ns() const override { return 4; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    const Resources& alloc = node.node->allocatable;
    // Saturating: an 8Ei request on top of the node's pods is over capacity, not negative.
    double cpu = fraction_of_capacity(
        sat_add(node.nonzero_requested.milli_cpu, pod.nonzero_requests.milli_cpu), alloc.milli_cpu);
    double mem = fraction_of_capacity(sat_add(node.nonzero_requested.memory, pod.nonzero_requests.memory),
                                      alloc.memory);
    // A full (or missing) resource means the node should never be preferred, however balanced.
    if (cpu >= 1 || mem >= 1) return 0;
    double diff = std::abs(cpu - mem);
    // Only a negative amount (refused by the API server's validation) can make diff reach 1; 0 keeps
    // the score in 0..kMaxScore and the cast defined.
    if (diff >= 1) return 0;
    return static_cast<int64_t>((1 - diff) * static_cast<double>(kMaxScore));
  }
};

class NodeResourcesBalancedAllocation final : public ScorePlugin {
 public:
  explicit NodeResourcesBalancedAllocation(std::vector<ResourceWeight> resources)
      : resources_(std::move(resources)) {}

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost.
  uint64_t cost_per_node_ns() const override { return 35; }
  std::string_view name() const override { return "NodeResourcesBalancedAllocation"; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    bool best_effort = true;
    for (const auto& r : resources_) {
      if (pod_request(pod, r.name, true) != 0) best_effort = false;
    }
    if (best_effort) return 0;
    std::vector<double> fractions;
    double total = 0;
    for (const auto& r : resources_) {
      const RequestedCapacity rc = requested_and_capacity(pod, node, r.name, true);
      if (rc.capacity == 0) continue;
      double f = static_cast<double>(rc.requested) / static_cast<double>(rc.capacity);
      if (f > 1) f = 1;
      // Only a negative amount (refused by the API server) makes f negative; 0 keeps std <= 1.
      if (f < 0) f = 0;
      total += f;
      fractions.push_back(f);
    }
    double std_dev = 0;
    if (fractions.size() == 2) {
      std_dev = std::abs((fractions[0] - fractions[1]) / 2);
    } else if (fractions.size() > 2) {
      const double mean = total / static_cast<double>(fractions.size());
      double sum = 0;
      for (double f : fractions) sum = sum + (f - mean) * (f - mean);
      std_dev = std::sqrt(sum / static_cast<double>(fractions.size()));
    }
    return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
  }

 private:
  std::vector<ResourceWeight> resources_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_balanced_resource_allocation_score(std::string_view shown_as) {
  return std::make_unique<BalancedResourceAllocation>(shown_as);
}

std::unique_ptr<ScorePlugin> make_node_resources_balanced_allocation_score(
    const BalancedAllocationArgs& args) {
  return std::make_unique<NodeResourcesBalancedAllocation>(args.resources);
}

}  // namespace kext
