#include "algorithms/preemption/preemption.h"

#include <algorithm>
#include <optional>

#include "algorithms/parallel.h"

namespace kext::preemption {

bool eligible_to_preempt(const Pod& preemptor, const NodeInfo* nominated, KubeVersion version) {
  if (preemptor.preemption_policy == "Never") return false;
  if (nominated == nullptr || preemptor.nominated_node_name.empty()) return true;
  const int32_t priority = preemptor.effective_priority();
  const bool victims_only = since::retry_waits_only_for_preemption_victims(version);
  return std::none_of(nominated->pods.begin(), nominated->pods.end(), [&](const auto& p) {
    const PodMeta& pod = *p->pod;
    return pod.terminating && (!victims_only || pod.preemption_victim) && pod.effective_priority() < priority;
  });
}

namespace {
// What a dry run spends per pod of the node besides the filters (removing and re-adding the pod,
// the PDB check, the reprieve's ordering), as the server meets it: bench/run's serial preempt p50 over
// 100 candidates of ~10 pods, less the round trip and decoding, shared among the pods, less the
// filters; bench/preemption_bench.cc's simpler pods cost less (docs/performance.md "Figures behind
// design choices in the code").
constexpr uint64_t kDryRunCostPerPodNs = 600;
}  // namespace

uint64_t dry_run_cost_ns(std::span<const NodeInfo* const> nodes, const Engine& engine) {
  const uint64_t per_pod = kDryRunCostPerPodNs + engine.filter_cost_per_node_ns();
  uint64_t pods = 0;
  for (const NodeInfo* n : nodes) pods += n->pods.size() + 1;  // + 1: the fit check without victims
  return pods * per_pod;
}

std::vector<Candidate> select_candidates(const PodContext& unprepared, std::span<const NodeInfo* const> nodes,
                                         std::span<const PodDisruptionBudget> pdbs, const Engine& engine,
                                         int64_t now_unix_seconds, const Options& options) {
  // PreFilter once for every node's dry run (each clones the states).
  std::optional<PodContext> own;
  if (!unprepared.prepared) engine.prepare(own.emplace(unprepared), nodes);
  const PodContext& preemptor = own ? *own : unprepared;
  const Pod& pod = preemptor.pod;
  const NodeInfo* nominated = nullptr;
  if (!pod.nominated_node_name.empty()) {
    auto it = std::find_if(nodes.begin(), nodes.end(),
                           [&](const NodeInfo* n) { return n->name() == pod.nominated_node_name; });
    if (it != nodes.end()) nominated = *it;
  }
  if (!eligible_to_preempt(pod, nominated, options.version) || options.max_candidates == 0) return {};

  // One slot per node, each written by exactly one task: no locking, and the input order is kept
  // for the (stable) ordering step.
  std::vector<std::optional<NodeVictims>> results(nodes.size());
  const DryRunRules rules(options.semantics, options.version);
  auto run = [&](size_t i) {
    results[i] = select_victims_on_node(preemptor, *nodes[i], pdbs, engine, now_unix_seconds, rules);
  };
  for_each_index(nodes.size(), options.parallel.parallel(nodes.size(), dry_run_cost_ns(nodes, engine)), run);

  std::vector<Candidate> candidates;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!results[i]) continue;
    candidates.push_back(
        Candidate{nodes[i]->name(), std::move(results[i]->victims), results[i]->num_pdb_violations, {}});
  }
  order_candidates(candidates, now_unix_seconds);
  if (candidates.size() > options.max_candidates) {
    candidates.resize(options.max_candidates);
    // decided_by of the new last entry still names what separated it from the first one cut off,
    // which is the useful information for a log line.
  }
  return candidates;
}

}  // namespace kext::preemption
