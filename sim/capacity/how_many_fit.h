#pragma once
// "How many more of this pod fit?", as kubernetes-sigs/cluster-capacity answers it
// (pkg/framework/simulator.go: copies of one pod scheduled one after another by the real scheduler's
// cycle until one fails, then the failure's FitError): here through the simulator's cycle, so under
// the configured profile and the extender's plugins.
//
// Where no filter's verdict on a node depends on the copies placed on other nodes (no filter
// counts_other_nodes for the pod, and the pod is in no PodGroup), the answer cannot depend on the
// order in which the cycle picks nodes: each node ends up holding as many copies as fit on it alone,
// whichever copy went where first. Those nodes are then filled one by one, a filter call per copy
// instead of a whole cycle, and one cycle after them confirms that the next copy fits nowhere and says
// why. With a limit (--max) the cycle places every copy, since which nodes take the copies before the
// limit then depends on the scores.
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/model.h"
#include "sim/core/cluster.h"
#include "sim/core/simulator.h"

namespace kext::sim::capacity {

// One node's share of the answer.
struct NodeCount {
  std::string node;
  size_t pods = 0;
  bool operator==(const NodeCount&) const = default;
};

struct CapacityAnswer {
  std::string pod;  // namespace/name of the pod asked about
  size_t fit = 0;   // copies placed
  // The nodes that took at least one copy, in the cluster's node order.
  std::vector<NodeCount> per_node;
  // The copies stopped at the limit, with room perhaps left; otherwise the next copy did not fit.
  bool stopped_at_max = false;
  // Why the next copy did not fit: how many nodes gave each reason, and FitError's text of it
  // ("0/40 nodes are available: 31 Insufficient cpu, 9 node(s) had untolerated taint {k: v}."), the
  // first sentence of kube-scheduler's FailedScheduling event (its preemption sentence is left out:
  // copies never preempt). Empty when stopped at the limit.
  std::map<std::string, size_t> reasons;
  std::string message;
  // How many copies were placed by filling nodes alone, and how many by whole cycles.
  size_t filled = 0;
  size_t cycles = 0;
  // Set when the work budget ran out first (Budget): the copies placed are a lower bound, and nothing
  // is known of the next one. "time" or "nodes".
  std::string stopped_by_budget;
  // Nodes checked: one per copy tried on a node alone, every node for a whole cycle.
  size_t node_checks = 0;
  bool operator==(const CapacityAnswer&) const = default;
};

// How much work one question may take: a deadline, and a number of node checks (CapacityAnswer::
// node_checks). Defaults: no bound (the command line's questions).
struct Budget {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  size_t max_node_checks = 0;  // 0: no bound
};

// What a question has spent of its budget: the budget that stopped it ("time" or "nodes"; "" while
// none has), and the node checks made. Both answers report it (stopped_by_budget, node_checks).
struct Account {
  std::string stopped_by;
  size_t node_checks = 0;
};

// The budget as the work goes: each step asks before it spends `checks` node checks.
class Spending {
 public:
  explicit Spending(const Budget& budget) : budget_(budget) {}
  // False once the deadline has passed or the checks would go over the budget; the account says which.
  bool allow(size_t checks);
  bool spent() const { return !account_.stopped_by.empty(); }
  const Account& account() const { return account_; }

 private:
  const Budget& budget_;
  Account account_;
};

// The copy `index` (from 0) of `pod`: named "<name>-<index>" as cluster-capacity names its copies,
// with a UID of its own, pending, and never preempting (preemptionPolicy Never): capacity is the room
// that is free, not the room that evicting others would make.
Pod copy_of(const Pod& pod, size_t index);

// Whether each node can be filled on its own (above): the pod is in no PodGroup, and no filter of
// `engine` nor of the extender beside it (`backend`, may be null: its CycleBackend::filter_engine)
// counts_other_nodes for it. An extender whose filters are out of reach (across HTTP) fills none.
bool copies_fill_nodes_alone(const Engine& engine, const CycleBackend* backend, const SimCluster& cluster,
                             const Pod& pod);

// Places copies of `pod` in `cluster` (its running pods stay; its pending pods are left out), under
// `engine` and `options` as a Simulator runs them, until one does not fit or `max_pods` are placed
// (0: no limit), or the budget runs out.
CapacityAnswer how_many_fit(SimCluster cluster, const Engine& engine, const SimulatorOptions& options,
                            const Pod& pod, size_t max_pods = 0, const Budget& budget = {});

}  // namespace kext::sim::capacity
