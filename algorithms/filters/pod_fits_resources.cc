#include "algorithms/filters/pod_fits_resources.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/filters/fit_version_rules.h"
#include "algorithms/saturating.h"

namespace kext {

namespace {

class PodFitsResources final : public AliasedFilter {
 public:
  PodFitsResources(FitFilterArgs args, std::string_view shown_as, KubeVersion version)
      : AliasedFilter(kPodFitsResourcesPredicate, shown_as),
        args_(std::move(args)),
        version_(version),
        skip_unrequested_(since::fit_skips_unrequested_resources(version)),
        unresolvable_above_allocatable_(since::fit_unresolvable_above_allocatable(version)) {}
  // Its cost per node: bench/engine_bench.cc BM_FilterPluginCost (more when it returned a FilterStatus;
  // much more while each check built its reason string, "Insufficient cpu" and the rest past the
  // 15-byte small-string buffer: three malloc/free per node).
  uint64_t cost_per_node_ns() const override { return 6; }
  // The DeviceClasses' extended resources (fit_delegates_to_dra) are on the cluster view.
  bool reads_cluster() const override { return since::dra_extended_resources(version_); }

  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    if (fit_rejects_sidecars(version_, pod.pod)) {
      reasons.emplace_back(kSidecarsDisabledReason);
      return FilterCode::kUnresolvable;
    }
    const Resources& req = pod.requests;
    const Resources& alloc = node.node->allocatable;
    const Resources& used = node.requested;
    const bool too_many_pods = static_cast<int64_t>(node.pods.size()) + 1 > alloc.pods;
    // Most nodes fit a pod that asks for no extended resource: answered without the reasons' vector
    // and the checks below, in fewer instructions per node (callgrind, 500 cloud names of 5000 nodes;
    // docs/performance.md "Figures behind design choices in the code").
    if (!too_many_pods && req.scalars.empty() && !short_of(req.milli_cpu, alloc.milli_cpu, used.milli_cpu) &&
        !short_of(req.memory, alloc.memory, used.memory) &&
        !short_of(req.ephemeral_storage, alloc.ephemeral_storage, used.ephemeral_storage)) {
      return FilterCode::kSuccess;
    }
    const size_t before = reasons.size();  // a check-all loop passes in the reasons of earlier filters
    // A request larger than the whole node cannot be fixed by evicting anything, so preemption
    // should not consider this node. A full pod count can be, hence it never sets this.
    bool unresolvable = false;

    if (too_many_pods) reasons.emplace_back("Too many pods");
    if (requests_nothing(req)) return finish(reasons.size() > before, false);

    auto check = [&](int64_t want, int64_t allocatable, int64_t requested, std::string_view reason) {
      if (short_of(want, allocatable, requested)) {
        reasons.emplace_back(reason);
        if (want > allocatable) unresolvable = true;
      }
    };
    check(req.milli_cpu, alloc.milli_cpu, used.milli_cpu, "Insufficient cpu");
    check(req.memory, alloc.memory, used.memory, "Insufficient memory");
    check(req.ephemeral_storage, alloc.ephemeral_storage, used.ephemeral_storage,
          "Insufficient ephemeral-storage");

    for (const auto& s : req.scalars) {
      if (s.value == 0 || ignored(s.name)) continue;
      int64_t allocatable = alloc.scalar(s.name);
      if (fit_delegates_to_dra(version_, pod.cluster, s.name, allocatable)) continue;
      if (s.value > sat_sub(allocatable, used.scalar(s.name))) {
        reasons.push_back("Insufficient " + s.name);
        if (s.value > allocatable) unresolvable = true;
      }
    }
    return finish(reasons.size() > before, unresolvable);
  }

 private:
  // The node lacks room for `want`. fit.go fitsRequest's > 0 guard (kubernetes PR #116408) keeps a pod
  // that does not ask for cpu schedulable on a node whose cpu is over-committed; before it, 0 > a
  // negative room failed the node.
  bool short_of(int64_t want, int64_t allocatable, int64_t requested) const {
    return (want > 0 || !skip_unrequested_) && want > sat_sub(allocatable, requested);
  }

  // fitsRequest's early return: no cpu, memory, ephemeral-storage and no scalar entry at all. A
  // scalar requested at 0 keeps the entry and so, without the > 0 guard, the three checks; with it,
  // every check passes such a pod anyway.
  bool requests_nothing(const Resources& req) const {
    return req.requests_nothing() && (skip_unrequested_ || req.scalars.empty());
  }

  bool ignored(std::string_view name) const {
    if (args_.ignored_resources.empty() && args_.ignored_resource_groups.empty()) return false;
    if (!is_extended_resource_name(name)) return false;
    auto has = [](const std::vector<std::string>& v, std::string_view x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    // The domain is what precedes the first '/' (strings.Split(rName, "/")[0]).
    return has(args_.ignored_resources, name) ||
           has(args_.ignored_resource_groups, name.substr(0, name.find('/')));
  }

  // fit.go Filter: UnschedulableAndUnresolvable when some failing request exceeds the node's whole
  // allocatable (kubernetes PR #131345), Unschedulable before.
  FilterCode finish(bool failed, bool unresolvable) const {
    if (!failed) return FilterCode::kSuccess;
    return unresolvable && unresolvable_above_allocatable_ ? FilterCode::kUnresolvable
                                                           : FilterCode::kUnschedulable;
  }

  FitFilterArgs args_;
  KubeVersion version_;
  // The minor's semantics, read once (kube_version.h since::).
  bool skip_unrequested_;
  bool unresolvable_above_allocatable_;
};

}  // namespace

std::unique_ptr<FilterPlugin> make_pod_fits_resources_filter(std::string_view shown_as) {
  return std::make_unique<PodFitsResources>(FitFilterArgs{}, shown_as, KubeVersion::newest());
}

std::unique_ptr<FilterPlugin> make_node_resources_fit_filter(FitFilterArgs args, std::string_view shown_as,
                                                             KubeVersion version) {
  return std::make_unique<PodFitsResources>(std::move(args), shown_as, version);
}

// pkg/apis/core/v1/helper/helpers.go IsExtendedResourceName and IsNativeResource: a name without a
// domain, or in the kubernetes.io domain, is native; "requests."-prefixed names are quota names.
bool is_extended_resource_name(std::string_view name) {
  if (name.find('/') == std::string_view::npos) return false;
  if (name.find("kubernetes.io/") != std::string_view::npos) return false;
  return !name.starts_with("requests.");
}

}  // namespace kext
