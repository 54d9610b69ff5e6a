#include "algorithms/filters/pod_fits_resources.h"

#include <string>
#include <vector>

#include "algorithms/saturating.h"

namespace kext {

namespace {

class PodFitsResources final : public FilterPlugin {
 public:
  std::string_view name() const override { return kPodFitsResourcesPredicate; }

  FilterStatus filter(const PodContext& pod, const NodeInfo& node) const override {
    const Resources& req = pod.requests;
    const Resources& alloc = node.node->allocatable;
    const Resources& used = node.requested;
    std::vector<std::string> reasons;
    // A request larger than the whole node cannot be fixed by evicting anything, so preemption
    // should not consider this node. A full pod count can be, hence it never sets this.
    bool unresolvable = false;

    if (static_cast<int64_t>(node.pods.size()) + 1 > alloc.pods) reasons.emplace_back("Too many pods");
    if (req.requests_nothing()) return finish(std::move(reasons), false);

    // The > 0 guard keeps a pod that does not ask for cpu schedulable on an over-committed node.
    auto check = [&](int64_t want, int64_t allocatable, int64_t requested, std::string reason) {
      if (want > 0 && want > sat_sub(allocatable, requested)) {
        reasons.push_back(std::move(reason));
        if (want > allocatable) unresolvable = true;
      }
    };
    check(req.milli_cpu, alloc.milli_cpu, used.milli_cpu, "Insufficient cpu");
    check(req.memory, alloc.memory, used.memory, "Insufficient memory");
    check(req.ephemeral_storage, alloc.ephemeral_storage, used.ephemeral_storage,
          "Insufficient ephemeral-storage");

    for (const auto& s : req.scalars) {
      if (s.value == 0) continue;
      int64_t allocatable = alloc.scalar(s.name);
      if (s.value > sat_sub(allocatable, used.scalar(s.name))) {
        reasons.push_back("Insufficient " + s.name);
        if (s.value > allocatable) unresolvable = true;
      }
    }
    return finish(std::move(reasons), unresolvable);
  }

 private:
  static FilterStatus finish(std::vector<std::string> reasons, bool unresolvable) {
    if (reasons.empty()) return FilterStatus::success();
    return unresolvable ? FilterStatus::unresolvable(std::move(reasons))
                        : FilterStatus::unschedulable(std::move(reasons));
  }
};

}  // namespace

std::unique_ptr<FilterPlugin> make_pod_fits_resources_filter() {
  return std::make_unique<PodFitsResources>();
}

}  // namespace kext
