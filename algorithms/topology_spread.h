#pragma once
// What PodTopologySpread's filter and score share (pkg/scheduler/framework/plugins/podtopologyspread
// common.go, plugin.go, and helper/spread.go DefaultSelector): a pod's constraints as the plugin reads
// them, which nodes count, and how many pods of a node a constraint counts.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/kube_version.h"
#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "algorithms/plugin_args.h"
#include "algorithms/pod_groups.h"

namespace kext {

// plugin.go ErrReasonConstraintsNotMatch / ErrReasonNodeLabelNotMatch.
inline constexpr std::string_view kSpreadConstraintsNotMatch =
    "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view kSpreadNodeLabelNotMatch =
    "node(s) didn't match pod topology spread constraints (missing required label)";

inline constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
inline constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";

// What the plugin reads differently by release (kube_version.h since::), worked out once per plugin
// from its configured minor.
struct SpreadRules {
  bool match_label_keys = true;            // since::spread_match_label_keys
  bool min_domains = true;                 // since::spread_min_domains
  bool empty_selector_counts_none = true;  // since::spread_empty_selector_counts_none
  SpreadRules() = default;
  explicit SpreadRules(KubeVersion v);
};

// common.go topologySpreadConstraint: a constraint with its selector resolved (matchLabelKeys merged in,
// or the default selector) and its optional fields defaulted.
struct SpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  std::optional<LabelSelector> selector;  // nullopt: labels.Nothing(), matches no pod
  // minDomains, 1 when unset. 0 where the release does not read minDomains (the feature gate off): the
  // global minimum is then always the critical path's (filtering.go minMatchNum).
  int32_t min_domains = 1;
  bool honor_node_affinity = true;  // nodeAffinityPolicy Honor (the default)
  bool honor_node_taints = false;   // nodeTaintsPolicy Honor (default Ignore)
  // False for `labelSelector: {}` from 1.27: common.go countPodsMatchSelector returns 0 for a selector
  // that is Empty() (meant for a nil one, which is not), so PreFilter and PreScore count no existing pod
  // for it, while the pod itself and preemption's AddPod / RemovePod still match it.
  bool counts_existing_pods = true;
  bool operator==(const SpreadConstraint&) const = default;
};

// helper/spread.go DefaultSelector: the match_labels of every Service in the pod's namespace whose selector
// matches the pod, merged; the ReplicationController that controls the pod (by owner reference) merged in
// too; then the requirements of the ReplicaSet's or StatefulSet's selector that controls it. nullopt when
// that selector has no requirement at all (selector.Empty()), or there is no cluster view.
std::optional<LabelSelector> default_spread_selector(const Pod& pod, const ClusterView* cluster);

// The constraints with whenUnsatisfiable == action (filtering.go getConstraints, scoring.go
// initPreScoreState): the pod's own when it has any, else the defaults (common.go buildDefaultConstraints),
// which apply only when default_spread_selector finds one.
std::vector<SpreadConstraint> build_spread_constraints(const Pod& pod, const ClusterView* cluster,
                                                       const TopologySpreadArgs& args,
                                                       const SpreadRules& rules, std::string_view action);

// common.go nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key.
bool node_has_all_topology_keys(const Node& node, std::span<const SpreadConstraint> constraints);

// What the inclusion policies ask of one node, worked out once per node rather than per constraint
// (common.go matchNodeInclusionPolicies).
struct NodeInclusion {
  bool matches_affinity = false;  // nodeSelector + required node affinity match (GetRequiredNodeAffinity)
  bool tolerates_taints = false;  // no untolerated NoSchedule/NoExecute taint
  NodeInclusion(const Pod& pod, const Node& node);
  bool includes(const SpreadConstraint& c) const {
    return (!c.honor_node_affinity || matches_affinity) && (!c.honor_node_taints || tolerates_taints);
  }
};

// Selector.Matches for a constraint: nullopt (nil) matches nothing.
bool spread_selector_matches(const SpreadConstraint& c, const Labels& labels);

// common.go countPodsMatchSelector: the node's pods in namespace `ns`, not terminating, that the
// constraint's selector matches (none when it counts no existing pod).
int64_t count_spread_matching_pods(const NodeInfo& node, const SpreadConstraint& c, std::string_view ns);

// countPodsMatchSelector over the whole cluster at once: add(i, node) for every bound pod in namespace
// `ns`, not terminating, that constraint i's selector matches, with the node it is on (none for a
// constraint that counts no existing pod). The selectors
// are asked once per group of pods that share namespace and labels (pod_groups.h), not once per pod.
template <class Add>
void for_each_spread_match(const ClusterView* cluster, std::span<const NodeInfo* const> nodes,
                           std::span<const SpreadConstraint> constraints, std::string_view ns, Add&& add) {
  std::vector<size_t> matched;
  visit_pod_groups(
      cluster != nullptr ? cluster->pod_groups : nullptr, nodes,
      [&](const PodMeta& p) {
        matched.clear();
        if (p.namespace_ != ns) return false;
        for (size_t i = 0; i < constraints.size(); ++i)
          if (constraints[i].counts_existing_pods && spread_selector_matches(constraints[i], p.labels.get()))
            matched.push_back(i);
        return !matched.empty();
      },
      [&](const PodInfo& p, const NodeInfo& node) {
        // Terminating pods are not counted (kubernetes#87621).
        if (p.pod->terminating) return;
        for (size_t i : matched) add(i, node);
      });
}

}  // namespace kext
