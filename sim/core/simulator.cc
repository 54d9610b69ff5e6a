#include "sim/core/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "algorithms/namespaced_key.h"
#include "common/quantile.h"
#include "sim/core/queueing_hints.h"

namespace kext::sim {
namespace {

// The queue of the profile's minor (preemption::Options::version, which compile() sets from the
// Profile's): hints and popping from podBackoffQ where that minor has them on.
QueueOptions queue_options(const SimulatorOptions& options) {
  QueueOptions q = options.queue;
  q.queueing_hints = scheduler_since::queueing_hints(options.preemption.version);
  q.pop_from_backoff = scheduler_since::pop_from_backoff(options.preemption.version);
  return q;
}

}  // namespace

Simulator::Simulator(SimCluster cluster, const Engine& engine, SimulatorOptions options)
    : cluster_(std::move(cluster)),
      engine_(&engine),
      options_(options),
      queue_(clock_, queue_options(options)),
      state_{Rng(options.seed), 0, {}, gang::Gatekeeper(options.gang_backoff), {}},
      usage_(options.usage) {
  if (options_.usage.enabled) cluster_.set_usage(&usage_);
  config_.engine = engine_;
  config_.backend = options_.backend;
  config_.preemption = options_.preemption;
  config_.epoch_unix_seconds = options_.epoch_unix_seconds;
  config_.percentage_of_nodes_to_score = options_.percentage_of_nodes_to_score;
  config_.scoring = options_.scoring;
  config_.queueing_hints = scheduler_since::queueing_hints(options_.preemption.version);
  state_.gangs.set_topology_levels(options_.topology_levels);
  state_.gangs.set_observer([this](gang::GroupEvent e, const std::string& group, gang::Time) {
    gang_events_.push_back({clock_.now(), group, e});
  });
  if (options_.record_moves) {
    queue_.set_move_observer(
        [this](const std::string& uid, const QueueMove& move) { moves_[uid].push_back(move); });
  }
}

void Simulator::schedule(SimTime at, EventKind kind, std::string uid) {
  events_.push(Event{at, next_sequence_++, kind, std::move(uid)});
}

void Simulator::add_pending(Pod pod, SimTime arrival, Lifecycle lifecycle) {
  if (!pod.node_name.empty()) {
    throw ClusterError("pod " + namespaced_key(pod.namespace_, pod.name) +
                       ": a pending pod must not have spec.nodeName");
  }
  add_arriving(std::move(pod), arrival, lifecycle, EventKind::kArrive);
}

void Simulator::add_bound(Pod pod, SimTime at, Lifecycle lifecycle) {
  if (pod.node_name.empty())
    throw ClusterError("pod " + namespaced_key(pod.namespace_, pod.name) +
                       ": a bound pod must have spec.nodeName");
  add_arriving(std::move(pod), at, lifecycle, EventKind::kArriveBound);
}

void Simulator::add_arriving(Pod pod, SimTime at, Lifecycle lifecycle, EventKind kind) {
  if (pod.uid.empty())
    throw ClusterError("pod " + namespaced_key(pod.namespace_, pod.name) + ": metadata.uid is empty");
  if (cluster_.pod(pod.uid) != nullptr || arriving_.count(pod.uid) != 0) {
    throw ClusterError("pod " + pod.uid + ": added twice");
  }
  std::string uid = pod.uid;
  lifecycles_[uid] = lifecycle;
  arriving_.emplace(uid, std::move(pod));
  schedule(at, kind, std::move(uid));
}

void Simulator::delete_node(const std::string& name, SimTime at) {
  schedule(at, EventKind::kNodeDelete, name);
}

void Simulator::set_lifecycle(const std::string& uid, Lifecycle lifecycle) {
  auto pod = cluster_.pod(uid);
  if (pod == nullptr || pod->node_name.empty())
    throw ClusterError("lifecycle: " + uid + " is not a running pod");
  lifecycles_[uid] = lifecycle;
  if (lifecycle.runtime.has_value()) schedule(clock_.now() + *lifecycle.runtime, EventKind::kComplete, uid);
}

void Simulator::add_node(Node node, SimTime at) {
  if (node.name.empty()) throw ClusterError("node: metadata.name is empty");
  if (cluster_.node(node.name) != nullptr || joining_.count(node.name) != 0) {
    throw ClusterError("node " + node.name + ": added twice");
  }
  std::string name = node.name;
  joining_.emplace(name, std::move(node));
  schedule(at, EventKind::kNodeAdd, std::move(name));
}

void Simulator::change_node(Node node, SimTime at) {
  if (cluster_.node(node.name) == nullptr && joining_.count(node.name) == 0) {
    throw ClusterError("node " + node.name + ": changed but never added");
  }
  // Several changes of one node may be pending: each is keyed by its own event.
  std::string key = std::to_string(next_sequence_);
  changes_.emplace(key, std::move(node));
  schedule(at, EventKind::kNodeChange, std::move(key));
}

void Simulator::delete_pod(const std::string& uid, SimTime at) {
  if (cluster_.pod(uid) == nullptr && arriving_.count(uid) == 0)
    throw ClusterError("delete: unknown pod " + uid);
  schedule(at, EventKind::kDelete, uid);
}

void Simulator::remove_bound(const std::string& uid) {
  const std::shared_ptr<const Pod> pod = cluster_.pod(uid);
  auto on = cluster_.delete_pod(uid);
  if (on.has_value() && !on->empty())
    move_pods(EventObjects{.event = ClusterEvent::kPodDeleted, .old_pod = pod.get()});
}

void Simulator::move_pods(const EventObjects& e) {
  if (!config_.queueing_hints) {
    queue_.move_all_to_active_or_backoff(e.event);
    return;
  }
  queue_.move_all_to_active_or_backoff(e.event, [&](const QueuedPodInfo& info) {
    const std::shared_ptr<const PodInfo> pi = cluster_.pod_info(info.uid);
    const std::shared_ptr<const Pod> pod = cluster_.pod(info.uid);
    if (pi == nullptr || pod == nullptr) return true;
    return worth_requeuing(*pod, pi->requests, info.rejectors, e,
                           affinity_label_keys(options_.preemption.version));
  });
}

void Simulator::forget(const std::string& uid) {
  lifecycles_.erase(uid);
  arrived_at_.erase(uid);
  evicted_.erase(uid);
}

void Simulator::handle(const Event& e, RunSummary& summary) {
  switch (e.kind) {
    case EventKind::kArrive:
      arrive(e.uid);
      return;
    case EventKind::kArriveBound:
      arrive_bound(e.uid);
      return;
    case EventKind::kNodeDelete:
      for (const std::string& uid : cluster_.remove_node(e.uid)) forget(uid);
      return;
    case EventKind::kDeleteVictim:
      delete_victim(e.uid, summary);
      return;
    case EventKind::kNodeChange:
      update_node(e.uid);
      return;
    case EventKind::kDelete:
      delete_now(e.uid);
      return;
    case EventKind::kNodeAdd:
      join_node(e.uid);
      return;
    case EventKind::kComplete:
      complete(e.uid, summary);
      return;
  }
}

void Simulator::arrive(const std::string& uid) {
  auto it = arriving_.find(uid);
  if (it == arriving_.end()) return;  // deleted before it arrived
  Pod pod = std::move(it->second);
  arriving_.erase(it);
  const int32_t priority = pod.effective_priority();
  const bool member = !state_.groups.empty() && gang::pod_group_key(pod).has_value();
  cluster_.add_pod(std::move(pod));
  queue_.add(uid, priority);
  arrived_at_[uid] = clock_.now();
  // A member created: its group's pods waiting for the rest try again (Coscheduling's Pod Add).
  if (member) move_pods(EventObjects{.event = ClusterEvent::kGangChanged});
}

void Simulator::arrive_bound(const std::string& uid) {
  auto it = arriving_.find(uid);
  if (it == arriving_.end()) return;  // deleted before it arrived
  Pod pod = std::move(it->second);
  arriving_.erase(it);
  if (cluster_.node(pod.node_name) == nullptr) {
    forget(uid);
    return;
  }
  cluster_.add_pod(std::move(pod));
  move_pods(EventObjects{.event = ClusterEvent::kPodUpdated, .new_pod = cluster_.pod(uid).get()});
}

void Simulator::delete_victim(const std::string& uid, RunSummary& summary) {
  // Gone already if it completed during its grace period.
  auto pod = cluster_.pod(uid);
  if (pod == nullptr) return;
  remove_bound(uid);
  auto found = lifecycles_.find(uid);
  const Lifecycle lc = found == lifecycles_.end() ? Lifecycle{} : found->second;  // forget() erases it
  forget(uid);
  if (lc.recreate_when_preempted) recreate(*pod, lc, summary);
}

void Simulator::recreate(const Pod& victim, Lifecycle lifecycle, RunSummary& summary) {
  const int n = ++recreations_[victim.uid];
  Pod next = victim;
  next.uid = victim.uid + "-r" + std::to_string(n);
  next.name = victim.name + "-r" + std::to_string(n);
  next.node_name.clear();
  next.nominated_node_name.clear();
  next.phase.clear();
  next.start_time.reset();
  next.terminating = false;
  ++summary.recreated;
  add_pending(std::move(next), clock_.now(), lifecycle);
}

void Simulator::update_node(const std::string& key) {
  auto it = changes_.find(key);
  Node node = std::move(it->second);
  changes_.erase(it);
  const NodeInfo* before = cluster_.node(node.name);
  if (before == nullptr) return;  // its node has not joined yet
  const std::shared_ptr<const Node> old = before->node;
  const std::string name = node.name;
  cluster_.replace_node(std::move(node));
  move_pods(EventObjects{.event = ClusterEvent::kNodeChanged,
                         .old_node = old.get(),
                         .new_node = cluster_.node(name)->node.get()});
}

void Simulator::delete_now(const std::string& uid) {
  if (arriving_.erase(uid) != 0) {
    forget(uid);
    return;
  }
  auto pod = cluster_.pod(uid);
  if (pod == nullptr) return;
  if (pod->node_name.empty()) {
    queue_.remove(uid);
    moves_.erase(uid);  // no decision will carry them
    cluster_.delete_pod(uid);
  } else {
    remove_bound(uid);
  }
  forget(uid);
}

void Simulator::join_node(const std::string& name) {
  auto it = joining_.find(name);
  Node node = std::move(it->second);
  joining_.erase(it);
  cluster_.add_node(std::move(node));
  move_pods(EventObjects{.event = ClusterEvent::kNodeAdded, .new_node = cluster_.node(name)->node.get()});
}

void Simulator::complete(const std::string& uid, RunSummary& summary) {
  auto pod = cluster_.pod(uid);
  if (pod == nullptr || pod->node_name.empty()) return;  // preempted and gone before it finished
  ++summary.completed;
  remove_bound(uid);
  forget(uid);
}

void Simulator::record_pending(RunSummary& summary) const {
  auto& points = summary.pending_over_time;
  const size_t pending = queue_.size();
  if (!points.empty() && points.back().second == pending) return;
  if (!points.empty() && points.back().first == clock_.now()) {
    points.back().second = pending;
    // Back to the value before this instant: the instant changed nothing.
    if (points.size() >= 2 && points[points.size() - 2].second == pending) points.pop_back();
    return;
  }
  points.emplace_back(clock_.now(), pending);
}

RunSummary Simulator::run(const std::function<void(const CycleRecord&)>& on_decision) {
  RunSummary summary;
  summary.pending_over_time.emplace_back(clock_.now(), queue_.size());
  loop(SimTime{0} + options_.max_time, summary, on_decision);
  summary.pending_at_end = queue_.size() + arriving_.size();
  // (Nodes still to join do not count: a run that stops early leaves them out.)
  summary.end = clock_.now();
  if (options_.usage.enabled) summary.node_usage = summarize_usage(usage_.series());
  return summary;
}

void Simulator::run_until(SimTime t, RunSummary& summary,
                          const std::function<void(const CycleRecord&)>& on_decision) {
  if (summary.pending_over_time.empty()) summary.pending_over_time.emplace_back(clock_.now(), queue_.size());
  loop(std::min(t, SimTime{0} + options_.max_time), summary, on_decision);
  summary.pending_at_end = queue_.size() + arriving_.size();
  summary.end = clock_.now();
  if (options_.usage.enabled) summary.node_usage = summarize_usage(usage_.series());
}

double Simulator::usage_fraction(const PodMeta& pod) const {
  const auto it = lifecycles_.find(pod.uid);
  const UsageProfile* profile = it == lifecycles_.end() ? nullptr : it->second.usage.get();
  if (profile == nullptr) return options_.usage.default_fraction;
  const int64_t now_ms = (options_.epoch_unix_seconds * 1000) +
                         std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now()).count();
  const int64_t started_ms = pod.start_time.value_or(options_.epoch_unix_seconds) * 1000;
  return profile->at(std::chrono::milliseconds(std::max<int64_t>(0, now_ms - started_ms)));
}

