#include "sim/core/scheduling_queue.h"

#include <algorithm>

namespace kext::sim {

SimDuration backoff_duration(int attempts, const QueueOptions& options) {
  // calculateBackoffDuration: doubles once per attempt after the first, returning the maximum as soon
  // as the doubling passes it.
  SimDuration d = options.initial_backoff;
  for (int i = 1; i < attempts; ++i) {
    d *= 2;
    if (d > options.max_backoff) return options.max_backoff;
  }
  return d;
}

namespace {

// alignToWindow: time.Truncate to backoffQOrderingWindowDuration (a second); simulated time 0 starts
// a window.
SimTime window_start(SimTime t) {
  constexpr SimDuration kWindow = std::chrono::seconds(1);
  return SimTime{0} + (t - SimTime{0}) / kWindow * kWindow;
}

}  // namespace

SimTime backoff_expiry(const QueuedPodInfo& info, const QueueOptions& options) {
  const SimTime expiry = info.timestamp + backoff_duration(info.attempts, options);
  return options.pop_from_backoff ? window_start(expiry) : expiry;
}

std::string_view queue_name(QueueName queue) {
  switch (queue) {
    case QueueName::kActive:
      return "activeQ";
    case QueueName::kBackoff:
      return "backoffQ";
    case QueueName::kUnschedulable:
      return "unschedulablePods";
    case QueueName::kNone:
      break;
  }
  return "";
}

std::string_view move_event_name(MoveEvent event) {
  switch (event) {
    case MoveEvent::kPodAdd:
      return "PodAdd";
    case MoveEvent::kScheduleAttemptFailure:
      return "ScheduleAttemptFailure";
    case MoveEvent::kBackoffComplete:
      return "BackoffComplete";
    case MoveEvent::kUnschedulableTimeout:
      return "UnschedulableTimeout";
    case MoveEvent::kNodeAdd:
      return "NodeAdd";
    case MoveEvent::kNodeChange:
      return "NodeChange";
    case MoveEvent::kAssignedPodDelete:
      return "AssignedPodDelete";
    case MoveEvent::kAssignedPodUpdate:
      return "AssignedPodUpdate";
    case MoveEvent::kPodGroupChange:
      return "PodGroupChange";
  }
  return "";
}

MoveEvent move_event_of(ClusterEvent event) {
  switch (event) {
    case ClusterEvent::kPodDeleted:
      return MoveEvent::kAssignedPodDelete;
    case ClusterEvent::kNodeAdded:
      return MoveEvent::kNodeAdd;
    case ClusterEvent::kNodeChanged:
      return MoveEvent::kNodeChange;
    case ClusterEvent::kPodUpdated:
      return MoveEvent::kAssignedPodUpdate;
    case ClusterEvent::kGangChanged:
      return MoveEvent::kPodGroupChange;
  }
  return MoveEvent::kUnschedulableTimeout;
}

void SchedulingQueue::report(const std::string& uid, QueueName from, QueueName to, MoveEvent event) const {
  QueueMove move{clock_->now(), from, to, event, {}};
  if (auto it = nominated_pod_to_node_.find(uid); it != nominated_pod_to_node_.end())
    move.nominated_node = it->second;
  observer_(uid, move);
}

bool SchedulingQueue::ActiveLess::operator()(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
  return a.sequence < b.sequence;
}

bool SchedulingQueue::BackoffLess::operator()(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  const SimTime ea = sim::backoff_expiry(a, options);
  const SimTime eb = sim::backoff_expiry(b, options);
  if (ea != eb) return ea < eb;
  if (by_priority && options.pop_from_backoff) return ActiveLess{}(a, b);
  return a.sequence < b.sequence;
}

SchedulingQueue::SchedulingQueue(const VirtualClock& clock, QueueOptions options)
    : clock_(&clock),
      options_(options),
      timers_start_(clock.now()),
      active_(KeyOf{}, ActiveLess{}),
      backoff_(KeyOf{}, BackoffLess{options, true}),
      error_backoff_(KeyOf{}, BackoffLess{options, false}) {
  if (options_.initial_backoff <= SimDuration::zero() || options_.max_backoff <= SimDuration::zero() ||
      options_.backoff_flush_period <= SimDuration::zero() ||
      options_.unschedulable_flush_period <= SimDuration::zero() ||
      options_.max_in_unschedulable < SimDuration::zero()) {
    throw QueueError("queue options: backoff durations and flush periods must be positive");
  }
}

void SchedulingQueue::stamp(QueuedPodInfo& info) {
  info.timestamp = clock_->now();
  info.sequence = next_sequence_++;
}

QueueName SchedulingQueue::where(std::string_view uid) const {
  if (active_.contains(uid)) return QueueName::kActive;
  if (backoff_.contains(uid) || error_backoff_.contains(uid)) return QueueName::kBackoff;
  if (unschedulable_.find(uid) != unschedulable_.end()) return QueueName::kUnschedulable;
  return QueueName::kNone;
}

const QueuedPodInfo* SchedulingQueue::get(std::string_view uid) const {
  if (const QueuedPodInfo* p = active_.get(uid)) return p;
  if (const QueuedPodInfo* p = backoff_.get(uid)) return p;
  if (const QueuedPodInfo* p = error_backoff_.get(uid)) return p;
  auto it = unschedulable_.find(uid);
  return it == unschedulable_.end() ? nullptr : &it->second;
}

void SchedulingQueue::add(std::string uid, int32_t priority) {
  if (where(uid) != QueueName::kNone) throw QueueError("pod " + uid + " is already in the scheduling queue");
  QueuedPodInfo info;
  info.uid = std::move(uid);
  info.priority = priority;
  stamp(info);
  info.initial_attempt_timestamp = info.timestamp;
  moved(info.uid, QueueName::kNone, QueueName::kActive, MoveEvent::kPodAdd);
  active_.push(std::move(info));
}

std::optional<QueuedPodInfo> SchedulingQueue::pop() {
  if (!can_pop()) return std::nullopt;
  // activeQueue.unlockedPop: with activeQ empty, podBackoffQ's head (popBackoff), backing off or not.
  QueuedPodInfo info = active_.empty() ? backoff_.pop() : active_.pop();
  ++info.attempts;
  ++scheduling_cycle_;
  return info;
}

void SchedulingQueue::add_unschedulable_if_not_present(QueuedPodInfo info, int64_t pod_scheduling_cycle) {
  switch (where(info.uid)) {
    case QueueName::kUnschedulable:
      throw QueueError("pod " + info.uid + " is already present in unschedulable queue");
    case QueueName::kActive:
      throw QueueError("pod " + info.uid + " is already present in the active queue");
    case QueueName::kBackoff:
      throw QueueError("pod " + info.uid + " is already present in the backoff queue");
    case QueueName::kNone:
      break;
  }
  stamp(info);
  if (options_.queueing_hints) {
    // determineSchedulingHintForInFlightPod: a pod no plugin rejected is requeued after its backoff;
    // the others wait for an event their hints accept (the simulator raises none while a pod is in
    // flight but the bind failure's own, which comes with no rejector).
    if (info.rejectors == 0) {
      move_to_active_or_backoff({std::move(info)}, MoveEvent::kScheduleAttemptFailure, QueueName::kNone);
      return;
    }
  } else if (move_request_cycle_ >= pod_scheduling_cycle) {
    moved(info.uid, QueueName::kNone, QueueName::kBackoff, MoveEvent::kScheduleAttemptFailure);
    push_backoff(std::move(info));
    return;
  }
  moved(info.uid, QueueName::kNone, QueueName::kUnschedulable, MoveEvent::kScheduleAttemptFailure);
  unschedulable_by_time_.emplace(info.timestamp, info.sequence, info.uid);
  std::string key = info.uid;
  unschedulable_.emplace(std::move(key), std::move(info));
}

void SchedulingQueue::erase_unschedulable(std::map<std::string, QueuedPodInfo, std::less<>>::iterator it) {
  unschedulable_by_time_.erase({it->second.timestamp, it->second.sequence, it->second.uid});
  unschedulable_.erase(it);
}

bool SchedulingQueue::is_backing_off(const QueuedPodInfo& info) const {
  const SimTime now = clock_->now();
  // isPodBackingoff: with windows, still backing off while the expiry is not before now's window.
  if (options_.pop_from_backoff) return backoff_expiry(info) >= window_start(now);
  return backoff_expiry(info) > now;
}

SimTime SchedulingQueue::backoff_expiry(const QueuedPodInfo& info) const {
  return sim::backoff_expiry(info, options_);
}

void SchedulingQueue::push_backoff(QueuedPodInfo info) {
  if (options_.pop_from_backoff && info.rejectors == 0) {
    error_backoff_.push(std::move(info));
  } else {
    backoff_.push(std::move(info));
  }
}

const QueuedPodInfo* SchedulingQueue::backoff_head() const {
  const QueuedPodInfo* a = backoff_.empty() ? nullptr : &backoff_.top();
  const QueuedPodInfo* b = error_backoff_.empty() ? nullptr : &error_backoff_.top();
  if (a == nullptr || b == nullptr) return a != nullptr ? a : b;
  return backoff_expiry(*b) < backoff_expiry(*a) ? b : a;
}

void SchedulingQueue::move_to_active_or_backoff(std::vector<QueuedPodInfo> pods, MoveEvent event,
                                                QueueName from) {
  for (QueuedPodInfo& info : pods) {
    if (is_backing_off(info)) {
      moved(info.uid, from, QueueName::kBackoff, event);
      push_backoff(std::move(info));
    } else {
      moved(info.uid, from, QueueName::kActive, event);
      active_.push(std::move(info));
    }
  }
  if (from == QueueName::kUnschedulable) move_request_cycle_ = scheduling_cycle_;
}

std::vector<QueuedPodInfo> SchedulingQueue::take_unschedulable(
    const std::function<bool(const QueuedPodInfo&)>& moves) {
  std::vector<QueuedPodInfo> moving;
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    if (!moves(it->second)) {
      ++it;
      continue;
    }
    moving.push_back(std::move(it->second));
    auto next = std::next(it);
    unschedulable_by_time_.erase({moving.back().timestamp, moving.back().sequence, moving.back().uid});
    unschedulable_.erase(it);
    it = next;
  }
  return moving;
}

