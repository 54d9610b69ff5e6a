#pragma once
// The two halves of a scheduling cycle that do not depend on the queue: which nodes a pod passes
// (schedule_one.go findNodesThatPassFilters, then findNodesThatPassExtenders) and their totals
// (prioritizeNodes). run_cycle uses them over its sampled nodes; evaluate_every_node over every
// node, for extender-sim --follow's judgement of production's decisions.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/engine.h"
#include "sim/core/cluster.h"
#include "sim/core/cycle.h"

namespace kext::sim {

// One status per node, in input order: the profile's filters (the engine), then, on the nodes they
// pass, the backend's (an extender's filterVerb). Without a backend the engine alone; with a backend
// and no in-tree plugins (Scoring::in_tree) the backend alone, standing for both.
std::vector<FilterStatus> filter_nodes(const CycleConfig& config, const PodContext& ctx,
                                       const SimCluster& cluster, const Pod& pod,
                                       std::span<const NodeInfo* const> nodes);

// prioritizeNodes over `candidates`: the in-tree plugins' totals plus each extender's reply x
// (MaxNodeScore / MaxExtenderPriority) x its weight.
struct Priorities {
  std::vector<int64_t> totals;  // [candidate], what selectHost ranks
  ScoreMatrix in_tree;          // the engine's plugins (none with a backend standing alone)
  std::vector<int64_t> reply;   // the backend's reply (0..10), empty without one
};
Priorities prioritize_nodes(const CycleConfig& config, const PodContext& ctx, const SimCluster& cluster,
                            const Pod& pod, std::span<const NodeInfo* const> candidates);
// The terms of candidate `k`'s total, in plugin order, the extender's last.
std::vector<ScoreTerm> score_terms(const CycleConfig& config, const Priorities& p, size_t k);

// Every node of the cluster for `pod`, without numFeasibleNodesToFind's sample and without nominated
// pods: each node's filter code, and the feasible ones' totals. The reasons are kept only for the
// node named `explain`, when it fails.
struct NodeEvaluation {
  std::vector<const NodeInfo*> nodes;  // the cluster's, in its order
  std::vector<FilterCode> codes;       // [node]
  std::vector<std::string> explained;  // the reasons `explain` failed with
  std::vector<size_t> feasible;        // indices into nodes, ascending
  Priorities priorities;               // [k] is nodes[feasible[k]]'s; empty for fewer than 2 feasible
};
NodeEvaluation evaluate_every_node(const CycleConfig& config, const SimCluster& cluster, const Pod& pod,
                                   std::string_view explain = {});

}  // namespace kext::sim