void Simulator::sample_usage() {
  if (!options_.usage.enabled || options_.usage.interval <= SimDuration::zero()) return;
  while (next_sample_ <= clock_.now()) {
    const int64_t tick_ms = (options_.epoch_unix_seconds * 1000) +
                            std::chrono::duration_cast<std::chrono::milliseconds>(next_sample_).count();
    usage_.sample(cluster_, tick_ms - 1, [this](const PodMeta& p) { return usage_fraction(p); });
    next_sample_ += options_.usage.interval;
  }
}

SimTime Simulator::next_due() const {
  if (queue_.can_pop()) return clock_.now();
  return std::max(idle_next(), clock_.now());
}

SimTime Simulator::idle_next() const {
  // The next event, or the next flush while pods wait in podBackoffQ or an event is still to come.
  // Pods in unschedulablePods alone do not keep the run going: nothing has changed that could help
  // them.
  SimTime next = events_.empty() ? kNever : events_.top().at;
  // A group backing off is retried by the queue's flushes as the scheduler retries it: its refused
  // members wait in unschedulablePods for the leftover flush.
  if (queue_.backoff_size() > 0 || !events_.empty() || state_.gangs.any_backing_off(gang_time(clock_.now())))
    next = std::min(next, queue_.next_timer_due());
  if (auto due = state_.gangs.next_deadline()) next = std::min(next, std::max(clock_.now(), sim_time(*due)));
  return next;
}