void SchedulingQueue::move_all_to_active_or_backoff(ClusterEvent event) {
  const auto bit = static_cast<EventMask>(event);
  // podMatchesEvent: a pod moves if the event is one that could help it.
  move_to_active_or_backoff(
      take_unschedulable([bit](const QueuedPodInfo& p) { return (p.unschedulable_events & bit) != 0; }),
      move_event_of(event));
}

void SchedulingQueue::move_all_to_active_or_backoff(ClusterEvent event,
                                                    const std::function<bool(const QueuedPodInfo&)>& worth) {
  move_to_active_or_backoff(take_unschedulable(worth), move_event_of(event));
}

bool SchedulingQueue::remove(std::string_view uid) {
  delete_nominated_pod_if_exists(uid);
  if (active_.erase(uid)) return true;
  if (backoff_.erase(uid) || error_backoff_.erase(uid)) return true;
  auto it = unschedulable_.find(uid);
  if (it == unschedulable_.end()) return false;
  erase_unschedulable(it);
  return true;
}

void SchedulingQueue::flush_backoff_completed() {
  // popAllBackoffCompleted: podBackoffQ's, then podErrorBackoffQ's.
  for (auto* heap : {&backoff_, &error_backoff_}) {
    while (!heap->empty() && !is_backing_off(heap->top())) {
      moved(heap->top().uid, QueueName::kBackoff, QueueName::kActive, MoveEvent::kBackoffComplete);
      active_.push(heap->pop());
    }
  }
}

