#include "algorithms/pod_affinity.h"

#include <algorithm>

#include "algorithms/label_selector.h"

namespace kext {
namespace {

// getNamespacesFromPodAffinityTerm: the owner's own namespace only when both the namespaces list and
// the namespaceSelector are nil.
bool in_term_namespaces(const PodAffinityTerm& term, std::string_view owner_ns, std::string_view ns) {
  if (term.namespaces.empty() && !term.namespace_selector) return owner_ns == ns;
  return contains_value(term.namespaces, ns);
}

// The requirements matchLabelKeys / mismatchLabelKeys add for `owner` hold for `labels`. A key the
// owner has no label for adds nothing (applyMatchLabelKeysAndMismatchLabelKeys).
bool label_keys_match(const PodAffinityTerm& term, const Labels& owner, const Labels& labels) {
  for (const auto& key : term.match_label_keys) {
    auto o = owner.find(key);
    if (o == owner.end()) continue;
    auto l = labels.find(key);
    if (l == labels.end() || l->second != o->second) return false;  // In [value]
  }
  for (const auto& key : term.mismatch_label_keys) {
    auto o = owner.find(key);
    if (o == owner.end()) continue;
    auto l = labels.find(key);
    if (l != labels.end() && l->second == o->second) return false;  // NotIn [value]
  }
  return true;
}

}  // namespace

LabelKeys affinity_label_keys(KubeVersion v) {
  return since::affinity_match_label_keys(v) ? LabelKeys::kMerged : LabelKeys::kIgnored;
}

NamespaceLabels namespace_labels_of(const ClusterView* cluster, std::string_view ns) {
  NamespaceLabels out;
  if (cluster == nullptr || cluster->namespace_labels == nullptr) return out;
  out.known = true;
  auto it = cluster->namespace_labels->find(ns);
  if (it != cluster->namespace_labels->end()) out.labels = it->second;
  return out;
}

bool namespace_selector_matches(const std::optional<LabelSelector>& selector, const NamespaceLabels& ns) {
  if (!selector) return false;
  if (label_selector_is_empty(*selector)) return true;
  return ns.known && label_selector_matches(*selector, ns.labels);
}

bool AffinityTerm::matches(const PodMeta& pod, const NamespaceLabels& ns) const {
  if (!contains_value(namespaces, pod.namespace_) && !namespace_selector_matches(namespace_selector, ns)) {
    return false;
  }
  return selector && label_selector_matches(*selector, pod.labels);
}

AffinityTerm make_affinity_term(const PodMeta& owner, const PodAffinityTerm& term, LabelKeys keys,
                                int32_t weight) {
  AffinityTerm out;
  out.selector = term.label_selector;
  if (out.selector && keys == LabelKeys::kMerged) {
    // A nil selector stays nil: it matches no pod whatever keys are merged into it.
    for (const auto& key : term.match_label_keys) {
      auto it = owner.labels.find(key);
      if (it != owner.labels.end()) out.selector->match_expressions.push_back({key, "In", {it->second}});
    }
    for (const auto& key : term.mismatch_label_keys) {
      auto it = owner.labels.find(key);
      if (it != owner.labels.end()) out.selector->match_expressions.push_back({key, "NotIn", {it->second}});
    }
  }
  if (term.namespaces.empty() && !term.namespace_selector) {
    out.namespaces.push_back(owner.namespace_);
  } else {
    out.namespaces = term.namespaces;
  }
  out.namespace_selector = term.namespace_selector;
  out.topology_key = term.topology_key;
  out.weight = weight;
  return out;
}

void merge_term_namespaces(AffinityTerm& term, const ClusterView* cluster) {
  // An empty selector (labels.Everything) is left as it is: it matches every namespace.
  if (!term.namespace_selector || label_selector_is_empty(*term.namespace_selector)) return;
  if (cluster != nullptr && cluster->namespace_labels != nullptr) {
    for (const auto& [name, labels] : *cluster->namespace_labels) {
      if (label_selector_matches(*term.namespace_selector, labels) &&
          !contains_value(term.namespaces, name)) {
        term.namespaces.push_back(name);
      }
    }
  }
  term.namespace_selector.reset();  // labels.Nothing()
}

std::vector<AffinityTerm> make_incoming_terms(const PodMeta& pod, std::span<const PodAffinityTerm> terms,
                                              const ClusterView* cluster, LabelKeys keys) {
  std::vector<AffinityTerm> out;
  out.reserve(terms.size());
  for (const auto& t : terms) {
    out.push_back(make_affinity_term(pod, t, keys));
    merge_term_namespaces(out.back(), cluster);
  }
  return out;
}

std::vector<AffinityTerm> make_incoming_terms(const PodMeta& pod,
                                              std::span<const WeightedPodAffinityTerm> terms,
                                              const ClusterView* cluster, LabelKeys keys) {
  std::vector<AffinityTerm> out;
  out.reserve(terms.size());
  for (const auto& t : terms) {
    out.push_back(make_affinity_term(pod, t.term, keys, t.weight));
    merge_term_namespaces(out.back(), cluster);
  }
  return out;
}

bool term_matches(const PodMeta& owner, const PodAffinityTerm& term, const PodMeta& pod,
                  const NamespaceLabels& ns, LabelKeys keys) {
  if (!in_term_namespaces(term, owner.namespace_, pod.namespace_) &&
      !namespace_selector_matches(term.namespace_selector, ns)) {
    return false;
  }
  return term.label_selector && label_selector_matches(*term.label_selector, pod.labels) &&
         (keys == LabelKeys::kIgnored || label_keys_match(term, owner.labels, pod.labels));
}

bool pod_matches_all_terms(std::span<const AffinityTerm> terms, const PodMeta& pod) {
  if (terms.empty()) return false;
  // The incoming pod's namespaceSelectors are merged into its namespaces: no namespace labels needed.
  const NamespaceLabels none;
  return std::all_of(terms.begin(), terms.end(), [&](const AffinityTerm& t) { return t.matches(pod, none); });
}

int64_t TopologyCounts::get(std::string_view key, std::string_view value) const {
  auto it = counts_.find(TopologyPairView{key, value});
  return it == counts_.end() ? 0 : it->second;
}

void TopologyCounts::add(std::string_view key, std::string_view value, int64_t delta) {
  auto it = counts_.find(TopologyPairView{key, value});
  if (it == counts_.end()) {
    if (delta != 0) counts_.emplace(TopologyPair{std::string(key), std::string(value)}, delta);
    return;
  }
  it->second += delta;
  // A removal can bring a pair down to zero: drop it, as topologyToMatchedTermCount.update does.
  if (it->second == 0) counts_.erase(it);
}

void TopologyCounts::add_for_node(const Node& node, const std::string& topology_key, int64_t delta) {
  auto it = node.labels.find(topology_key);
  if (it != node.labels.end()) add(topology_key, it->second, delta);
}

void TopologyCounts::add_affinity_terms(std::span<const AffinityTerm> terms, const PodMeta& pod,
                                        const Node& node, int64_t delta) {
  if (!pod_matches_all_terms(terms, pod)) return;
  for (const auto& t : terms) add_for_node(node, t.topology_key, delta);
}

void TopologyCounts::add_anti_affinity_terms(std::span<const AffinityTerm> terms, const PodMeta& pod,
                                             const Node& node, int64_t delta) {
  const NamespaceLabels none;  // merged, as in pod_matches_all_terms
  for (const auto& t : terms) {
    if (t.matches(pod, none)) add_for_node(node, t.topology_key, delta);
  }
}

void TopologyCounts::add_existing_anti_affinity_terms(const PodMeta& owner, const PodMeta& pod,
                                                      const NamespaceLabels& ns, LabelKeys keys,
                                                      const Node& node, int64_t delta) {
  if (!owner.affinity) return;
  for (const auto& t : owner.affinity->required_anti_affinity) {
    if (term_matches(owner, t, pod, ns, keys)) add_for_node(node, t.topology_key, delta);
  }
}

}  // namespace kext