void Simulator::flush_gang_events(RunSummary& summary) {
  std::move(gang_events_.begin(), gang_events_.end(), std::back_inserter(summary.gang_events));
  gang_events_.clear();
}

void Simulator::expire_gangs() {
  const std::optional<gang::Time> due = state_.gangs.next_deadline();
  if (!due || sim_time(*due) > clock_.now()) return;
  const std::vector<gang::Expired> gone = state_.gangs.sweep(gang_time(clock_.now()), &state_.groups);
  for (const gang::Expired& e : gone) {
    for (const std::string& uid : e.rejected) {
      auto pod = cluster_.pod(uid);
      if (pod == nullptr || pod->node_name.empty()) continue;  // deleted while it waited
      cluster_.unbind(uid);
      queue_.add(uid, pod->effective_priority());
    }
  }
  if (!gone.empty()) move_pods(EventObjects{.event = ClusterEvent::kGangChanged});
}

void Simulator::on_bound(const std::string& uid, RunSummary& summary) {
  ++summary.scheduled;
  if (auto at = arrived_at_.find(uid); at != arrived_at_.end()) {
    summary.latencies.push_back(clock_.now() - at->second);
    arrived_at_.erase(at);
  }
  auto lc = lifecycles_.find(uid);
  if (lc != lifecycles_.end() && lc->second.runtime.has_value()) {
    schedule(clock_.now() + *lc->second.runtime, EventKind::kComplete, uid);
  }
}

