#pragma once
// kube-scheduler's PriorityQueue (pkg/scheduler/internal/queue/scheduling_queue.go) over a virtual
// clock: activeQ, podBackoffQ, unschedulablePods and the nominator, holding pod UIDs and their queue
// metadata only. The simulator keeps the pods themselves; the queue decides only *when* each is tried.
//
// The periodic goroutines of PriorityQueue.Run (flushBackoffQCompleted every 1 s,
// flushUnschedulablePodsLeftover every 30 s, both started at once by wait.Until) become timers on the
// virtual clock: the event loop asks next_timer_due() and calls run_due_timers() when the clock reaches
// it. Ticks that would find nothing to move are skipped, which changes nothing, because a flush that
// moves no pod has no effect (not even on moveRequestCycle: flushUnschedulablePodsLeftover calls
// movePodsToActiveOrBackoffQueue only when it has pods to move).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sim/core/clock.h"
#include "sim/core/indexed_heap.h"

namespace kext::sim {

// The cluster events that move unschedulable pods (framework.ClusterEvent), as bits of a mask: a pod
// that failed remembers which events could make it schedulable (the simulator derives them from the
// plugins that rejected it, as QueuedPodInfo.UnschedulablePlugins does), and an event moves only pods
// it could help.
enum class ClusterEvent : uint32_t {
  kPodDeleted = 1u << 0,   // an assigned pod deleted, finished, or preempted (frees resources)
  kNodeAdded = 1u << 1,    // a node joined
  kNodeChanged = 1u << 2,  // a node's allocatable, labels, taints or schedulability changed
  kPodUpdated = 1u << 3,   // an assigned pod changed (labels: affinity, spreading)
  // A pod group changed: a member created, a group's room released (timed out) or its members bound.
  // What Coscheduling's EventsToRegister (scheduler-plugins pkg/coscheduling/coscheduling.go: Pod Add)
  // moves its rejected pods on.
  kGangChanged = 1u << 4,
};
using EventMask = uint32_t;
// framework.ClusterEvent{Resource: WildCard, ActionType: All}: helps every pod. UnschedulableTimeout,
// the leftover flush's event, is one.
inline constexpr EventMask kAnyEvent = ~EventMask{0};
// The plugins that rejected a pod (QueuedPodInfo.UnschedulablePlugins), as bits (queueing_hints.h
// Rejector); none: the pod failed by an error, not a plugin.
using RejectorSet = uint32_t;

// framework.QueuedPodInfo, without the pod.
struct QueuedPodInfo {
  std::string uid;
  int32_t priority = 0;  // spec.priority: activeQ's first key (queuesort.PrioritySort)
  // When the pod was last added to the queue (Add) or returned to it after a failed attempt
  // (AddUnschedulableIfNotPresent refreshes it): activeQ's second key, backoff's start, and the age the
  // leftover flush measures.
  SimTime timestamp{0};
  SimTime initial_attempt_timestamp{0};  // the first Add; never refreshed
  int attempts = 0;                      // incremented by every Pop
  // The events that could make the pod schedulable; kAnyEvent when unknown (QueuedPodInfo with no
  // UnschedulablePlugins is moved by every event).
  EventMask unschedulable_events = kAnyEvent;
  // The plugins that rejected the pod, for the queueing hints (QueueOptions::queueing_hints) and the
  // error backoff queue (QueueOptions::pop_from_backoff); 0: none, an error.
  RejectorSet rejectors = 0;
  // Final tie-break of activeQ and podBackoffQ, assigned whenever `timestamp` is: Go's time.Now() is
  // nanoseconds and strictly ordered in practice, the virtual clock gives many pods the same time, and
  // the call order is what the nanoseconds would have shown. It makes every Pop deterministic.
  uint64_t sequence = 0;
};

// Where a pod is in the queue.
enum class QueueName { kNone, kActive, kBackoff, kUnschedulable };

// "activeQ", "backoffQ", "unschedulablePods" (PriorityQueue's fields); "" for kNone.
std::string_view queue_name(QueueName queue);

// Why a pod moved into a queue: the event kube-scheduler's queue records with the move
// (pkg/scheduler/internal/queue/events.go; the `event` label of scheduler_queue_incoming_pods_total).
enum class MoveEvent : uint8_t {
  kPodAdd,                  // Add: a new pending pod into activeQ
  kScheduleAttemptFailure,  // AddUnschedulableIfNotPresent after a failed cycle
  kBackoffComplete,         // flushBackoffQCompleted: podBackoffQ -> activeQ
  kUnschedulableTimeout,    // flushUnschedulablePodsLeftover
  kNodeAdd,                 // ClusterEvent::kNodeAdded
  // ClusterEvent::kNodeChanged. Go labels a node update by what changed (NodeAllocatableChange,
  // NodeLabelChange, NodeTaintChange, ...); the simulator does not tell them apart.
  kNodeChange,
  kAssignedPodDelete,  // ClusterEvent::kPodDeleted
  kAssignedPodUpdate,  // ClusterEvent::kPodUpdated
  kPodGroupChange,     // ClusterEvent::kGangChanged
};
std::string_view move_event_name(MoveEvent event);
MoveEvent move_event_of(ClusterEvent event);

// One move of a pod between the queues: arrivals (from kNone), a failed cycle's return (from kNone:
// the pod was in flight), cluster events, both flushes. Pops are not moves: the cycle is the record
// of those.
struct QueueMove {
  SimTime at{0};
  QueueName from = QueueName::kNone;
  QueueName to = QueueName::kNone;
  MoveEvent event = MoveEvent::kPodAdd;
  std::string nominated_node;  // the node the pod is nominated to at the move, if any
  bool operator==(const QueueMove&) const = default;
};

// Called for every move, with the pod's UID, when set (SchedulingQueue::set_move_observer).
using MoveObserver = std::function<void(const std::string& uid, const QueueMove& move)>;

struct QueueOptions {
  // DefaultPodInitialBackoffDuration and DefaultPodMaxBackoffDuration (scheduling_queue.go).
  SimDuration initial_backoff = std::chrono::seconds(1);
  SimDuration max_backoff = std::chrono::seconds(10);
  // podMaxInUnschedulablePodsDuration: how long a pod may wait in unschedulablePods before the leftover
  // flush moves it regardless of events. kube-scheduler 1.26 defaults to 5 min
  // (DefaultPodMaxInUnschedulablePodsDuration); earlier releases hard-coded 60 s
  // (unschedulableQTimeInterval), which the simulator keeps (docs/kube-scheduler-differences.md).
  SimDuration max_in_unschedulable = std::chrono::seconds(60);
  // The periods of PriorityQueue.Run's two wait.Until loops.
  SimDuration backoff_flush_period = std::chrono::seconds(1);
  SimDuration unschedulable_flush_period = std::chrono::seconds(30);
  // SchedulerQueueingHints (queueing_hints.h scheduler_since): a failed pod goes to unschedulablePods
  // whatever moves came during its cycle (no moveRequestCycle), to podBackoffQ only when no plugin
  // rejected it; the event loop moves pods by their rejectors' hints
  // (move_all_to_active_or_backoff with a predicate).
  bool queueing_hints = false;
  // SchedulerPopFromBackoffQ (backoff_queue.go): Pop takes podBackoffQ's head when activeQ is empty;
  // backoff expiries are truncated to whole-second windows (backoffQOrderingWindowDuration), a pod
  // still backs off within its expiry's window, and within a window podBackoffQ is in activeQ's order;
  // pods failed by an error (no rejector) wait in podErrorBackoffQ, which Pop does not take from.
  bool pop_from_backoff = false;
};

// calculateBackoffDuration: the initial duration doubled for each attempt after the first, capped at
// the maximum. Attempts <= 1 give the initial duration.
SimDuration backoff_duration(int attempts, const QueueOptions& options);
// getBackoffTime: the pod's timestamp plus its backoff, truncated to its window with pop_from_backoff.
SimTime backoff_expiry(const QueuedPodInfo& info, const QueueOptions& options);

// An error the queue reports instead of corrupting its state (a pod added twice, a failed pod that is
// still queued): the Go functions return these as errors.
class QueueError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SchedulingQueue {
 public:
  // The timers start at clock.now(), as Run starts both loops at once.
  explicit SchedulingQueue(const VirtualClock& clock, QueueOptions options = {});

