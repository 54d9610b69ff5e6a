#pragma once
// extender-sim --follow's decision agreement: each of production's bindings judged by a policy on
// the cluster as production saw it just before (its live nodes and bound pods), not on the policy's
// own trajectory, which after the first tie broken differently compares another cluster.
//
// kube-scheduler (schedule_one.go findNodesThatPassFilters, prioritizeNodes, selectHost) picks at
// random among the best-scored of the feasible nodes it evaluated; from about 100 nodes up it stops
// filtering at numFeasibleNodesToFind feasible nodes, from a rotating start in its own node order.
// So production's node agrees with a policy when some sample it could have drawn has that node among
// its best: with F feasible nodes and a sample of K, at most F - K of them score above it (every
// node scored, K >= F, makes that "none": production's node is among the best, ties included).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/prioritize.h"

namespace kext::simtool::follow {

// One plugin's weighted term of the policy's choice minus the same term of production's node.
struct TermGap {
  std::string plugin;  // a score plugin's name, or "extender"
  int64_t gap = 0;     // (weight x score) of the choice - that of production's node
  bool operator==(const TermGap&) const = default;
};

struct DecisionVerdict {
  enum class Kind {
    kAgreed,     // production's node is one the policy could have chosen
    kOutscored,  // feasible for the policy, but other nodes score above it
    kRejected,   // the policy's filters reject production's node (a hard disagreement)
    kUnjudged,   // production's node is not in the cluster the policy was given
  };
  Kind kind = Kind::kUnjudged;
  std::string production_node;
  std::string choice;          // the policy's best node (the first in node order among ties); "" if none
  size_t feasible = 0;         // nodes the policy's filters pass
  size_t sample = 0;           // numFeasibleNodesToFind for this cluster
  size_t rank = 0;             // production's node: 1 + the feasible nodes scored above it (0: not feasible)
  int64_t gap = 0;             // the best total - production's node's total
  std::vector<TermGap> terms;  // kOutscored: the terms favouring the choice, largest first
  std::vector<std::string> rejected;  // kRejected: the filters' reasons
  bool agreed() const { return kind == Kind::kAgreed; }
};

std::string_view kind_name(DecisionVerdict::Kind kind);

// Judges production's choice of `production_node` against `evaluation` (evaluate_every_node of the
// policy, on production's cluster before the binding, explaining `production_node`).
// `percentage_of_nodes_to_score` as CycleConfig's (0: kube-scheduler's adaptive default).
DecisionVerdict judge_decision(const sim::CycleConfig& config, const sim::NodeEvaluation& evaluation,
                               const std::string& production_node, int32_t percentage_of_nodes_to_score);

// evaluate_every_node then judge_decision, for production's binding of `pod` to `node` on
// `production` (the cluster before the binding), on the calling thread alone: following is
// background work whose cost is CPU, and splitting 5,000 nodes over oneTBB's workers costs more CPU
// than it saves (bench/follow_bench.cc BM_FollowDecision).
DecisionVerdict judge_binding(const sim::CycleConfig& config, const sim::SimCluster& production,
                              const Pod& pod, const std::string& node);

// One line of --follow's --log: {"policy":NAME,"decision":{"time","pod","production","verdict",
// "choice","feasible","sample","rank","gap","terms":{PLUGIN: gap},"rejected":[REASON]}}.
std::string verdict_json(const std::string& policy, double seconds, const std::string& pod,
                         const DecisionVerdict& verdict);

}  // namespace kext::simtool::follow