void SchedulingQueue::flush_unschedulable_leftover() {
  const SimTime now = clock_->now();
  std::vector<QueuedPodInfo> moving;
  // Oldest first; stop at the first pod young enough to stay.
  while (!unschedulable_by_time_.empty()) {
    const auto& [ts, seq, uid] = *unschedulable_by_time_.begin();
    if (now - ts <= options_.max_in_unschedulable) break;
    auto it = unschedulable_.find(uid);
    moving.push_back(std::move(it->second));
    unschedulable_.erase(it);
    unschedulable_by_time_.erase(unschedulable_by_time_.begin());
  }
  // Only a flush that found pods is a move request (flushUnschedulablePodsLeftover).
  if (!moving.empty()) move_to_active_or_backoff(std::move(moving), MoveEvent::kUnschedulableTimeout);
}

SimTime SchedulingQueue::tick_at_or_after(SimTime t, SimDuration period) const {
  if (t <= timers_start_) return timers_start_;
  const auto k = (t - timers_start_ + period - SimDuration{1}) / period;
  return timers_start_ + k * period;
}

SimTime SchedulingQueue::next_backoff_flush() const {
  const QueuedPodInfo* head = backoff_head();
  if (head == nullptr) return kNever;
  // Aligned to windows, a pod completes its backoff once now's window is past its expiry's.
  const SimDuration after = options_.pop_from_backoff ? std::chrono::seconds(1) : SimDuration::zero();
  return tick_at_or_after(backoff_expiry(*head) + after, options_.backoff_flush_period);
}

