#include "algorithms/scores/balanced_resource_allocation.h"

#include <cmath>

#include "algorithms/saturating.h"

namespace kext {

namespace {

// Same operation order as Go's fractionOfCapacity; the build disables FMA contraction so the
// doubles match amd64 Go bit for bit.
double fraction_of_capacity(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 1;
  return static_cast<double>(requested) / static_cast<double>(capacity);
}

class BalancedResourceAllocation final : public ScorePlugin {
 public:
  std::string_view name() const override { return "BalancedResourceAllocation"; }

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

}  // namespace

std::unique_ptr<ScorePlugin> make_balanced_resource_allocation_score() {
  return std::make_unique<BalancedResourceAllocation>();
}

}  // namespace kext
