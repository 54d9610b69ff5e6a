#pragma once
// Inter-pod affinity terms as kube-scheduler matches them, shared by the InterPodAffinity filter and
// score: pkg/scheduler/framework/types.go (AffinityTerm, AffinityTerm.Matches, newAffinityTerm,
// getNamespacesFromPodAffinityTerm), pkg/scheduler/framework/plugins/interpodaffinity/plugin.go
// (mergeAffinityTermNamespacesIfNotEmpty, GetNamespaceLabelsSnapshot) and the topology-pair counts of
// filtering.go (topologyToMatchedTermCount).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "algorithms/kube_version.h"
#include "algorithms/model.h"
#include "algorithms/plugin.h"

namespace kext {

// The labels of the incoming pod's namespace, as an existing pod's namespaceSelector reads them
// (plugin.go GetNamespaceLabelsSnapshot, copied once per cycle).
struct NamespaceLabels {
  // False when the cluster's namespace labels are unknown (no ClusterView::namespace_labels): a
  // non-empty namespaceSelector then matches nothing, an empty one still every namespace.
  bool known = false;
  // Empty when the namespace is not in the cluster: kube-scheduler then matches against nil labels.
  Labels labels;
};

// The labels of namespace `ns` in `cluster` (unknown when cluster or its namespace labels are null).
NamespaceLabels namespace_labels_of(const ClusterView* cluster, std::string_view ns);

// A namespaceSelector as metav1.LabelSelectorAsSelector reads it: nil is labels.Nothing(), an empty
// selector labels.Everything().
bool namespace_selector_matches(const std::optional<LabelSelector>& selector, const NamespaceLabels& ns);

// Whether a term's matchLabelKeys / mismatchLabelKeys join its labelSelector. The scheduler never reads
// them: from 1.31 (MatchLabelKeysInPodAffinity beta, on) the API server merges them into the selector
// at creation (pod strategy applyMatchLabelKeysAndMismatchLabelKeys); before, it drops them (the gate
// off, or no such fields before 1.29). Merging here stands in for the API server for pods that carry
// them unmerged; merging again what it merged is harmless, the requirements are ANDed.
enum class LabelKeys { kIgnored, kMerged };
LabelKeys affinity_label_keys(KubeVersion v);  // since::affinity_match_label_keys

// framework.AffinityTerm: a PodAffinityTerm read against the pod that owns it.
struct AffinityTerm {
  // The term's labelSelector, with matchLabelKeys / mismatchLabelKeys merged as In / NotIn of the
  // owner's values when LabelKeys::kMerged. nullopt (nil): no pod.
  std::optional<LabelSelector> selector;
  // term.namespaces, or the owner's namespace when both namespaces and namespaceSelector are nil.
  std::vector<std::string> namespaces;
  // nullopt: labels.Nothing() (nil, or already merged into `namespaces`); empty: every namespace.
  std::optional<LabelSelector> namespace_selector;
  std::string topology_key;
  int32_t weight = 0;  // WeightedAffinityTerm.Weight; 0 for required terms

  // AffinityTerm.Matches: the pod's namespace is one of the term's, or the namespaceSelector matches
  // its namespace's labels, and the label selector matches the pod's labels.
  bool matches(const PodMeta& pod, const NamespaceLabels& ns) const;
};

// newAffinityTerm: `term` of `owner`, with `weight` for a preferred one.
AffinityTerm make_affinity_term(const PodMeta& owner, const PodAffinityTerm& term, LabelKeys keys,
                                int32_t weight = 0);

// mergeAffinityTermNamespacesIfNotEmpty: the incoming pod's non-empty namespaceSelector is resolved into
// `namespaces` once per cycle from the cluster's namespaces (none when their labels are unknown), so
// that its terms are then matched without namespace labels.
void merge_term_namespaces(AffinityTerm& term, const ClusterView* cluster);

// The incoming pod's terms, compiled (make_affinity_term) and merged (merge_term_namespaces).
std::vector<AffinityTerm> make_incoming_terms(const PodMeta& pod, std::span<const PodAffinityTerm> terms,
                                              const ClusterView* cluster, LabelKeys keys);
std::vector<AffinityTerm> make_incoming_terms(const PodMeta& pod,
                                              std::span<const WeightedPodAffinityTerm> terms,
                                              const ClusterView* cluster, LabelKeys keys);

// An existing pod's term against `pod` without compiling it: the same answer as
// make_affinity_term(owner, term, keys).matches(pod, ns), without copying its selectors for every
// existing pod of every request.
bool term_matches(const PodMeta& owner, const PodAffinityTerm& term, const PodMeta& pod,
                  const NamespaceLabels& ns, LabelKeys keys);

// filtering.go podMatchesAllAffinityTerms: false for no terms; the terms' namespaceSelectors are merged.
bool pod_matches_all_terms(std::span<const AffinityTerm> terms, const PodMeta& pod);

// A (topology key, value) pair looked up without building strings.
struct TopologyPairView {
  std::string_view key;
  std::string_view value;
  bool operator==(const TopologyPairView&) const = default;
};

struct TopologyPair {
  std::string key;
  std::string value;
  operator TopologyPairView() const { return {key, value}; }
};

struct TopologyPairHash {
  using is_transparent = void;
  size_t operator()(TopologyPairView p) const {
    const size_t h = std::hash<std::string_view>{}(p.key);
    return h ^ (std::hash<std::string_view>{}(p.value) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  }
};

struct TopologyPairEq {
  using is_transparent = void;
  bool operator()(TopologyPairView a, TopologyPairView b) const { return a == b; }
};

// filtering.go topologyToMatchedTermCount: counts by topology pair; an entry that drops to zero is
// removed, so that empty() means no pair counts (the checks read the map's length).
class TopologyCounts {
 public:
  bool empty() const { return counts_.empty(); }
  size_t size() const { return counts_.size(); }
  int64_t get(std::string_view key, std::string_view value) const;
  void add(std::string_view key, std::string_view value, int64_t delta);
  // topologyToMatchedTermCount.update: `delta` for the node's value of `topology_key`, if it has one.
  void add_for_node(const Node& node, const std::string& topology_key, int64_t delta);
  // updateWithAffinityTerms: when `pod` matches every one of `terms`, `delta` for each term's pair.
  void add_affinity_terms(std::span<const AffinityTerm> terms, const PodMeta& pod, const Node& node,
                          int64_t delta);
  // updateWithAntiAffinityTerms for the incoming pod's (merged) terms: `delta` for each term `pod`
  // matches.
  void add_anti_affinity_terms(std::span<const AffinityTerm> terms, const PodMeta& pod, const Node& node,
                               int64_t delta);
  // updateWithAntiAffinityTerms for an existing pod's required anti-affinity terms against the
  // incoming pod `pod` in namespace `ns`.
  void add_existing_anti_affinity_terms(const PodMeta& owner, const PodMeta& pod, const NamespaceLabels& ns,
                                        LabelKeys keys, const Node& node, int64_t delta);

 private:
  std::unordered_map<TopologyPair, int64_t, TopologyPairHash, TopologyPairEq> counts_;
};

}  // namespace kext