  // Add: a new pending pod goes to activeQ with timestamp now. Throws QueueError if it is queued
  // already.
  void add(std::string uid, int32_t priority);

  // Pop: the head of activeQ (with pop_from_backoff, of podBackoffQ when activeQ is empty), with
  // attempts incremented; increments the scheduling cycle. nullopt (and no new cycle) when there is
  // none: the simulator then advances the clock rather than block.
  std::optional<QueuedPodInfo> pop();
  // Whether pop() would return a pod.
  bool can_pop() const { return !active_.empty() || (options_.pop_from_backoff && !backoff_.empty()); }

  // Every later move is reported to `observer` (none: nothing is built, one branch per move).
  void set_move_observer(MoveObserver observer) { observer_ = std::move(observer); }

  // SchedulingCycle: the number of pods popped so far.
  int64_t scheduling_cycle() const { return scheduling_cycle_; }
  int64_t move_request_cycle() const { return move_request_cycle_; }

  // AddUnschedulableIfNotPresent: returns a pod that failed the cycle `pod_scheduling_cycle` (the
  // value of scheduling_cycle() right after its Pop). Its timestamp is refreshed; it goes to
  // podBackoffQ if a move request came during or after that cycle (moveRequestCycle >= the pod's
  // cycle: the event that could have helped it happened while it was being tried, so waiting in
  // unschedulablePods for another would be wrong), otherwise to unschedulablePods. `info` is what
  // pop() returned, with unschedulable_events set by the caller. Throws QueueError if queued already.
  void add_unschedulable_if_not_present(QueuedPodInfo info, int64_t pod_scheduling_cycle);