void Simulator::on_bind_answers(std::vector<BindAnswer> answers, RunSummary& summary, CycleRecord* cycle,
                                std::vector<CycleRecord>& failed) {
  for (BindAnswer& a : answers) {
    if (!a.node.empty()) {
      bound_elsewhere(a.uid, a.node, summary, failed);
      continue;
    }
    // An answer comes only for a bind the cycle saw held (BindReply::Kind::kHeld), which kept what
    // Pop returned.
    auto held = state_.held_binds.find(a.uid);
    if (held == state_.held_binds.end()) continue;
    auto [popped, popped_cycle] = std::move(held->second);
    state_.held_binds.erase(held);
    auto pod = cluster_.pod(a.uid);
    if (pod == nullptr || pod->node_name.empty()) continue;  // deleted while its bind was held
    const bool bound = a.error.empty();
    if (bound) {
      on_bound(a.uid, summary);
      // In real time every bind is answered on its own, later than its cycle: a line of its own.
      if (!config_.backend->real_time()) {
        if (cycle != nullptr && a.uid != cycle->uid) cycle->released.push_back(a.uid);
        continue;
      }
    } else {
      ++summary.bind_failures;
    }
    failed.push_back(
        answer_record(*pod, summary, bound ? Outcome::kScheduled : Outcome::kBindFailed, std::move(a.error)));
    if (!bound) forget_bind(queue_, cluster_, std::move(popped), popped_cycle);
  }
}