SimTime SchedulingQueue::next_unschedulable_flush() const {
  if (unschedulable_by_time_.empty()) return kNever;
  // The oldest pod leaves at the first tick strictly more than max_in_unschedulable after it came.
  const SimTime oldest = std::get<0>(*unschedulable_by_time_.begin());
  return tick_at_or_after(oldest + options_.max_in_unschedulable + SimDuration{1},
                          options_.unschedulable_flush_period);
}

SimTime SchedulingQueue::next_timer_due() const {
  return std::min(next_backoff_flush(), next_unschedulable_flush());
}

void SchedulingQueue::run_due_timers() {
  const SimTime now = clock_->now();
  // Both loops tick at 0 s, 30 s, ...; kube-scheduler's goroutines race there, and the order matters
  // only for a pod that the leftover flush sends to podBackoffQ already expired, which cannot happen
  // (a pod in unschedulablePods for 60 s has finished any backoff of at most 10 s). Backoff first.
  if (next_backoff_flush() <= now) flush_backoff_completed();
  if (next_unschedulable_flush() <= now) flush_unschedulable_leftover();
}

void SchedulingQueue::add_nominated_pod(const std::string& uid, const std::string& node) {
  delete_nominated_pod_if_exists(uid);
  if (node.empty()) return;
  nominated_pod_to_node_[uid] = node;
  nominated_pods_[node].push_back(uid);
}

bool SchedulingQueue::delete_nominated_pod_if_exists(std::string_view uid) {
  auto it = nominated_pod_to_node_.find(uid);
  if (it == nominated_pod_to_node_.end()) return false;
  auto node_it = nominated_pods_.find(it->second);
  if (node_it != nominated_pods_.end()) {
    auto& pods = node_it->second;
    auto pod_it = std::find(pods.begin(), pods.end(), uid);
    if (pod_it != pods.end()) pods.erase(pod_it);
    if (pods.empty()) nominated_pods_.erase(node_it);
  }
  nominated_pod_to_node_.erase(it);
  return true;
}

const std::vector<std::string>& SchedulingQueue::nominated_pods_for_node(std::string_view node) const {
  static const std::vector<std::string> kNone;
  auto it = nominated_pods_.find(node);
  return it == nominated_pods_.end() ? kNone : it->second;
}

std::optional<std::string> SchedulingQueue::nominated_node(std::string_view uid) const {
  auto it = nominated_pod_to_node_.find(uid);
  if (it == nominated_pod_to_node_.end()) return std::nullopt;
  return it->second;
}

}  // namespace kext::sim
