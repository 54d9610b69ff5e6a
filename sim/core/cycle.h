#pragma once
// One scheduling cycle as kube-scheduler's scheduleOne (pkg/scheduler/schedule_one.go) runs it, over
// the simulated cluster with the extender's own algorithms: Pop, filter every node (nominated pods of
// equal or higher priority counted on their nodes), score the feasible ones, selectHost, assume and
// bind; on failure, preemption (DefaultPreemption's PostFilter) and AddUnschedulableIfNotPresent.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/gang/gatekeeper.h"
#include "algorithms/preemption/preemption.h"
#include "sim/core/clock.h"
#include "sim/core/cluster.h"
#include "sim/core/scheduling_queue.h"
#include "sim/core/select_host.h"

namespace kext::sim {

// A bindVerb's answer to one bind (pkg/scheduler/extender.go HTTPExtender.Bind).
struct BindReply {
  enum class Kind {
    kBound,
    kHeld,    // not answered yet: the extender holds it (a gang member waiting for its group)
    kFailed,  // an Error: the pod goes back to the queue
  };
  Kind kind = Kind::kBound;
  std::string error;
};
// A held bind, answered later: bound ("" error) or failed.
struct BindAnswer {
  std::string uid;
  std::string error;
  // Set for a pod bound with no bind of the cycle's in flight: the backend saw its Binding made
  // elsewhere (an extender that binds a gang member whose call it had answered), to this node.
  std::string node;
  bool operator==(const BindAnswer&) const = default;
};

// Where the cycle's filter and score run instead of `CycleConfig::engine` (extender-sim --extender:
// a running kube-extender over HTTP). The queue, nominations (the "with nominated pods" second filter
// pass, kube-scheduler's own in-tree filters' job, stays on the engine), selectHost and
// DefaultPreemption's dry runs stay in the cycle; the backend sees their candidates (as an extender's
// preemptVerb does) before one is picked. `cluster` is the state the call is made in, for a backend that
// mirrors it.
class CycleBackend {
 public:
  virtual ~CycleBackend() = default;
  // One status per node, in input order, as Engine::filter.
  virtual std::vector<FilterStatus> filter(const SimCluster& cluster, const Pod& pod,
                                           std::span<const NodeInfo* const> nodes) = 0;
  // The engine whose filters filter() runs (on a PodContext of the pod and, when the engine
  // reads_cluster, the cluster's view), for a caller that filters one node at a time after one
  // PreFilter (sim/capacity/how_many_fit.h); nullptr when they are out of reach (an extender across
  // HTTP).
  virtual const Engine* filter_engine() const { return nullptr; }
  // One reply score per node (0..10), in input order, as the extender's prioritize answers.
  virtual std::vector<int64_t> score(const SimCluster& cluster, const Pod& pod,
                                     std::span<const NodeInfo* const> nodes) = 0;
  // DefaultPreemption's candidates (best first) as the backend leaves them (preemption.go
  // callExtenders: it may drop nodes and change victims); the cycle orders what is left again.
  virtual std::vector<preemption::Candidate> preempt(const SimCluster& cluster, const Pod& pod,
                                                     std::vector<preemption::Candidate> candidates) = 0;
  // The bindVerb: binds `pod`, assumed on `node`, and returns once the bind is answered or held.
  // nullopt: the backend does not bind, the cycle does (kube-scheduler's DefaultBinder).
  virtual std::optional<BindReply> bind(const SimCluster& /*cluster*/, const Pod& /*pod*/,
                                        const std::string& /*node*/) {
    return std::nullopt;
  }
  // The held binds answered since the last call, in the order they were sent. With `wait`, every
  // held bind is answered first (the extender answers each within its hold bound).
  virtual std::vector<BindAnswer> take_answers(bool /*wait*/) { return {}; }
  virtual bool holds_binds() const { return false; }  // a held bind is still unanswered