CycleRecord Simulator::answer_record(const Pod& pod, const RunSummary& summary, Outcome outcome,
                                     std::string message) const {
  CycleRecord r;
  r.at = clock_.now();
  r.cycle = static_cast<int64_t>(summary.cycles);
  r.uid = pod.uid;
  r.pod = namespaced_key(pod.namespace_, pod.name);
  r.priority = pod.effective_priority();
  r.outcome = outcome;
  r.node = pod.node_name;
  r.message = std::move(message);
  return r;
}

void Simulator::bound_elsewhere(const std::string& uid, const std::string& node, RunSummary& summary,
                                std::vector<CycleRecord>& records) {
  auto pod = cluster_.pod(uid);
  if (pod == nullptr || !pod->node_name.empty() || cluster_.node(node) == nullptr) return;
  // An assigned pod leaves the scheduling queue (pkg/scheduler/eventhandlers.go: the update to an
  // assigned pod deletes it from the queue, and addPodToCache adds it). AssignedPodAdded moves only
  // the pods whose affinity terms match it, which this queue does not model for any bind.
  queue_.remove(uid);
  queue_.delete_nominated_pod_if_exists(uid);
  cluster_.bind(
      uid, node,
      options_.epoch_unix_seconds + std::chrono::duration_cast<std::chrono::seconds>(clock_.now()).count());
  ++summary.bound_elsewhere;
  on_bound(uid, summary);
  records.push_back(answer_record(*cluster_.pod(uid), summary, Outcome::kScheduled, "bound by the extender"));
}

void Simulator::answer_binds(bool wait, RunSummary& summary,
                             const std::function<void(const CycleRecord&)>& on_decision) {
  std::vector<CycleRecord> failed;
  on_bind_answers(config_.backend->take_answers(wait), summary, nullptr, failed);
  record_pending(summary);
  if (on_decision)
    for (const CycleRecord& f : failed) on_decision(f);
}

void Simulator::loop(SimTime end, RunSummary& summary,
                     const std::function<void(const CycleRecord&)>& on_decision) {
  summary.gangs = !state_.groups.empty();
  const bool real_time = config_.backend != nullptr && config_.backend->real_time();
  for (;;) {
    if (real_time) {
      clock_.advance_to(std::min(config_.backend->now(), end));
      answer_binds(false, summary, on_decision);
    }
    // The samples due, then everything due now, then the queue's flushes, then one cycle; the clock
    // stands still during a cycle (a cycle takes no simulated time).
    sample_usage();
    while (!events_.empty() && events_.top().at <= clock_.now()) {
      const Event e = events_.top();
      events_.pop();
      handle(e, summary);
      record_pending(summary);
    }
    if (queue_.next_timer_due() <= clock_.now()) queue_.run_due_timers();
    expire_gangs();
    if (queue_.can_pop()) {
      run_one_cycle(summary, on_decision);
      continue;
    }
    if (!real_time && config_.backend != nullptr && config_.backend->holds_binds()) {
      // Simulated time stands still while the backend holds a bind: what it held it for (the rest of
      // a group) can only come from pods already due, and the answer (bound, or an error at its hold
      // bound) comes on the extender's own clock.
      answer_binds(true, summary, on_decision);
      continue;
    }
    const SimTime next = idle_next();
    flush_gang_events(summary);
    if (real_time) {
      // Binds in flight may still answer, or bind pods their groups complete: wait for them too.
      const bool in_flight = config_.backend->holds_binds();
      if (clock_.now() >= end || ((next == kNever || next > end) && !in_flight)) break;
      config_.backend->wait_until(std::min(next, end));
      continue;
    }
    if (next == kNever || next > end) break;
    // A sample tick between now and the next change is taken at its instant; ticks alone never keep
    // the run going.
    clock_.advance_to(options_.usage.enabled ? std::min(next, next_sample_) : next);
  }
}

