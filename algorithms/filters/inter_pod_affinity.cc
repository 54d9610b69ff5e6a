#include "algorithms/filters/inter_pod_affinity.h"

#include <string>
#include <vector>

#include "algorithms/pod_affinity.h"
#include "algorithms/pod_groups.h"

namespace kext {
namespace {

// filtering.go preFilterState.
class InterPodAffinityState final : public FilterState {
 public:
  std::unique_ptr<FilterState> clone() const override {
    return std::make_unique<InterPodAffinityState>(*this);
  }
  // filtering.go AddPod / RemovePod: preFilterState.updateWithPod with multiplier 1 / -1.
  void add_pod(const PodContext& preemptor, const PodInfo& pod, const NodeInfo& node) override {
    update(preemptor.pod, pod, node, 1);
  }
  void remove_pod(const PodContext& preemptor, const PodInfo& pod, const NodeInfo& node) override {
    update(preemptor.pod, pod, node, -1);
  }

  // updateWithPod: `pod` joins (delta 1) or leaves (-1) `node`.
  void update(const Pod& incoming, const PodInfo& pod, const NodeInfo& node, int64_t delta) {
    // A plugin whose PreFilter returned Skip has its AddPod / RemovePod skipped too
    // (runtime/framework.go RunPreFilterExtensionAddPod reads SkipFilterPlugins).
    if (skip || !pod.pod || !node.node) return;
    existing_anti_affinity.add_existing_anti_affinity_terms(*pod.pod, incoming, namespace_labels, label_keys,
                                                            *node.node, delta);
    affinity.add_affinity_terms(required_affinity, *pod.pod, *node.node, delta);
    anti_affinity.add_anti_affinity_terms(required_anti_affinity, *pod.pod, *node.node, delta);
  }

  // PreFilter returned Skip: the pod has no required terms and no existing pod's required
  // anti-affinity term matches it; the filter passes every node.
  bool skip = false;
  LabelKeys label_keys = LabelKeys::kMerged;  // the plugin's, for AddPod / RemovePod
  // The incoming pod's required terms, namespaceSelectors merged.
  std::vector<AffinityTerm> required_affinity;
  std::vector<AffinityTerm> required_anti_affinity;
  // The incoming pod's namespace's labels, for the existing pods' namespaceSelectors.
  NamespaceLabels namespace_labels;
  // existingAntiAffinityCounts, affinityCounts, antiAffinityCounts.
  TopologyCounts existing_anti_affinity;
  TopologyCounts affinity;
  TopologyCounts anti_affinity;
};

// PreFilter: one walk over the cluster's pods. The pods without affinity (most) cost a null check
// unless the incoming pod has required terms to match them against.
std::unique_ptr<InterPodAffinityState> build_state(const PodContext& ctx,
                                                   std::span<const NodeInfo* const> nodes, LabelKeys keys) {
  auto s = std::make_unique<InterPodAffinityState>();
  s->label_keys = keys;
  const Pod& pod = ctx.pod;
  if (pod.affinity) {
    s->required_affinity = make_incoming_terms(pod, pod.affinity->required_affinity, ctx.cluster, keys);
    s->required_anti_affinity =
        make_incoming_terms(pod, pod.affinity->required_anti_affinity, ctx.cluster, keys);
  }
  s->namespace_labels = namespace_labels_of(ctx.cluster, pod.namespace_);
  const bool has_terms = !s->required_affinity.empty() || !s->required_anti_affinity.empty();
  // The topology keys of what a group's pods add, worked out once per group: whether a term matches
  // depends only on the namespace, labels and terms its pods share (pod_groups.h).
  std::vector<const std::string*> existing_keys, affinity_keys, anti_keys;
  const NamespaceLabels merged;  // the incoming pod's terms have their namespaceSelector merged
  visit_pod_groups(
      ctx.cluster != nullptr ? ctx.cluster->pod_groups : nullptr, nodes,
      [&](const PodMeta& existing) {
        existing_keys.clear();
        affinity_keys.clear();
        anti_keys.clear();
        // getExistingAntiAffinityCounts: NodeInfo.PodsWithRequiredAntiAffinity, terminating or not.
        if (existing.affinity) {
          for (const auto& t : existing.affinity->required_anti_affinity)
            if (term_matches(existing, t, pod, s->namespace_labels, keys))
              existing_keys.push_back(&t.topology_key);
        }
        // getIncomingAffinityAntiAffinityCounts: every pod of the node.
        if (has_terms) {
          if (pod_matches_all_terms(s->required_affinity, existing))
            for (const auto& t : s->required_affinity) affinity_keys.push_back(&t.topology_key);
          for (const auto& t : s->required_anti_affinity)
            if (t.matches(existing, merged)) anti_keys.push_back(&t.topology_key);
        }
        return !existing_keys.empty() || !affinity_keys.empty() || !anti_keys.empty();
      },
      [&](const PodInfo&, const NodeInfo& info) {
        if (!info.node) return;
        const Node& node = *info.node;
        for (const std::string* k : existing_keys) s->existing_anti_affinity.add_for_node(node, *k, 1);
        for (const std::string* k : affinity_keys) s->affinity.add_for_node(node, *k, 1);
        for (const std::string* k : anti_keys) s->anti_affinity.add_for_node(node, *k, 1);
      });
  s->skip = s->existing_anti_affinity.empty() && !has_terms;
  return s;
}

// satisfyPodAffinity.
bool satisfies_pod_affinity(const InterPodAffinityState& s, const Pod& pod, const Node& node) {
  bool pods_exist = true;
  for (const auto& term : s.required_affinity) {
    auto it = node.labels.find(term.topology_key);
    // Every topology key must be on the node, even for the first pod of a self-affine series.
    if (it == node.labels.end()) return false;
    if (s.affinity.get(term.topology_key, it->second) <= 0) pods_exist = false;
  }
  if (pods_exist) return true;
  // The first pod of a series with affinity to itself: allowed when no pod in the cluster matches the
  // terms and the pod matches its own terms.
  return s.affinity.empty() && pod_matches_all_terms(s.required_affinity, pod);
}

// satisfyPodAntiAffinity.
bool satisfies_pod_anti_affinity(const InterPodAffinityState& s, const Node& node) {
  if (s.anti_affinity.empty()) return true;
  for (const auto& term : s.required_anti_affinity) {
    auto it = node.labels.find(term.topology_key);
    if (it != node.labels.end() && s.anti_affinity.get(term.topology_key, it->second) > 0) return false;
  }
  return true;
}

// satisfyExistingPodsAntiAffinity: any of the node's label pairs. Reading the node's labels rather than
// the map keeps it O(labels) whatever the number of existing terms.
bool satisfies_existing_pods_anti_affinity(const InterPodAffinityState& s, const Node& node) {
  if (s.existing_anti_affinity.empty()) return true;
  for (const auto& [key, value] : node.labels) {
    if (s.existing_anti_affinity.get(key, value) > 0) return false;
  }
  return true;
}

class InterPodAffinity final : public FilterPlugin {
 public:
  explicit InterPodAffinity(KubeVersion version) : label_keys_(affinity_label_keys(version)) {}
  std::string_view name() const override { return kInterPodAffinityPlugin; }

