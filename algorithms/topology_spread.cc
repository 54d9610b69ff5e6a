#include "algorithms/topology_spread.h"

#include <algorithm>

#include "algorithms/label_selector.h"
#include "algorithms/node_selector.h"
#include "algorithms/taints.h"

namespace kext {
namespace {

// The workload of `kind` named `name` in namespace `ns`, or nullptr (a lister's Get that failed).
const WorkloadSelector* find_workload(std::span<const WorkloadSelector> objects, std::string_view ns,
                                      std::string_view name) {
  for (const auto& w : objects)
    if (w.namespace_ == ns && w.name == name) return &w;
  return nullptr;
}

// labels.Merge(into, from): from's values win on a shared key.
void merge_labels(Labels& into, const Labels& from) {
  for (const auto& [k, v] : from) into.insert_or_assign(k, v);
}

// metav1.LabelSelectorAsSelector(...).Requirements(): matchLabels become `key In [value]`, then the
// expressions. An invalid selector adds nothing (DefaultSelector ignores the conversion error).
void add_requirements(std::vector<SelectorRequirement>& out, const LabelSelector& s) {
  if (!label_selector_valid(s)) return;
  for (const auto& [k, v] : s.match_labels) out.push_back({k, "In", {v}});
  for (const auto& r : s.match_expressions) out.push_back(r);
}

// common.go filterTopologySpreadConstraints for one constraint.
SpreadConstraint resolve(const TopologySpreadConstraint& c, const Labels& pod_labels,
                         const SpreadRules& rules) {
  SpreadConstraint out;
  out.max_skew = c.max_skew;
  out.topology_key = c.topology_key;
  out.selector = c.label_selector;
  // common.go mergeLabelSetWithSelector: the pod's values of matchLabelKeys join the selector as
  // requirements; a nil selector (labels.Nothing, whose Requirements() is not ok) stays nil. From 1.34
  // the API server merges them into labelSelector at creation as well: the same requirement twice is
  // the same selector, as it is upstream, whose scheduler still merges.
  if (out.selector && rules.match_label_keys) {
    for (const auto& key : c.match_label_keys) {
      auto it = pod_labels.find(key);
      if (it != pod_labels.end()) out.selector->match_expressions.push_back({key, "In", {it->second}});
    }
  }
  out.counts_existing_pods =
      !(rules.empty_selector_counts_none && out.selector && label_selector_is_empty(*out.selector));
  out.min_domains = rules.min_domains ? c.min_domains.value_or(1) : 0;
  // The comparisons are `== Honor`, so an unset policy takes its default and any other value is Ignore.
  out.honor_node_affinity = c.node_affinity_policy.empty() || c.node_affinity_policy == "Honor";
  out.honor_node_taints = c.node_taints_policy == "Honor";
  return out;
}

std::vector<SpreadConstraint> filter_by_action(std::span<const TopologySpreadConstraint> constraints,
                                               const Labels& pod_labels, const SpreadRules& rules,
                                               std::string_view action) {
  std::vector<SpreadConstraint> out;
  for (const auto& c : constraints)
    if (c.when_unsatisfiable == action) out.push_back(resolve(c, pod_labels, rules));
  return out;
}

}  // namespace

SpreadRules::SpreadRules(KubeVersion v)
    : match_label_keys(since::spread_match_label_keys(v)),
      min_domains(since::spread_min_domains(v)),
      empty_selector_counts_none(since::spread_empty_selector_counts_none(v)) {}

std::optional<LabelSelector> default_spread_selector(const Pod& pod, const ClusterView* cluster) {
  if (cluster == nullptr) return std::nullopt;
  const Labels& pod_labels = pod.labels.get();
  // GetPodServices: the Services of the pod's namespace whose selector matches the pod's labels. Their
  // selectors all match the pod, so merging cannot conflict.
  Labels merged;
  for (const auto& svc : cluster->services) {
    if (svc.namespace_ != pod.namespace_) continue;
    LabelSelector as_set{svc.selector.match_labels, {}};
    if (label_selector_matches(as_set, pod_labels)) merge_labels(merged, svc.selector.match_labels);
  }
  std::vector<SelectorRequirement> extra;
  // The controller owner reference decides which one more object is read, by name in the pod's namespace.
  if (pod.controller_kind == "ReplicationController") {
    if (const auto* rc = find_workload(cluster->replication_controllers, pod.namespace_, pod.controller_name))
      merge_labels(merged, rc->selector.match_labels);
  } else if (pod.controller_kind == "ReplicaSet") {
    if (const auto* rs = find_workload(cluster->replica_sets, pod.namespace_, pod.controller_name))
      add_requirements(extra, rs->selector);
  } else if (pod.controller_kind == "StatefulSet") {
    if (const auto* ss = find_workload(cluster->stateful_sets, pod.namespace_, pod.controller_name))
      add_requirements(extra, ss->selector);
  }
  if (merged.empty() && extra.empty()) return std::nullopt;  // selector.Empty()
  LabelSelector out;
  out.match_labels = std::move(merged);
  out.match_expressions = std::move(extra);
  return out;
}

std::vector<SpreadConstraint> build_spread_constraints(const Pod& pod, const ClusterView* cluster,
                                                       const TopologySpreadArgs& args,
                                                       const SpreadRules& rules, std::string_view action) {
  const Labels& pod_labels = pod.labels.get();
  if (!pod.topology_spread_constraints.empty())
    return filter_by_action(pod.topology_spread_constraints, pod_labels, rules, action);
  // plugin.go New: SystemDefaulting replaces the list with systemDefaultConstraints.
  std::vector<SpreadConstraint> out;
  if (args.defaulting == SpreadDefaulting::kSystem) {
    out = filter_by_action(system_default_spread_constraints(), pod_labels, rules, action);
  } else {
    out = filter_by_action(args.default_constraints, pod_labels, rules, action);
  }
  if (out.empty()) return out;
  std::optional<LabelSelector> selector = default_spread_selector(pod, cluster);
  if (!selector) return {};  // never Empty() past here: those count their pods
  for (auto& c : out) {
    c.selector = *selector;
    c.counts_existing_pods = true;
  }
  return out;
}

bool node_has_all_topology_keys(const Node& node, std::span<const SpreadConstraint> constraints) {
  return std::all_of(constraints.begin(), constraints.end(), [&](const SpreadConstraint& c) {
    return node.labels.find(c.topology_key) != node.labels.end();
  });
}

NodeInclusion::NodeInclusion(const Pod& pod, const Node& node)
    : matches_affinity(match_required_affinity(pod, node)),
      tolerates_taints(first_untolerated_scheduling_taint(node.taints, pod.tolerations) == nullptr) {}

bool spread_selector_matches(const SpreadConstraint& c, const Labels& labels) {
  return c.selector && label_selector_matches(*c.selector, labels);
}

int64_t count_spread_matching_pods(const NodeInfo& node, const SpreadConstraint& c, std::string_view ns) {
  if (!c.selector || !c.counts_existing_pods) return 0;
  int64_t n = 0;
  for (const auto& info : node.pods) {
    const PodMeta& p = *info->pod;
    // Terminating pods are not counted (kubernetes#87621).
    if (p.terminating || p.namespace_ != ns) continue;
    if (label_selector_matches(*c.selector, p.labels.get())) ++n;
  }
  return n;
}

}  // namespace kext
