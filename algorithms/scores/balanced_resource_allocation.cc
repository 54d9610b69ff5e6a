#include "algorithms/scores/balanced_resource_allocation.h"

#include <array>
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

// The fractions of one node's resources that balanced_allocation.go balancedResourceScore takes the
// standard deviation of: min(requested / allocatable, 1) per resource with allocatable, in the
// configured order. Kept in place for the usual few resources, so that a node's score allocates nothing.
class Fractions {
 public:
  void add(int64_t requested, int64_t capacity) {
    double f = static_cast<double>(requested) / static_cast<double>(capacity);
    if (f > 1) f = 1;
    // Only a negative amount (refused by the API server) makes f negative; 0 keeps std <= 1.
    if (f < 0) f = 0;
    total_ += f;
    if (n_ < kInPlace) {
      in_place_[n_] = f;
    } else {
      more_.push_back(f);
    }
    ++n_;
  }

  // balancedResourceScore: int64((1 - std) * MaxNodeScore); std = |f1 - f2| / 2 for two fractions, the
  // population standard deviation for more, 0 for fewer. Go's operation order, so the doubles match.
  int64_t score() const {
    double std_dev = 0;
    if (n_ == 2) {
      std_dev = std::abs((at(0) - at(1)) / 2);
    } else if (n_ > 2) {
      const double mean = total_ / static_cast<double>(n_);
      double sum = 0;
      for (size_t i = 0; i < n_; ++i) sum = sum + (at(i) - mean) * (at(i) - mean);
      std_dev = std::sqrt(sum / static_cast<double>(n_));
    }
    return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
  }

 private:
  static constexpr size_t kInPlace = 4;
  double at(size_t i) const { return i < kInPlace ? in_place_[i] : more_[i - kInPlace]; }

  std::array<double, kInPlace> in_place_{};
  std::vector<double> more_;
  size_t n_ = 0;
  double total_ = 0;
};

class NodeResourcesBalancedAllocation final : public ScorePlugin {
 public:
  NodeResourcesBalancedAllocation(std::vector<ResourceWeight> resources, KubeVersion version)
      : resources_(std::move(resources)),
        skip_best_effort_(since::balanced_skips_best_effort(version)),
        delta_formula_(since::balanced_allocation_delta_formula(version)) {}

  // Its cost per node: bench/engine_bench.cc BM_ScorePluginCost.
  uint64_t cost_per_node_ns() const override { return 35; }
  std::string_view name() const override { return "NodeResourcesBalancedAllocation"; }

  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    if (skip_best_effort_ && best_effort(pod)) return 0;
    Fractions with_pod;
    Fractions without_pod;
    for (const auto& r : resources_) {
      const RequestedCapacity rc = requested_and_capacity(pod, node, r.name, true);
      if (rc.capacity == 0) continue;
      with_pod.add(rc.requested, rc.capacity);
      if (delta_formula_) without_pod.add(rc.allocated, rc.capacity);
    }
    if (!delta_formula_) return with_pod.score();
    // balancedResourceScorer (kubernetes PR #135573): how much the pod improves the node's balance. Both
    // scores are in [50, 100], so the integer halving truncates a non-negative value, as Go's does.
    constexpr int64_t kHalf = kMaxNodeScore / 2;
    return kHalf + (kHalf + with_pod.score() - without_pod.score()) / 2;
  }

 private:
  // PreScore's isBestEffortPod: the pod requests none of the resources (actual requests, useRequested).
  // Such a pod is skipped (kubernetes PR #130260): no node gains anything from this plugin.
  bool best_effort(const PodContext& pod) const {
    for (const auto& r : resources_) {
      if (pod_request(pod, r.name, true) != 0) return false;
    }
    return true;
  }

  std::vector<ResourceWeight> resources_;
  // The minor's semantics, read once (kube_version.h since::).
  bool skip_best_effort_;
  bool delta_formula_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_balanced_resource_allocation_score(std::string_view shown_as) {
  return std::make_unique<BalancedResourceAllocation>(shown_as);
}

std::unique_ptr<ScorePlugin> make_node_resources_balanced_allocation_score(const BalancedAllocationArgs& args,
                                                                           KubeVersion version) {
  return std::make_unique<NodeResourcesBalancedAllocation>(args.resources, version);
}

}  // namespace kext