void Simulator::run_one_cycle(RunSummary& summary,
                              const std::function<void(const CycleRecord&)>& on_decision) {
  std::optional<CycleRecord> d = run_cycle(queue_, cluster_, config_, state_, clock_.now());
  if (!d.has_value()) return;  // only skipped pods were popped
  if (auto m = moves_.find(d->uid); m != moves_.end()) {
    d->moves = std::move(m->second);
    moves_.erase(m);
  }
  ++summary.cycles;
  switch (d->outcome) {
    case Outcome::kScheduled:
      on_bound(d->uid, summary);
      for (const std::string& uid : d->released) on_bound(uid, summary);
      break;
    case Outcome::kWaiting:
      break;
    case Outcome::kPreempted:
      ++summary.preemptions;
      for (const std::string& v : d->victims) {
        // A victim still terminating stays on its node, so a later preemptor's dry run may choose it
        // again (the README's web-1 beside web-0's nomination): one pod evicted, counted and
        // deleted once.
        if (!evicted_.insert(v).second) continue;
        ++summary.victims;
        auto lc = lifecycles_.find(v);
        const SimDuration grace = lc == lifecycles_.end() ? kDefaultGracePeriod : lc->second.grace_period;
        schedule(clock_.now() + grace, EventKind::kDeleteVictim, v);
      }
      break;
    case Outcome::kUnschedulable:
      ++summary.unschedulable;
      break;
    case Outcome::kBindFailed:
      ++summary.bind_failures;
      break;
  }
  // A bind that completed a group through the backend lets the binds it held go with it.
  std::vector<CycleRecord> failed;
  if (config_.backend != nullptr) on_bind_answers(config_.backend->take_answers(false), summary, &*d, failed);
  record_pending(summary);
  flush_gang_events(summary);
  if (on_decision) {
    on_decision(*d);
    for (const CycleRecord& f : failed) on_decision(f);
  }
}

