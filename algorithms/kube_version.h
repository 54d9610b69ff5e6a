#pragma once
// Which kube-scheduler minor's plugin semantics to reproduce (the configuration's kubernetesVersion):
// the plugins this project re-implements changed between minors, while the extender wire protocol did
// not (k8s.io/kube-scheduler extender/v1 types.go is the same from v0.26 to v0.36). Each change that
// moves a pod or a victim is one named predicate below, tested at its minor and the one before
// (tests/algorithms/kube_version_test.cc and the plugin's own table).
#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace kext {

struct KubeVersion {
  static constexpr int kOldestMinor = 26;
  static constexpr int kNewestMinor = 36;

  int minor = kNewestMinor;  // 1.minor
  auto operator<=>(const KubeVersion&) const = default;

  static constexpr KubeVersion newest() { return KubeVersion{kNewestMinor}; }
  static constexpr KubeVersion oldest() { return KubeVersion{kOldestMinor}; }
  constexpr bool at_least(int m) const { return minor >= m; }
  std::string str() const { return "1." + std::to_string(minor); }
};

// "1.34", "v1.34", "1.34.2", "v1.34.2-gke.100" (a server's gitVersion): the minor; nullopt for anything
// else. Out-of-range minors parse: supported() says whether this project reproduces them.
std::optional<KubeVersion> parse_kube_version(std::string_view text);
// Within [kOldestMinor, kNewestMinor].
inline bool supported(KubeVersion v) {
  return v.minor >= KubeVersion::kOldestMinor && v.minor <= KubeVersion::kNewestMinor;
}
// A version the server reports (/version's gitVersion) made one this project reproduces: an older minor
// as the oldest, a newer one as the newest. `note` says what was done when it was clamped.
KubeVersion clamp_supported(KubeVersion v, std::string* note = nullptr);

// The changes, one per row of docs/kube-scheduler-differences.md, each named after what it changes.
namespace since {
// 1.27 PodTopologySpread: a constraint with `labelSelector: {}` counts no pods (PR #116607).
inline bool spread_empty_selector_counts_none(KubeVersion v) { return v.at_least(27); }
// 1.27 PodTopologySpread matchLabelKeys (beta, on).
inline bool spread_match_label_keys(KubeVersion v) { return v.at_least(27); }
// 1.27 PodTopologySpread minDomains (MinDomainsInPodTopologySpread beta, on; beta but off in 1.26).
inline bool spread_min_domains(KubeVersion v) { return v.at_least(27); }
// 1.27 preemption: a terminating pod on the nominated node holds a retry back only when its
// DisruptionTarget condition says the scheduler preempted it (PR #114623).
inline bool retry_waits_only_for_preemption_victims(KubeVersion v) { return v.at_least(27); }
// 1.28 NodeResourcesFit checks cpu, memory, ephemeral-storage only when the pod requests some.
inline bool fit_skips_unrequested_resources(KubeVersion v) { return v.at_least(28); }
// 1.28 the API has initContainers[].restartPolicy (SidecarContainers alpha): PodRequests counts such a
// container as a sidecar (component-helpers has no gate); before, the scheduler does not know the field.
inline bool restartable_init_containers(KubeVersion v) { return v.at_least(28); }
// 1.29 restartable init containers (sidecars) count in the pod's requests (beta, on): from here
// NodeResourcesFit no longer rejects a pod that has one.
inline bool sidecar_requests(KubeVersion v) { return v.at_least(29); }
// 1.30 ImageLocality scores init containers' images too.
inline bool image_locality_init_containers(KubeVersion v) { return v.at_least(30); }
// 1.29 preemption re-sorts the victims by priority when PDB-violating and non-violating ones mix
// (PR #128307: 1.32.0, and the 1.29, 1.30 and 1.31 patch releases from November 2024 on).
inline bool victims_resorted_by_priority(KubeVersion v) { return v.at_least(29); }
// 1.31 InterPodAffinity matchLabelKeys / mismatchLabelKeys (beta, on): merged into the terms' selectors.
inline bool affinity_match_label_keys(KubeVersion v) { return v.at_least(31); }
// 1.33 NodeResourcesBalancedAllocation skips best-effort pods (PR #130260).
inline bool balanced_skips_best_effort(KubeVersion v) { return v.at_least(33); }
// 1.33 in-place resize (beta, on): a node counts a pod's allocated resources.
inline bool allocated_resources(KubeVersion v) { return v.at_least(33); }
// 1.34 pod-level resources (beta, on): spec.resources replaces the containers' sum.
inline bool pod_level_resources(KubeVersion v) { return v.at_least(34); }
// 1.34 NodeResourcesFit: a request above the node's allocatable is UnschedulableAndUnresolvable.
inline bool fit_unresolvable_above_allocatable(KubeVersion v) { return v.at_least(34); }
// 1.36 NodeResourcesBalancedAllocation's formula (PR #135573).
inline bool balanced_allocation_delta_formula(KubeVersion v) { return v.at_least(36); }
// 1.36 extended resources backed by DRA devices (DRAExtendedResource, beta, on).
inline bool dra_extended_resources(KubeVersion v) { return v.at_least(36); }
// 1.33 (open bug, kubernetes issue #141781): an extender entry with nodeCacheCapable: false and a
// filterVerb makes NodeResourcesFit and NodeResourcesBalancedAllocation score every node it returns as
// idle. pkg/scheduler/extender.go HTTPExtender.Filter wraps the returned Node objects in new, empty
// NodeInfos, which Score reads since PR #130537 (before, Score looked the node up by name).
inline bool extender_filtered_nodes_score_idle(KubeVersion v) { return v.at_least(33); }
// 1.29 (PRs #122022, #122043-#122045; backported to 1.26.12, 1.27.9 and 1.28.5, which the minors'
// first releases here predate): a pod an extender rejected some nodes of is tagged with the
// pseudo-plugin "Extender" and moved by every cluster event.
inline bool extender_rejection_requeues(KubeVersion v) { return v.at_least(29); }
}  // namespace since

}  // namespace kext