  // Real time (extender-sim --real-time), as kube-scheduler runs against an extender: simulated time
  // is the backend's wall clock, and bind() returns kHeld at once for every bind, answered later
  // through take_answers(false), while the next cycles run (schedule_one.go: the binding cycle runs
  // on a goroutine of its own). Off, a run is a pure function of its inputs.
  virtual bool real_time() const { return false; }
  // real_time: the simulated time now.
  virtual SimTime now() const { return SimTime{0}; }
  // real_time: returns at `t`, or sooner when a bind is answered or a pod bound elsewhere.
  virtual void wait_until(SimTime /*t*/) {}
};

// How selectHost's totals are added up.
struct Scoring {
  // kube-scheduler's (Σ weight x score on 0..100, the default), or the extender reply's 0..10 alone
  // (what a run through a CycleBackend ranks on when it is the only score; tests compare the two
  // modes with it).
  ScoreScale scale = ScoreScale::kSchedulerTotal;
  // With a backend, on kSchedulerTotal: prioritizeNodes (schedule_one.go) adds each extender's reply
  // x (MaxNodeScore / MaxExtenderPriority) x its weight (KubeSchedulerConfiguration
  // extenders[].weight) to the in-tree plugins' total.
  int64_t extender_weight = 1;
  // With a backend: the engine is the scheduler profile's own plugins, which filter before the
  // backend and score beside it. Off, the backend stands for both (it was given the same
  // configuration) and the engine only runs the nominated-pods pass and preemption's dry runs.
  bool in_tree = false;
};

struct CycleConfig {
  const Engine* engine = nullptr;
  CycleBackend* backend = nullptr;  // nullptr: filter and score with `engine`
  preemption::Options preemption;
  // DefaultPreemptionArgs minCandidateNodesPercentage and minCandidateNodesAbsolute: preemption's dry
  // runs start at a random node among those where it might help and stop once they have found
  // max(percentage of those nodes, absolute) candidates, at least one without PDB violations
  // (GetOffsetAndNumCandidates, DryRunPreemption).
  int64_t min_candidate_nodes_percentage = 10;
  int64_t min_candidate_nodes_absolute = 100;
  // KubeSchedulerConfiguration percentageOfNodesToScore: the filter stops once it has found this
  // share of the nodes feasible (at least 100 nodes); 0 is kube-scheduler's adaptive default
  // (50 % - nodes/125, at least 5 %), 100 filters every node (numFeasibleNodesToFind).
  int32_t percentage_of_nodes_to_score = 0;
  // The wall-clock time simulated time 0 stands for, in Unix seconds: pods' start times (preemption
  // prefers evicting the youngest) are on that scale.
  int64_t epoch_unix_seconds = 0;
  Scoring scoring;
  // SchedulerQueueingHints (QueueOptions::queueing_hints): a failed pod's rejectors are recorded for
  // the hints. The minor itself is preemption.version, the profile's.
  bool queueing_hints = false;
};

// One term of the chosen node's total: a score plugin's score on the total's scale and its weight, or
// the extender's reply (already x MaxNodeScore / MaxExtenderPriority) under kExtenderTerm.
struct ScoreTerm {
  std::string name;
  int64_t weight = 1;
  int64_t score = 0;
  bool operator==(const ScoreTerm&) const = default;
};
inline constexpr std::string_view kExtenderTerm = "extender";

enum class Outcome {
  kScheduled,      // bound to `node`
  kPreempted,      // nominated to `node`; `victims` are terminating
  kUnschedulable,  // no node, no preemption; back to the queue
  // A gang member assumed on `node` whose bind waits for the rest of its group (the extender holds
  // it: extender/gang/coordinator.h); bound when the group completes, back to the queue at its timeout.
  kWaiting,
  // The bind (the backend's bindVerb) answered with an error, now or after a hold: the pod is no
  // longer assumed and goes back to the queue (schedule_one.go bindingCycle: ForgetPod,
  // AssignedPodDelete, FailureHandler).
  kBindFailed,
};

// One line of the decision log.
struct CycleRecord {
  SimTime at{0};
  int64_t cycle = 0;
  std::string uid;
  std::string pod;  // namespace/name
  int32_t priority = 0;
  int attempts = 0;
  Outcome outcome = Outcome::kUnschedulable;
  std::string node;
  std::vector<std::string> victims;        // UIDs, most important first
  std::vector<std::string> victim_names;   // namespace/name of each, in the same order
  std::vector<int32_t> victim_priorities;  // and the priority of each (the report's evictions)
  size_t feasible_nodes = 0;
  size_t evaluated_nodes = 0;  // filtered this cycle (processedNodes)
  // When the node was chosen by scoring (two or more feasible nodes): the winner's total and the
  // best total among the other feasible nodes (equal to it on a tie selectHost broke), on
  // CycleConfig::scale, and the terms of the winner's total. Unset when a single feasible node was
  // taken without scoring, as schedulePod does, and on failure.
  std::optional<int64_t> score;
  std::optional<int64_t> runner_up_score;
  std::vector<ScoreTerm> score_terms;
  // For a failure: how many nodes gave each reason, and FitError's text of it ("0/3 nodes are
  // available: 3 Insufficient cpu."), as the FailedScheduling event says.
  std::map<std::string, size_t> reasons;
  std::string message;
  // With SimulatorOptions::record_moves: the pod's queue moves since its previous decision, up to and
  // including this cycle's own (a failure's return to podBackoffQ or unschedulablePods), in order.
  std::vector<QueueMove> moves;
  // A gang member's: its group and where the group stood ("pod group train/a: admitted now"), and the
  // members that were waiting and bind with this one as the group completes (UIDs, in arrival order).
  std::string gang;
  std::vector<std::string> released;
};

// What kube-scheduler carries from one cycle to the next.
struct SchedulerState {
  Rng rng{1};  // selectHost's ties and preemption's offset draw from it
  // nextStartNodeIndex: where the next filter pass starts, so that with percentageOfNodesToScore
  // below 100 successive pods see different nodes first.
  size_t next_start_node_index = 0;
  // Gang scheduling: the PodGroups, and the extender's decisions about them (admission at filter,
  // permit at bind) on the virtual clock. No groups: no pod is a gang member.
  gang::GroupMap groups;
  gang::Gatekeeper gangs;
  // Pods whose bind a backend holds: what Pop returned and its cycle, for a failure answered later.
  std::map<std::string, std::pair<QueuedPodInfo, int64_t>, std::less<>> held_binds;
};

// The virtual clock as gang decisions read it.
inline gang::Time gang_time(SimTime t) { return std::chrono::duration_cast<gang::Time>(t); }
inline SimTime sim_time(gang::Time t) { return std::chrono::duration_cast<SimTime>(t); }

// numFeasibleNodesToFind (schedule_one.go): how many feasible nodes the filter looks for among
// `all_nodes`; every node below 100 nodes.
size_t num_feasible_nodes_to_find(size_t all_nodes, int32_t percentage_of_nodes_to_score);

// FitError.Error (pkg/scheduler/framework/types.go): "0/<nodes> nodes are available: <n> <reason>, ...."
// ("0/<nodes> nodes are available:" without reasons)
// with the "<n> <reason>" strings sorted as strings (sortReasonsHistogram), as kube-scheduler's
// FailedScheduling event shows it.
std::string fit_error_message(size_t nodes, const std::map<std::string, size_t>& reasons);

// A bind that failed, of the pod `popped` returned in scheduling cycle `cycle`: the pod is no longer
// assumed on its node, the room it leaves is an AssignedPodDelete for the pods waiting, and the pod
// goes back to the queue as one that failed that cycle, so to podBackoffQ (schedule_one.go
// bindingCycle: ForgetPod, MoveAllToActiveOrBackoffQueue, then FailureHandler).
void forget_bind(SchedulingQueue& queue, SimCluster& cluster, QueuedPodInfo popped, int64_t cycle);

// Pops the head of activeQ and runs its cycle at `now`: a pod nominated to a node where it fits
// goes there without looking further (evaluateNominatedNode); otherwise the filter walks the nodes
// from state.next_start_node_index until it has num_feasible_nodes_to_find of them. nullopt if
// activeQ is empty. A pod the cluster no longer knows (deleted while queued) is dropped without a
// decision and the next is tried (skipPodSchedule).

std::optional<CycleRecord> run_cycle(SchedulingQueue& queue, SimCluster& cluster, const CycleConfig& config,
                                     SchedulerState& state, SimTime now);

}  // namespace kext::sim
