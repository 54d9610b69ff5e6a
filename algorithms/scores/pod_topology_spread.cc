#include "algorithms/scores/pod_topology_spread.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "algorithms/saturating.h"
#include "algorithms/topology_spread.h"

namespace kext {
namespace {

// The raw score of a node reduce() must give 0: one of kube-scheduler's IgnoredNodes, or every node when
// PreScore returned Skip (the plugin then adds nothing). Real raw scores are sums of non-negative terms
// for valid constraints (maxSkew >= 1), so the sentinel cannot collide with one.
inline constexpr int64_t kIgnoredNode = std::numeric_limits<int64_t>::min();

// scoring.go preScoreState, with every scored node's raw score worked out in prepare().
struct SpreadScorePrepared final : ScorePrepared {
  std::vector<SpreadConstraint> constraints;  // empty: PreScore Skip
  std::string namespace_;
  std::unordered_set<std::string> ignored;                       // IgnoredNodes
  std::vector<std::unordered_map<std::string, int64_t>> counts;  // TopologyValueToPodCounts
  // Hostname constraints: the matching pods of each scored node (its own domain), by name: a request
  // in full-node mode scores its own NodeInfos, which are not the cluster's.
  std::vector<std::unordered_map<std::string_view, int64_t>> host_counts;
  std::vector<double> weights;                    // TopologyNormalizingWeight
  std::vector<int64_t> node_scores;               // per node given to prepare()
  std::unordered_map<std::string, size_t> index;  // node name -> position there
};

bool is_hostname(const SpreadConstraint& c) { return c.topology_key == kHostnameLabel; }

// scoring.go topologyNormalizingWeight: log(size + 2).
double normalizing_weight(int64_t size) { return std::log(static_cast<double>(size + 2)); }

// scoring.go Score: the sum over the constraints whose key the node has of count · weight + maxSkew - 1,
// rounded; a hostname constraint counts the node's own pods.
int64_t node_score(const SpreadScorePrepared& p, const NodeInfo& info) {
  const Node& node = *info.node;
  if (p.ignored.contains(node.name)) return kIgnoredNode;
  double score = 0;
  for (size_t i = 0; i < p.constraints.size(); ++i) {
    const SpreadConstraint& c = p.constraints[i];
    auto label = node.labels.find(c.topology_key);
    if (label == node.labels.end()) continue;
    int64_t count = 0;
    if (is_hostname(c)) {
      auto it = p.host_counts[i].find(info.name());
      count = it != p.host_counts[i].end() ? it->second : count_spread_matching_pods(info, c, p.namespace_);
    } else if (auto it = p.counts[i].find(label->second); it != p.counts[i].end()) {
      count = it->second;
    }
    // scoreForCount, in its operation order (no contraction: the build passes -ffp-contract=off).
    score += static_cast<double>(count) * p.weights[i] + static_cast<double>(c.max_skew - 1);
  }
  return saturating_cast(std::round(score));  // int64(math.Round(score))
}

class PodTopologySpreadScore final : public ScorePlugin {
 public:
  PodTopologySpreadScore(TopologySpreadArgs args, KubeVersion version)
      : args_(std::move(args)), rules_(version) {}
  std::string_view name() const override { return kPodTopologySpreadPlugin; }
  bool reads_cluster() const override { return true; }
  // The map and reduce per node once prepare has run: bench/topology_bench.cc BM_TopologyPluginCost.
  uint64_t cost_per_node_ns() const override { return 8; }