  // PreFilter's Skip (no required terms, no existing pod's anti-affinity against this pod) leaves the
  // filter out of the request. Without a state (not prepared) it cannot know: it may fail.
  bool can_fail(const PodContext& pod) const override {
    const auto* s = static_cast<const InterPodAffinityState*>(pod.state_of(this));
    return s == nullptr || !s->skip;
  }

  bool reads_cluster() const override { return true; }
  // The pod's own required terms count the pods of a domain, copies of it included. Existing pods'
  // anti-affinity against it does not change as copies (which carry no terms) are placed.
  bool counts_other_nodes(const PodContext& pod) const override {
    const auto& rules = pod.pod.affinity;
    return rules && (!rules->required_affinity.empty() || !rules->required_anti_affinity.empty());
  }
  // check() per node once PreFilter has run: bench/topology_bench.cc BM_TopologyPluginCost (one
  // required anti-affinity term, existing pods' terms against the node's labels).
  uint64_t cost_per_node_ns() const override { return 133; }

  std::unique_ptr<FilterState> pre_filter(const PodContext& pod,
                                          std::span<const NodeInfo* const> nodes) const override {
    return build_state(pod, pod.cluster != nullptr ? pod.cluster->nodes : nodes, label_keys_);
  }

  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    // The engine hands each plugin the state its own pre_filter returned. A caller that did not prepare
    // the pod gets one worked out here, from the cluster when there is one, else from this node alone.
    const auto* s = static_cast<const InterPodAffinityState*>(pod.state_of(this));
    std::unique_ptr<InterPodAffinityState> own;
    if (s == nullptr) {
      const NodeInfo* self[] = {&node};
      own = build_state(pod,
                        pod.cluster != nullptr ? pod.cluster->nodes : std::span<const NodeInfo* const>(self),
                        label_keys_);
      s = own.get();
    }
    if (s->skip || !node.node) return FilterCode::kSuccess;
    const Node& n = *node.node;
    // filtering.go Filter: affinity first (UnschedulableAndUnresolvable: evicting pods cannot bring a
    // matching one), then the two anti-affinity checks (Unschedulable: preemption may help).
    if (!satisfies_pod_affinity(*s, pod.pod, n)) {
      reasons.emplace_back(kErrReasonAffinityRulesNotMatch);
      return FilterCode::kUnresolvable;
    }
    if (!satisfies_pod_anti_affinity(*s, n)) {
      reasons.emplace_back(kErrReasonAntiAffinityRulesNotMatch);
      return FilterCode::kUnschedulable;
    }
    if (!satisfies_existing_pods_anti_affinity(*s, n)) {
      reasons.emplace_back(kErrReasonExistingAntiAffinityRulesNotMatch);
      return FilterCode::kUnschedulable;
    }
    return FilterCode::kSuccess;
  }

 private:
  LabelKeys label_keys_;
};

}  // namespace

std::unique_ptr<FilterPlugin> make_inter_pod_affinity_filter(const InterPodAffinityArgs& /*args*/,
                                                             KubeVersion version) {
  return std::make_unique<InterPodAffinity>(version);
}

}  // namespace kext
