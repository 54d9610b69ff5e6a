#pragma once
// The event loop: pods arrive, the queue's timers fire, cycles run, victims go after their grace
// period, pods complete after their runtime, all on one virtual clock. A run is a pure function of
// the cluster, the pods, the engine and the seed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/preemption/preemption.h"
#include "sim/core/clock.h"
#include "sim/core/cluster.h"
#include "sim/core/cycle.h"
#include "sim/core/queueing_hints.h"
#include "sim/core/scheduling_queue.h"
#include "sim/core/select_host.h"
#include "sim/core/usage.h"

namespace kext::sim {

// terminationGracePeriodSeconds' default (core/v1 DefaultTerminationGracePeriodSeconds).
inline constexpr SimDuration kDefaultGracePeriod = std::chrono::seconds(30);

struct SimulatorOptions {
  QueueOptions queue;
  preemption::Options preemption;
  uint64_t seed = 1;
  int32_t percentage_of_nodes_to_score = 0;  // CycleConfig's; 0: kube-scheduler's adaptive default
  int64_t epoch_unix_seconds = 0;            // the wall time simulated time 0 stands for
  // The run stops at this simulated time at the latest.
  SimDuration max_time = std::chrono::hours(24);
  // Collect each pod's queue moves into its next CycleRecord::moves. Off, the queue has no observer.
  bool record_moves = false;
  CycleBackend* backend = nullptr;  // CycleConfig's: filter and score elsewhere than the engine
  Scoring scoring;                  // CycleConfig's
  // How long a pod group that timed out waits before it is admitted again (kube-extender --gang-backoff).
  gang::Time gang_backoff = gang::kDefaultGroupBackoff;
  // The topology levels, coarse to fine, that a group's preferred topology falls back through: the
  // extender configuration's gang.topologyLevels (Profile::topology_levels).
  std::vector<std::string> topology_levels{};
  // Nodes' usage samples for the load-aware plugins (usage.h); off by default.
  UsageOptions usage{};
};

// One step of a pod group's timeline: admitted (room held for it), complete (its members bound),
// timed out (room released, its waiting members back to the queue), deleted.
struct GangEvent {
  SimTime at{0};
  std::string group;
  gang::GroupEvent what = gang::GroupEvent::kAdmitted;
  bool operator==(const GangEvent&) const = default;
};
std::string_view gang_event_name(gang::GroupEvent e);

// How a pod's life goes on once it runs.
struct Lifecycle {
  std::optional<SimDuration> runtime;              // completes this long after binding; nullopt: never
  SimDuration grace_period = kDefaultGracePeriod;  // a victim is gone this long after preemption
  // A preempted pod is replaced by a new pending one when it is gone, as the ReplicaSet or Job
  // controller owning it would do. The replacement has the same spec and lifecycle, the UID
  // "<uid>-r<n>" and the name "<name>-r<n>".
  bool recreate_when_preempted = false;
  // The share of its requests the pod uses over its life; nullptr: UsageOptions::default_fraction.
  std::shared_ptr<const UsageProfile> usage = nullptr;
};

struct RunSummary {
  size_t cycles = 0;
  size_t scheduled = 0;
  size_t preemptions = 0;      // cycles that nominated a node
  size_t victims = 0;          // distinct pods evicted (one two preemptors chose counts once)
  size_t unschedulable = 0;    // failed cycles without preemption
  size_t bind_failures = 0;    // binds a backend's bindVerb answered with an error (back to the queue)
  size_t bound_elsewhere = 0;  // pods a backend bound with no bind of the cycle's (BindAnswer::node)
  size_t completed = 0;        // pods that finished their runtime
  size_t recreated = 0;        // replacements created for preempted pods
  size_t pending_at_end = 0;
  SimTime end{0};
  // Arrival to bind of every pod that bound, in bind order: the queue's wait plus any preemption's
  // grace period, what a policy comparison looks at first.
  std::vector<SimDuration> latencies;
  // Pods pending (in the scheduling queue: arrived, not bound) over time: a point whenever the count
  // changes, the last one at a time standing for that time (the HTML report's chart). At most one
  // point per event or cycle.
  std::vector<std::pair<SimTime, size_t>> pending_over_time;
  // With PodGroups in the inputs: every group's timeline, in time order.
  bool gangs = false;
  std::vector<GangEvent> gang_events;
  // With usage samples (UsageOptions::enabled): each node's CPU requests and usage, in the order the
  // nodes were first sampled.
  std::vector<NodeUsageSummary> node_usage;
};

// The summary's rows (name, value), as format_summary prints them.
std::vector<std::pair<std::string, std::string>> summary_rows(const RunSummary& summary);

// The summary as an aligned two-column text table; with `other`, a third column (--compare: the same
// run under a second configuration). Names head the value columns.
std::string format_summary(const RunSummary& summary, const std::string& name,
                           const RunSummary* other = nullptr, const std::string& other_name = "");

// Rows (name, value) as an aligned text table, values right-aligned under `name`; with `other` (the
// same row names in the same order), a third column under `other_name`. format_summary's layout.
std::string format_table(const std::vector<std::pair<std::string, std::string>>& rows,
                         const std::string& name,
                         const std::vector<std::pair<std::string, std::string>>* other = nullptr,
                         const std::string& other_name = "");

class Simulator {
 public:
  // `engine` must outlive the simulator. Pods already bound in `cluster` run forever with the
  // default grace period unless set_lifecycle says otherwise; pending pods in it are not queued (add
  // them with add_pending).
  Simulator(SimCluster cluster, const Engine& engine, SimulatorOptions options);
  // Not copyable: the queue holds the clock's address and the move observer this one's.
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // A pod created at `arrival`; its spec.nodeName must be empty. Throws ClusterError on a bad pod.
  void add_pending(Pod pod, SimTime arrival, Lifecycle lifecycle = {});
  // The lifecycle of a pod already running in the cluster: completes at `runtime` from now (time 0).
  void set_lifecycle(const std::string& uid, Lifecycle lifecycle);
  // A node that joins the cluster at `at` (a kNodeAdded move). Throws ClusterError on a duplicate.
  void add_node(Node node, SimTime at);
  // A node's new spec or status at `at` (a kNodeChanged move). The node must be in the cluster or
  // joining; a change that comes before its node has joined is dropped.
  void change_node(Node node, SimTime at);
  // Deletes a pod at `at`, whatever its state: pending (out of the queue and the nominator), bound
  // (its resources freed at once, a kPodDeleted move; add a grace period to `at` if it has one), or
  // not yet arrived (it never does). Unknown UIDs are an error now; a pod gone by then is ignored.
  void delete_pod(const std::string& uid, SimTime at);