  // MoveAllToActiveOrBackoffQueue: every pod in unschedulablePods that `event` could help (see
  // QueuedPodInfo::unschedulable_events) goes to podBackoffQ if still backing off, else to activeQ;
  // moveRequestCycle becomes the current cycle even if none moved.
  void move_all_to_active_or_backoff(ClusterEvent event);
  // The same with queueing hints: the pods `worth` says the event may help (isPodWorthRequeuing), in
  // UID order, whatever their unschedulable_events.
  void move_all_to_active_or_backoff(ClusterEvent event,
                                     const std::function<bool(const QueuedPodInfo&)>& worth);

  // Delete: removes the pod from whichever queue holds it and drops its nomination. Returns whether
  // it was queued.
  bool remove(std::string_view uid);

  // flushBackoffQCompleted: every pod of podBackoffQ whose backoff has expired (expiry <= now) goes to
  // activeQ.
  void flush_backoff_completed();
  // flushUnschedulablePodsLeftover: every pod that has been in unschedulablePods longer than
  // max_in_unschedulable (strictly) moves as on a wildcard event.
  void flush_unschedulable_leftover();

  // The earliest virtual time at which a periodic flush would move a pod (kNever if none would): a
  // tick of the 1 s or the 30 s loop. Valid until the next queue operation.
  SimTime next_timer_due() const;
  // Runs the flushes whose useful tick has come (next_timer_due() <= now). The event loop must not
  // move the clock past next_timer_due() without calling this.
  void run_due_timers();

  // isPodBackingoff for a pod that is not in activeQ: its backoff expiry (timestamp + backoff of its
  // attempts) is after now.
  bool is_backing_off(const QueuedPodInfo& info) const;
  SimTime backoff_expiry(const QueuedPodInfo& info) const;

  QueueName where(std::string_view uid) const;
  // The metadata of a queued pod, or nullptr.
  const QueuedPodInfo* get(std::string_view uid) const;
  size_t active_size() const { return active_.size(); }
  size_t backoff_size() const { return backoff_.size() + error_backoff_.size(); }
  size_t unschedulable_size() const { return unschedulable_.size(); }
  size_t size() const { return active_size() + backoff_size() + unschedulable_size(); }

