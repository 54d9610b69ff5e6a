#include "algorithms/scores/inter_pod_affinity.h"

#include <algorithm>
#include <string>
#include <vector>

#include "algorithms/pod_affinity.h"
#include "algorithms/pod_groups.h"

namespace kext {
namespace {

// scoring.go preScoreState.topologyScore (topology key -> value -> score).
struct InterPodAffinityPrepared final : ScorePrepared {
  std::vector<std::string> keys;  // the distinct topology keys with a pair in `scores`
  TopologyCounts scores;

  // scoreMap.processTerm's addition, for the existing pod's node.
  void add(const Node& node, const std::string& topology_key, int64_t weight) {
    auto it = node.labels.find(topology_key);
    if (it == node.labels.end()) return;
    if (std::find(keys.begin(), keys.end(), topology_key) == keys.end()) keys.push_back(topology_key);
    scores.add(topology_key, it->second, weight);
  }
};

class InterPodAffinityScore final : public ScorePlugin {
 public:
  InterPodAffinityScore(const InterPodAffinityArgs& args, KubeVersion version)
      : args_(args), label_keys_(affinity_label_keys(version)) {}
  std::string_view name() const override { return "InterPodAffinity"; }

  bool reads_cluster() const override { return true; }
  // The map and reduce per node once prepare has run: bench/topology_bench.cc BM_TopologyPluginCost.
  uint64_t cost_per_node_ns() const override { return 63; }

  std::unique_ptr<ScorePrepared> prepare(const PodContext& ctx,
                                         std::span<const NodeInfo* const> nodes) const override {
    const Pod& pod = ctx.pod;
    const bool has_constraints = pod.affinity && (!pod.affinity->preferred_affinity.empty() ||
                                                  !pod.affinity->preferred_anti_affinity.empty());
    // PreScore's Skip: nothing to score, or the existing pods' terms are ignored and the pod has none.
    if (nodes.empty()) return nullptr;
    if (args_.ignore_preferred_terms_of_existing_pods && !has_constraints) return nullptr;

    auto prepared = std::make_unique<InterPodAffinityPrepared>();
    InterPodAffinityPrepared& p = *prepared;
    std::vector<AffinityTerm> preferred, preferred_anti;
    if (has_constraints) {
      preferred = make_incoming_terms(pod, pod.affinity->preferred_affinity, ctx.cluster, label_keys_);
      preferred_anti =
          make_incoming_terms(pod, pod.affinity->preferred_anti_affinity, ctx.cluster, label_keys_);
    }
    const NamespaceLabels ns = namespace_labels_of(ctx.cluster, pod.namespace_);
    const NamespaceLabels merged;  // the incoming pod's terms need no namespace labels

    // Every node of the cluster, not only those being scored: pods elsewhere count in shared
    // topologies. What a group's pods add (topology key, weight) is worked out once per group: it
    // depends only on the namespace, labels and terms they share (pod_groups.h).
    std::vector<std::pair<const std::string*, int64_t>> adds;
    visit_pod_groups(
        ctx.cluster != nullptr ? ctx.cluster->pod_groups : nullptr,
        ctx.cluster != nullptr ? ctx.cluster->nodes : nodes,
        [&](const PodMeta& existing) {
          adds.clear();
          // Without preferred terms of its own the pod is only scored against the pods with affinity
          // (NodeInfo.PodsWithAffinity).
          if (has_constraints) {
            for (const auto& t : preferred)
              if (t.matches(existing, merged)) adds.emplace_back(&t.topology_key, t.weight);
            for (const auto& t : preferred_anti)
              if (t.matches(existing, merged)) adds.emplace_back(&t.topology_key, -int64_t{t.weight});
          }
          if (existing.affinity) {
            const PodAffinityRules& rules = *existing.affinity;
            if (args_.hard_pod_affinity_weight > 0) {
              for (const auto& t : rules.required_affinity)
                if (term_matches(existing, t, pod, ns, label_keys_))
                  adds.emplace_back(&t.topology_key, args_.hard_pod_affinity_weight);
            }
            for (const auto& t : rules.preferred_affinity)
              if (term_matches(existing, t.term, pod, ns, label_keys_))
                adds.emplace_back(&t.term.topology_key, t.weight);
            for (const auto& t : rules.preferred_anti_affinity)
              if (term_matches(existing, t.term, pod, ns, label_keys_))
                adds.emplace_back(&t.term.topology_key, -int64_t{t.weight});
          }
          return !adds.empty();
        },
        [&](const PodInfo&, const NodeInfo& info) {
          // processExistingPod: a node without labels has no topology pairs.
          if (!info.node || info.node->labels.empty()) return;
          for (const auto& [key, weight] : adds) p.add(*info.node, *key, weight);
        });
    if (p.keys.empty()) return nullptr;  // PreScore's Skip when no pair was touched
    return prepared;
  }

  // Score: the totals of the node's pairs, one per topology key.
  int64_t score(const PodContext&, const ScorePrepared* prepared, const NodeInfo& node) const override {
    // The engine hands each plugin what its own prepare() returned; nullptr is PreScore's Skip.
    const auto* p = static_cast<const InterPodAffinityPrepared*>(prepared);
    if (p == nullptr || !node.node) return 0;
    int64_t sum = 0;
    for (const auto& key : p->keys) {
      auto it = node.node->labels.find(key);
      if (it != node.node->labels.end()) sum += p->scores.get(key, it->second);
    }
    return sum;
  }

  bool has_reduce() const override { return true; }
  // NormalizeScore: min-max scaling in float64 with the same operation order, so that the truncation
  // matches (100 * (29 / 100.0) is 28.999..., 28, where integer arithmetic gives 29).
  void reduce(std::span<int64_t> scores) const override {
    if (scores.empty()) return;
    const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
    const int64_t min_count = *lo;
    const int64_t max_count = *hi;
    // The differences in 128 bits: exact where int64 ones are, without overflow on extreme sums.
    const double diff = static_cast<double>(static_cast<__int128>(max_count) - min_count);
    for (auto& s : scores) {
      double f = 0;
      if (max_count > min_count) {
        f = static_cast<double>(kMaxNodeScore) *
            (static_cast<double>(static_cast<__int128>(s) - min_count) / diff);
      }
      s = static_cast<int64_t>(f);
    }
  }

 private:
  InterPodAffinityArgs args_;
  LabelKeys label_keys_;
};

}  // namespace

std::unique_ptr<ScorePlugin> make_inter_pod_affinity_score(const InterPodAffinityArgs& args,
                                                           KubeVersion version) {
  return std::make_unique<InterPodAffinityScore>(args, version);
}

}  // namespace kext