  // A pod that turns up already bound (spec.nodeName set: created bound, as DaemonSet pods are, or
  // bound by another scheduler) at `at`: it joins its node then, an assigned pod added, which may help
  // pods waiting for affinity or spreading (kPodUpdated). Dropped if its node is not in the cluster by
  // then. Throws ClusterError on a pod without a node or UID, or a duplicate UID.
  void add_bound(Pod pod, SimTime at, Lifecycle lifecycle = {});
  // Removes a node at `at`, with the pods bound to it (the pod garbage collector's gcOrphaned deletes
  // them). A node not in the cluster by then is ignored.
  void delete_node(const std::string& name, SimTime at);
  // The disruption budgets from now on (SimCluster::set_pdbs), for preemption's next dry runs.
  void set_pdbs(std::vector<PodDisruptionBudget> pdbs) { cluster_.set_pdbs(std::move(pdbs)); }
  // The PodGroups (scheduler-plugins' CRD) from now on: their members are scheduled all-or-nothing, as
  // kube-extender's gang scheduling does (docs/gang-scheduling.md).
  void set_pod_groups(gang::GroupMap groups) { state_.groups = std::move(groups); }
  // The namespaces' labels and the workload selectors from now on (SimCluster::set_namespace_labels,
  // set_workloads), for the next cycles' PodTopologySpread and InterPodAffinity. As in kube-scheduler,
  // their changes move no pod out of unschedulablePods: both plugins' EventsToRegister
  // (pkg/scheduler/framework/plugins/{podtopologyspread,interpodaffinity}/plugin.go) name only pod
  // and node events.
  void set_namespace_labels(std::map<std::string, Labels, std::less<>> labels) {
    cluster_.set_namespace_labels(std::move(labels));
  }
  void set_workloads(std::vector<WorkloadSelector> services,
                     std::vector<WorkloadSelector> replication_controllers,
                     std::vector<WorkloadSelector> replica_sets,
                     std::vector<WorkloadSelector> stateful_sets) {
    cluster_.set_workloads(std::move(services), std::move(replication_controllers), std::move(replica_sets),
                           std::move(stateful_sets));
  }

