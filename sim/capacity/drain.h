#pragma once
// "What if these nodes go?": the nodes drained as `kubectl drain --ignore-daemonsets` drains them
// (k8s.io/kubectl/pkg/drain: cordon, then evict every pod but the DaemonSets' through the Eviction API,
// which refuses an eviction a PodDisruptionBudget does not allow at that moment), their controllers'
// replacements placed through the simulator's cycle with their priorities (preemption included), and
// the verdict: where each pod lands, which stay pending and why, which budgets hold the drain up.
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/engine.h"
#include "sim/core/cluster.h"
#include "sim/core/simulator.h"

namespace kext::sim::capacity {

// One evicted pod and what became of it.
struct EvictedPod {
  std::string pod;   // namespace/name
  std::string from;  // the drained node
  int32_t priority = 0;
  std::string to;      // where its replacement was bound; "" when it stays pending (or has none)
  std::string reason;  // pending: the last cycle's FitError text
  bool operator==(const EvictedPod&) const = default;
};

// A PodDisruptionBudget the drain evicts pods of.
struct BudgetVerdict {
  std::string pdb;      // namespace/name
  size_t evicted = 0;   // pods of the drained nodes it selects
  int32_t allowed = 0;  // status.disruptionsAllowed
  // More evictions than allowed: the drain waits for replacements to become healthy (slows) and, when
  // some of them can never run, for ever (blocks).
  bool slows = false;
  bool blocks = false;
  bool operator==(const BudgetVerdict&) const = default;
};

struct DrainAnswer {
  std::vector<std::string> nodes;        // drained, in the cluster's order
  std::vector<EvictedPod> placed;        // replacements bound, in eviction order
  std::vector<EvictedPod> pending;       // replacements that fit nowhere
  std::vector<std::string> unreplaced;   // pods of no controller: deleted for good (kubectl needs --force)
  std::vector<std::string> daemon_pods;  // left to their DaemonSet (--ignore-daemonsets)
  std::vector<std::string> preempted;    // other pods the replacements evicted (namespace/name)
  std::vector<BudgetVerdict> budgets;
  // Every evicted pod runs again elsewhere, none without a controller, no budget blocks, and no other
  // pod is preempted for them.
  bool safe = false;
  bool operator==(const DrainAnswer&) const = default;
};

// The nodes a --drain argument names, in the cluster's order: comma-separated node names, or
// comma-separated key=value labels that a node must all carry. Throws std::invalid_argument naming an
// unknown node, or for a selector no node matches.
std::vector<std::string> nodes_to_drain(const SimCluster& cluster, const std::string& argument);

// Drains `nodes` of `cluster` under `engine` and `options` as a Simulator runs them.
DrainAnswer drain(SimCluster cluster, const Engine& engine, const SimulatorOptions& options,
                  const std::vector<std::string>& nodes);

}  // namespace kext::sim::capacity