  // The nominator (scheduling_queue.go nominator): pods that preempted, and the node each may use
  // once its victims are gone. The simulator holds the nominated pods' resources on that node against
  // pods of lower priority (addNominatedPods in the filter) until the pod binds or is deleted.
  // AddNominatedPod: nominates `uid` to `node`, replacing an earlier nomination; an empty node only
  // removes it (nominator.add deletes first and stores nothing without a node name).
  void add_nominated_pod(const std::string& uid, const std::string& node);
  // DeleteNominatedPodIfExists. Returns whether the pod was nominated.
  bool delete_nominated_pod_if_exists(std::string_view uid);
  // NominatedPodsForNode: in nomination order.
  const std::vector<std::string>& nominated_pods_for_node(std::string_view node) const;
  // Every node with nominated pods, and those pods in nomination order.
  const std::map<std::string, std::vector<std::string>, std::less<>>& nominated_pods() const {
    return nominated_pods_;
  }
  // The node a pod is nominated to, or nullopt.
  std::optional<std::string> nominated_node(std::string_view uid) const;

 private:
  struct KeyOf {
    const std::string& operator()(const QueuedPodInfo& p) const { return p.uid; }
  };
  // queuesort.PrioritySort.Less: higher priority first, then earlier timestamp; then the sequence.
  struct ActiveLess {
    bool operator()(const QueuedPodInfo& a, const QueuedPodInfo& b) const;
  };
  // podsCompareBackoffCompleted: earlier backoff expiry first; with pop_from_backoff and `by_priority`
  // then activeQ's order (lessBackoffCompletedWithPriority); then the sequence.
  struct BackoffLess {
    QueueOptions options;  // a copy, so that the queue stays copyable
    bool by_priority = false;
    bool operator()(const QueuedPodInfo& a, const QueuedPodInfo& b) const;
  };
  using UnschedulableByTime = std::set<std::tuple<SimTime, uint64_t, std::string>>;

  void stamp(QueuedPodInfo& info);
  void erase_unschedulable(std::map<std::string, QueuedPodInfo, std::less<>>::iterator it);
  // podBackoffQ, or podErrorBackoffQ for a pod no plugin rejected (with pop_from_backoff).
  void push_backoff(QueuedPodInfo info);
  // The pod of the two backoff queues that completes its backoff first, or nullptr.
  const QueuedPodInfo* backoff_head() const;
  // The pods of unschedulablePods `moves` accepts, taken out of it, in UID order.
  std::vector<QueuedPodInfo> take_unschedulable(const std::function<bool(const QueuedPodInfo&)>& moves);
  // movePodsToActiveOrBackoffQueue for pods taken out of unschedulablePods.
  // Pods taken out of `from` (a failed cycle's: kNone) go on.
  void move_to_active_or_backoff(std::vector<QueuedPodInfo> pods, MoveEvent event,
                                 QueueName from = QueueName::kUnschedulable);
  // Reports a move to the observer, if any.
  void moved(const std::string& uid, QueueName from, QueueName to, MoveEvent event) const {
    if (observer_) report(uid, from, to, event);
  }
  void report(const std::string& uid, QueueName from, QueueName to, MoveEvent event) const;
  // The first tick of a loop (start + k * period, k >= 0) at or after `t`.
  SimTime tick_at_or_after(SimTime t, SimDuration period) const;
  SimTime next_backoff_flush() const;
  SimTime next_unschedulable_flush() const;

  const VirtualClock* clock_;
  QueueOptions options_;
  SimTime timers_start_;
  IndexedHeap<QueuedPodInfo, KeyOf, ActiveLess> active_;
  IndexedHeap<QueuedPodInfo, KeyOf, BackoffLess> backoff_;
  IndexedHeap<QueuedPodInfo, KeyOf, BackoffLess> error_backoff_;  // podErrorBackoffQ
  // unschedulablePods, by UID (ordered, so that moves visit pods in a fixed order), and the same pods
  // by (timestamp, sequence) for the leftover flush.
  std::map<std::string, QueuedPodInfo, std::less<>> unschedulable_;
  UnschedulableByTime unschedulable_by_time_;
  int64_t scheduling_cycle_ = 0;
  int64_t move_request_cycle_ = -1;  // NewPriorityQueue: moveRequestCycle: -1
  uint64_t next_sequence_ = 0;
  // nominator.nominatedPods and nominatedPodToNode.
  std::map<std::string, std::vector<std::string>, std::less<>> nominated_pods_;
  std::map<std::string, std::string, std::less<>> nominated_pod_to_node_;
  MoveObserver observer_;
};

}  // namespace kext::sim