  // Runs until nothing can change any more (no future event, activeQ and podBackoffQ empty: pods
  // left in unschedulablePods have seen every event that could help them) or max_time. Calls
  // `on_decision` for every cycle, in order.
  RunSummary run(const std::function<void(const CycleRecord&)>& on_decision);
  // run() in steps, for a simulation driven by the wall clock (extender-sim --follow): handles every
  // event and runs every cycle due at or before `t` (and max_time), counting into `summary`, then
  // returns; events and queue timers after `t` stay for the next call. The clock stays at the last
  // instant something happened, so calls up to any t followed by a last one past every event make
  // the same decisions, at the same times, as one run(). Events added between calls must not be
  // earlier than the last `t`.
  void run_until(SimTime t, RunSummary& summary, const std::function<void(const CycleRecord&)>& on_decision);
  // When run_until next has something to do (an event, or a queue timer that run() would wait
  // for); kNever when nothing can change until an event is added.
  SimTime next_due() const;

  const SimCluster& cluster() const { return cluster_; }
  // What each cycle runs with: the engine, the backend, the scoring and the sampling share.
  const CycleConfig& cycle_config() const { return config_; }
  // The topology levels gang admission falls back through, and the report's fragmentation is per.
  const std::vector<std::string>& topology_levels() const { return state_.gangs.topology_levels(); }
  const SchedulingQueue& queue() const { return queue_; }
  SimTime now() const { return clock_.now(); }

 private:
  enum class EventKind {
    kArrive,
    kDeleteVictim,
    kComplete,
    kNodeAdd,
    kNodeChange,
    kDelete,
    kArriveBound,
    kNodeDelete
  };
  struct Event {
    SimTime at;
    uint64_t sequence;  // events at the same time run in the order they were scheduled
    EventKind kind;
    std::string uid;
    bool operator>(const Event& o) const { return std::tie(at, sequence) > std::tie(o.at, o.sequence); }
  };