  // scoring.go PreScore and initPreScoreState: `nodes` are the nodes being scored (filteredNodes), the
  // cluster view's nodes (or `nodes` without one) are allNodes.
  std::unique_ptr<ScorePrepared> prepare(const PodContext& pod,
                                         std::span<const NodeInfo* const> nodes) const override {
    auto prepared = std::make_unique<SpreadScorePrepared>();
    SpreadScorePrepared& p = *prepared;
    const std::span<const NodeInfo* const> all = pod.cluster != nullptr ? pod.cluster->nodes : nodes;
    if (all.empty()) return prepared;  // Skip: no need to score
    p.constraints = build_spread_constraints(pod.pod, pod.cluster, args_, rules_, kScheduleAnyway);
    if (p.constraints.empty()) return prepared;  // Skip
    p.namespace_ = pod.pod.namespace_;
    const size_t n_constraints = p.constraints.size();
    // Only the pod's own constraints and non-system defaults require every key, so that nodes without a
    // zone label still get hostname spreading.
    const bool require_all =
        !pod.pod.topology_spread_constraints.empty() || args_.defaulting != SpreadDefaulting::kSystem;

    // The domains of the scored nodes; a node missing a key is ignored. Without require_all a missing
    // label reads as "" there, as a Go map lookup does, and "" is then a domain of its own.
    p.counts.resize(n_constraints);
    std::vector<int64_t> topology_size(n_constraints, 0);
    for (const NodeInfo* info : nodes) {
      const Node& node = *info->node;
      if (require_all && !node_has_all_topology_keys(node, p.constraints)) {
        p.ignored.insert(node.name);
        continue;
      }
      for (size_t i = 0; i < n_constraints; ++i) {
        const SpreadConstraint& c = p.constraints[i];
        if (is_hostname(c)) continue;  // counted per node in Score
        auto label = node.labels.find(c.topology_key);
        if (p.counts[i].try_emplace(label == node.labels.end() ? std::string() : label->second, 0).second)
          ++topology_size[i];
      }
    }
    p.weights.resize(n_constraints);
    for (size_t i = 0; i < n_constraints; ++i) {
      const int64_t size = is_hostname(p.constraints[i])
                               ? static_cast<int64_t>(nodes.size()) - static_cast<int64_t>(p.ignored.size())
                               : topology_size[i];
      p.weights[i] = normalizing_weight(size);
    }

    // processAllNode: the matching pods of every node of the cluster, into the domains above only.
    // The matching pods come a group at a time (for_each_spread_match), and only their nodes are
    // asked whether they count: far fewer than the cluster's nodes.
    auto domain = [&](const Node& node, size_t i) -> int64_t* {
      const SpreadConstraint& c = p.constraints[i];
      if (p.counts[i].empty()) return nullptr;  // no domain at all
      if (require_all && !node_has_all_topology_keys(node, p.constraints)) return nullptr;
      if (!NodeInclusion(pod.pod, node).includes(c)) return nullptr;
      auto label = node.labels.find(c.topology_key);
      auto it = p.counts[i].find(label == node.labels.end() ? std::string() : label->second);
      return it == p.counts[i].end() ? nullptr : &it->second;
    };
    // A hostname constraint counts the scored node's own pods, whatever the inclusion policies.
    p.host_counts.resize(n_constraints);
    for (size_t i = 0; i < n_constraints; ++i)
      if (is_hostname(p.constraints[i]))
        for (const NodeInfo* info : nodes) p.host_counts[i].emplace(info->name(), 0);
    for_each_spread_match(pod.cluster, all, p.constraints, p.namespace_, [&](size_t i, const NodeInfo& node) {
      if (is_hostname(p.constraints[i])) {
        if (auto it = p.host_counts[i].find(node.name()); it != p.host_counts[i].end()) ++it->second;
        return;
      }
      if (!node.node) return;
      if (int64_t* count = domain(*node.node, i)) ++*count;
    });

    p.node_scores.reserve(nodes.size());
    p.index.reserve(nodes.size());
    for (size_t n = 0; n < nodes.size(); ++n) {
      p.node_scores.push_back(node_score(p, *nodes[n]));
      p.index.try_emplace(nodes[n]->node->name, n);
    }
    return prepared;
  }

  int64_t score(const PodContext&, const ScorePrepared* prepared, const NodeInfo& node) const override {
    // The engine hands each plugin what its own prepare() returned. Without one, nothing to add.
    const auto* p = static_cast<const SpreadScorePrepared*>(prepared);
    if (p == nullptr || p->constraints.empty()) return kIgnoredNode;
    if (auto it = p->index.find(node.node->name); it != p->index.end()) return p->node_scores[it->second];
    return node_score(*p, node);
  }

  int64_t score_at(const PodContext& pod, const ScorePrepared* prepared,
                   std::span<const NodeInfo* const> nodes, size_t i) const override {
    const auto* p = static_cast<const SpreadScorePrepared*>(prepared);
    if (p != nullptr && !p->constraints.empty() && p->node_scores.size() == nodes.size())
      return p->node_scores[i];
    return score(pod, prepared, *nodes[i]);
  }

  // scoring.go NormalizeScore.
  bool has_reduce() const override { return true; }
  void reduce(std::span<int64_t> scores) const override {
    int64_t min_score = std::numeric_limits<int64_t>::max();
    int64_t max_score = 0;
    for (int64_t s : scores) {
      if (s == kIgnoredNode) continue;
      min_score = std::min(min_score, s);
      max_score = std::max(max_score, s);
    }
    for (auto& s : scores) {
      if (s == kIgnoredNode) {
        s = 0;
      } else if (max_score == 0) {
        s = kMaxNodeScore;
      } else {
        // In 128 bits: max + min - s cannot wrap, nor the product with 100.
        s = saturate(
            div128(static_cast<__int128>(kMaxNodeScore) * (static_cast<__int128>(max_score) + min_score - s),
                   max_score));
      }
    }
  }

 private:
  TopologySpreadArgs args_;
  SpreadRules rules_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_pod_topology_spread_score(const TopologySpreadArgs& args,
                                                            KubeVersion version) {
  return std::make_unique<PodTopologySpreadScore>(args, version);
}

}  // namespace kext