namespace {

std::string seconds_text(SimDuration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

std::string_view gang_event_name(gang::GroupEvent e) {
  switch (e) {
    case gang::GroupEvent::kAdmitted:
      return "admitted";
    case gang::GroupEvent::kComplete:
      return "complete";
    case gang::GroupEvent::kTimedOut:
      return "timed out";
    case gang::GroupEvent::kDeleted:
      return "deleted";
  }
  return "";
}

namespace {

// "12.5 %" of `whole`; "-" without a whole.
std::string share_text(int64_t part, int64_t whole) {
  if (whole <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

// The usage rows: the highest node's CPU usage p95 and peak, as shares of its allocatable ("-" for a
// run without samples, beside one with them).
std::vector<std::pair<std::string, std::string>> usage_rows(const RunSummary& s) {
  int64_t p95 = 0, peak = 0, p95_of = 0, peak_of = 0;
  for (const NodeUsageSummary& u : s.node_usage) {
    if (u.allocatable_milli_cpu <= 0) continue;
    const auto higher = [&](int64_t v, int64_t& best, int64_t& best_of) {
      if (best_of == 0 || v * best_of > best * u.allocatable_milli_cpu)
        best = v, best_of = u.allocatable_milli_cpu;
    };
    higher(u.used_p95_milli_cpu, p95, p95_of);
    higher(u.used_peak_milli_cpu, peak, peak_of);
  }
  return {{"node usage p95, highest (CPU)", share_text(p95, p95_of)},
          {"node usage peak, highest (CPU)", share_text(peak, peak_of)}};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> summary_rows(const RunSummary& s) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"cycles", std::to_string(s.cycles)},
      {"scheduled", std::to_string(s.scheduled)},
      {"preemptions", std::to_string(s.preemptions)},
      {"victims", std::to_string(s.victims)},
      {"unschedulable attempts", std::to_string(s.unschedulable)},
      {"completed", std::to_string(s.completed)},
      {"recreated", std::to_string(s.recreated)},
      {"pending at end", std::to_string(s.pending_at_end)},
      {"simulated time", seconds_text(s.end)},
      {"latency p50", seconds_text(quantile(s.latencies, 0.50))},
      {"latency p90", seconds_text(quantile(s.latencies, 0.90))},
      {"latency p99", seconds_text(quantile(s.latencies, 0.99))},
      {"latency max", seconds_text(quantile(s.latencies, 1.0))},
  };
  if (s.bind_failures != 0) rows.emplace_back("bind failures", std::to_string(s.bind_failures));
  if (s.bound_elsewhere != 0) rows.emplace_back("bound by the extender", std::to_string(s.bound_elsewhere));
  if (s.gangs) {
    for (gang::GroupEvent e :
         {gang::GroupEvent::kAdmitted, gang::GroupEvent::kComplete, gang::GroupEvent::kTimedOut}) {
      const auto n = std::count_if(s.gang_events.begin(), s.gang_events.end(),
                                   [e](const GangEvent& g) { return g.what == e; });
      rows.emplace_back("pod groups " + std::string(gang_event_name(e)), std::to_string(n));
    }
  }
  if (!s.node_usage.empty()) {
    for (auto& row : usage_rows(s)) rows.push_back(std::move(row));
  }
  return rows;
}

std::string format_summary(const RunSummary& summary, const std::string& name, const RunSummary* other,
                           const std::string& other_name) {
  if (other == nullptr) return format_table(summary_rows(summary), name);
  auto rows = summary_rows(summary);
  auto other_rows = summary_rows(*other);
  // The same rows in both columns: a run without samples shows "-" beside one with them.
  if (summary.node_usage.empty() && !other->node_usage.empty()) {
    for (auto& row : usage_rows(summary)) rows.push_back(std::move(row));
  }
  if (other->node_usage.empty() && !summary.node_usage.empty()) {
    for (auto& row : usage_rows(*other)) other_rows.push_back(std::move(row));
  }
  return format_table(rows, name, &other_rows, other_name);
}

namespace {

// The columns `s` takes in a terminal: its UTF-8 characters ("8 × 2 CPU" is 9), not its bytes.
size_t columns(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

}  // namespace

std::string format_table(const std::vector<std::pair<std::string, std::string>>& rows,
                         const std::string& name,
                         const std::vector<std::pair<std::string, std::string>>* other,
                         const std::string& other_name) {
  size_t w0 = 0, w1 = columns(name), w2 = columns(other_name);
  for (size_t i = 0; i < rows.size(); ++i) {
    w0 = std::max(w0, columns(rows[i].first));
    w1 = std::max(w1, columns(rows[i].second));
    if (other != nullptr && i < other->size()) w2 = std::max(w2, columns((*other)[i].second));
  }
  auto line = [&](const std::string& a, const std::string& b, const std::string& c) {
    std::string out = a + std::string(w0 - columns(a), ' ') + "  " + std::string(w1 - columns(b), ' ') + b;
    if (other != nullptr) out += "  " + std::string(w2 - columns(c), ' ') + c;
    return out + "\n";
  };
  std::string out = line("", name, other_name);
  for (size_t i = 0; i < rows.size(); ++i) {
    out += line(rows[i].first, rows[i].second,
                other != nullptr && i < other->size() ? (*other)[i].second : std::string());
  }
  return out;
}

}  // namespace kext::sim