  void schedule(SimTime at, EventKind kind, std::string uid);
  // add_pending's and add_bound's common part: the pod arrives at `at` by a `kind` event.
  void add_arriving(Pod pod, SimTime at, Lifecycle lifecycle, EventKind kind);
  // One event, as kube-scheduler's informers' handlers see it (pkg/scheduler/eventhandlers.go) and the
  // controllers around the scheduler act on it.
  void handle(const Event& e, RunSummary& summary);
  // addPodToSchedulingQueue: a pending pod created, into activeQ.
  void arrive(const std::string& uid);
  // addPodToCache: a pod created bound (gone with its node if that is gone).
  void arrive_bound(const std::string& uid);
  // A victim's grace period over: deleted (deletePodFromCache), and its controller's replacement
  // created when it has one.
  void delete_victim(const std::string& uid, RunSummary& summary);
  // The owner's replacement of a preempted `victim`: its spec, pending, created now.
  void recreate(const Pod& victim, Lifecycle lifecycle, RunSummary& summary);
  // updateNodeInCache: the node change keyed `key` (change_node) applied.
  void update_node(const std::string& key);
  // A pod deleted by the input: from the queue (deletePodFromSchedulingQueue) or its node
  // (deletePodFromCache), or before it arrived.
  void delete_now(const std::string& uid);
  // addNodeToCache: a node joining.
  void join_node(const std::string& name);
  // A bound pod's runtime over: it completes and leaves its node.
  void complete(const std::string& uid, RunSummary& summary);
  // Appends (now, pending) to summary.pending_over_time when the count changed.
  void record_pending(RunSummary& summary) const;
  // Removes a bound pod and tells the queue (a pod deleted: AssignedPodDelete).
  void remove_bound(const std::string& uid);
  // MoveAllToActiveOrBackoffQueue for one event: by the pods' masks, or with queueing hints by their
  // rejectors' hints on the event's objects (queueing_hints.h).
  void move_pods(const EventObjects& e);
  // What is known of a pod that left the simulation, forgotten (bounded memory when following).
  void forget(const std::string& uid);
  // Gang timeouts due now: the groups' room released, their waiting members unbound and queued again.
  void expire_gangs();
  // run()'s idle step, and next_due's when activeQ is empty: when something can next change (kNever:
  // nothing can until an event is added).
  SimTime idle_next() const;
  // The group timeline recorded since the last call, appended to `summary`.
  void flush_gang_events(RunSummary& summary);
  // A pod bound (alone, or as its group completed): counted, and its runtime started.
  void on_bound(const std::string& uid, RunSummary& summary);
  // The backend's held binds answered: each bound one counted (and added to `cycle`'s released,
  // the members that bind with the one it decided), each failed one forgotten, queued again and
  // reported as a kBindFailed record in `failed`.
  void on_bind_answers(std::vector<BindAnswer> answers, RunSummary& summary, CycleRecord* cycle,
                       std::vector<CycleRecord>& failed);
  // A pod bound with no bind of the cycle's in flight (BindAnswer::node): out of the queue, onto
  // `node`, counted; its line goes to `records`.
  void bound_elsewhere(const std::string& uid, const std::string& node, RunSummary& summary,
                       std::vector<CycleRecord>& records);
  // The line of a bind answered apart from its cycle (or bound elsewhere).
  CycleRecord answer_record(const Pod& pod, const RunSummary& summary, Outcome outcome,
                            std::string message) const;
  // The backend's held binds answered since the last call (with `wait`, every one, waiting for them),
  // and their lines.
  void answer_binds(bool wait, RunSummary& summary,
                    const std::function<void(const CycleRecord&)>& on_decision);
  // One cycle of the pod at the head of activeQ, counted and reported.
  void run_one_cycle(RunSummary& summary, const std::function<void(const CycleRecord&)>& on_decision);
  // The usage samples due by now (SimulatorOptions::usage), each measured just before its tick's
  // instant: the pods that start at the tick come after it.
  void sample_usage();
  // The share of its requests `pod` uses now: its profile's (the default's) at its age.
  double usage_fraction(const PodMeta& pod) const;
  // run()'s loop: events and cycles up to `until`.
  void loop(SimTime until, RunSummary& summary, const std::function<void(const CycleRecord&)>& on_decision);

  VirtualClock clock_;
  SimCluster cluster_;
  const Engine* engine_;
  SimulatorOptions options_;
  SchedulingQueue queue_;
  SchedulerState state_;
  CycleConfig config_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t next_sequence_ = 0;
  std::unordered_map<std::string, Lifecycle> lifecycles_;
  std::unordered_map<std::string, Pod> arriving_;  // created at their kArrive or kArriveBound event
  std::unordered_map<std::string, SimTime> arrived_at_;
  std::unordered_map<std::string, Node> joining_;     // nodes added at their kNodeAdd event
  std::unordered_map<std::string, Node> changes_;     // by the kNodeChange event's key
  std::unordered_map<std::string, int> recreations_;  // per original UID: replacements so far
  std::unordered_set<std::string> evicted_;           // victims chosen so far (RunSummary::victims)
  // With record_moves: each pod's moves since its last decision.
  std::unordered_map<std::string, std::vector<QueueMove>> moves_;
  std::vector<GangEvent> gang_events_;  // since the last loop() handed them to its summary
  SampledUsage usage_;
  SimTime next_sample_{0};
};

}  // namespace kext::sim
