#include "algorithms/filters/pod_topology_spread.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "algorithms/topology_spread.h"

namespace kext {
namespace {

// filtering.go criticalPaths: the two domains with the fewest matching pods, [0] always holding the
// minimum count. Only two are kept because preemption changes one node at a time on its own copy of the
// state; the same update rule is kept so that a state updated by add_pod/remove_pod reads the minimum
// kube-scheduler reads, including where two paths are not enough to know the true one.
struct CriticalPaths {
  struct Path {
    std::string value;
    int64_t num = std::numeric_limits<int32_t>::max();  // newCriticalPaths: MaxInt32
  };
  std::array<Path, 2> p;

  // filtering.go criticalPaths.update.
  void update(const std::string& value, int64_t num) {
    int i = -1;
    if (value == p[0].value) {
      i = 0;
    } else if (value == p[1].value) {
      i = 1;
    }
    if (i >= 0) {
      p[static_cast<size_t>(i)].num = num;
      if (p[0].num > p[1].num) std::swap(p[0], p[1]);
    } else if (num < p[0].num) {
      p[1] = p[0];
      p[0] = Path{value, num};
    } else if (num < p[1].num) {
      p[1] = Path{value, num};
    }
  }
};

// filtering.go preFilterState.
class SpreadFilterState final : public FilterState {
 public:
  // Shared between clones: they never change after PreFilter.
  std::shared_ptr<const std::vector<SpreadConstraint>> constraints;
  std::vector<CriticalPaths> paths;                              // per constraint
  std::vector<std::unordered_map<std::string, int64_t>> counts;  // per constraint: domain -> matching pods

  std::unique_ptr<FilterState> clone() const override { return std::make_unique<SpreadFilterState>(*this); }
  void add_pod(const PodContext& preemptor, const PodInfo& pod, const NodeInfo& node) override {
    update_with_pod(preemptor, pod, node, 1);
  }
  void remove_pod(const PodContext& preemptor, const PodInfo& pod, const NodeInfo& node) override {
    update_with_pod(preemptor, pod, node, -1);
  }

  // filtering.go preFilterState.minMatchNum: the global minimum, 0 while fewer than minDomains domains
  // are eligible (never with min_domains 0, where minDomains is not read).
  int64_t min_match(size_t i, int32_t min_domains) const {
    if (counts[i].size() < static_cast<size_t>(std::max<int32_t>(min_domains, 0))) return 0;
    return paths[i].p[0].num;
  }

 private:
  // filtering.go updateWithPod.
  void update_with_pod(const PodContext& preemptor, const PodInfo& pod, const NodeInfo& node, int64_t delta) {
    if (!constraints || !pod.pod || !node.node) return;
    if (pod.pod->namespace_ != preemptor.pod.namespace_) return;
    const Node& n = *node.node;
    if (!node_has_all_topology_keys(n, *constraints)) return;
    const NodeInclusion inclusion(preemptor.pod, n);
    for (size_t i = 0; i < constraints->size(); ++i) {
      const SpreadConstraint& c = (*constraints)[i];
      if (!spread_selector_matches(c, pod.pod->labels.get())) continue;
      if (!inclusion.includes(c)) continue;
      const std::string& value = n.labels.find(c.topology_key)->second;
      int64_t& count = counts[i][value];
      count += delta;
      paths[i].update(value, count);
    }
  }
};

// The cluster's label index when it shows that every one of its `nodes` is eligible for every
// constraint: each node has every topology key, and neither inclusion policy can leave a node out
// (the pod has no nodeSelector or required node affinity, or the policy ignores them; taints are
// ignored). nullptr otherwise: the nodes are read one by one.
const NodeLabelIndex* every_node_counts(const PodContext& pod, std::span<const SpreadConstraint> constraints,
                                        size_t nodes) {
  const NodeLabelIndex* index = pod.cluster != nullptr ? pod.cluster->node_labels : nullptr;
  if (index == nullptr) return nullptr;
  const Pod& p = pod.pod;
  const bool affinity_free = p.node_selector.empty() && !(p.node_affinity && p.node_affinity->required);
  for (const SpreadConstraint& c : constraints) {
    if (c.honor_node_taints || (c.honor_node_affinity && !affinity_free)) return nullptr;
    auto it = index->find(c.topology_key);
    if (it == index->end() || it->second.nodes != nodes) return nullptr;
  }
  return index;
}

class PodTopologySpreadFilter final : public FilterPlugin {
 public:
  PodTopologySpreadFilter(TopologySpreadArgs args, KubeVersion version)
      : args_(std::move(args)), rules_(version) {}
  std::string_view name() const override { return kPodTopologySpreadPlugin; }
  bool reads_cluster() const override { return true; }
  // check() per node once PreFilter has run: bench/topology_bench.cc BM_TopologyPluginCost (two
  // constraints). PreFilter itself is per request (BM_TopologyRequest).
  uint64_t cost_per_node_ns() const override { return 40; }

  // PreFilter returns Skip for a pod without DoNotSchedule constraints.
  bool can_fail(const PodContext& pod) const override {
    if (const auto* s = static_cast<const SpreadFilterState*>(pod.state_of(this)))
      return s->constraints && !s->constraints->empty();
    return !build_spread_constraints(pod.pod, pod.cluster, args_, rules_, kDoNotSchedule).empty();
  }

  // A copy placed anywhere counts in its domain against the next copy's skew.
  bool counts_other_nodes(const PodContext& pod) const override { return can_fail(pod); }

  // filtering.go calPreFilterState, over every node of the cluster.
  std::unique_ptr<FilterState> pre_filter(const PodContext& pod,
                                          std::span<const NodeInfo* const> nodes) const override {
    auto state = std::make_unique<SpreadFilterState>();
    auto constraints = std::make_shared<std::vector<SpreadConstraint>>(
        build_spread_constraints(pod.pod, pod.cluster, args_, rules_, kDoNotSchedule));
    const size_t n_constraints = constraints->size();
    state->constraints = constraints;
    state->paths.resize(n_constraints);
    state->counts.resize(n_constraints);
    if (n_constraints == 0) return state;
    const std::span<const NodeInfo* const> all = pod.cluster != nullptr ? pod.cluster->nodes : nodes;
    // Every eligible node makes its domain exist, with no matching pod too: minDomains counts them.
    // The same test again for the nodes of the matching pods only (far fewer than the nodes), rather
    // than a per-node table: its allocations were most of PreFilter at 5,000 nodes (perf,
    // bench/topology_bench.cc BM_TopologyRequest).
    auto domain = [&](const Node& node, size_t i) -> const std::string* {
      if (!node_has_all_topology_keys(node, *constraints)) return nullptr;
      if (!NodeInclusion(pod.pod, node).includes((*constraints)[i])) return nullptr;
      return &node.labels.find((*constraints)[i].topology_key)->second;
    };
    if (const NodeLabelIndex* index = every_node_counts(pod, *constraints, all.size())) {
      // Every node is eligible: the domains are every value of each key.
      for (size_t i = 0; i < n_constraints; ++i)
        for (const auto& [value, nodes_with] : index->at((*constraints)[i].topology_key).values)
          state->counts[i].try_emplace(value, 0);
    } else {
      for (const NodeInfo* info : all) {
        if (info == nullptr || !info->node) continue;
        const Node& node = *info->node;
        if (!node_has_all_topology_keys(node, *constraints)) continue;
        const NodeInclusion inclusion(pod.pod, node);
        for (size_t i = 0; i < n_constraints; ++i) {
          const SpreadConstraint& c = (*constraints)[i];
          if (inclusion.includes(c))
            state->counts[i].try_emplace(node.labels.find(c.topology_key)->second, 0);
        }
      }
    }
    for_each_spread_match(pod.cluster, all, *constraints, pod.pod.namespace_,
                          [&](size_t i, const NodeInfo& node) {
                            if (!node.node) return;
                            if (const std::string* value = domain(*node.node, i)) ++state->counts[i][*value];
                          });
    for (size_t i = 0; i < n_constraints; ++i)
      for (const auto& [value, num] : state->counts[i]) state->paths[i].update(value, num);
    return state;
  }

  // filtering.go Filter: one label lookup and one count lookup per constraint.
  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    const auto* s = static_cast<const SpreadFilterState*>(pod.state_of(this));
    if (s == nullptr) {
      // PreFilter did not run: kube-scheduler fails with an error status, which no preemption resolves.
      if (build_spread_constraints(pod.pod, pod.cluster, args_, rules_, kDoNotSchedule).empty())
        return FilterCode::kSuccess;
      reasons.push_back("reading \"PreFilterPodTopologySpread\" from cycleState: not found");
      return FilterCode::kUnresolvable;
    }
    if (!s->constraints || s->constraints->empty()) return FilterCode::kSuccess;
    const Labels& node_labels = node.node->labels;
    const Labels& pod_labels = pod.pod.labels.get();
    for (size_t i = 0; i < s->constraints->size(); ++i) {
      const SpreadConstraint& c = (*s->constraints)[i];
      auto label = node_labels.find(c.topology_key);
      if (label == node_labels.end()) {
        reasons.emplace_back(kSpreadNodeLabelNotMatch);
        return FilterCode::kUnresolvable;
      }
      const int64_t min_match = s->min_match(i, c.min_domains);
      const int64_t self_match = spread_selector_matches(c, pod_labels) ? 1 : 0;
      auto count = s->counts[i].find(label->second);
      const int64_t match_num = count == s->counts[i].end() ? 0 : count->second;
      if (match_num + self_match - min_match > c.max_skew) {
        reasons.emplace_back(kSpreadConstraintsNotMatch);
        return FilterCode::kUnschedulable;
      }
    }
    return FilterCode::kSuccess;
  }

 private:
  TopologySpreadArgs args_;
  SpreadRules rules_;
};

}  // namespace

std::unique_ptr<FilterPlugin> make_pod_topology_spread_filter(const TopologySpreadArgs& args,
                                                              KubeVersion version) {
  return std::make_unique<PodTopologySpreadFilter>(args, version);
}

}  // namespace kext
