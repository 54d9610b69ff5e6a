#include "sim/core/cycle.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <span>
#include <utility>

#include "algorithms/catalogue.h"
#include "algorithms/gang/preemption.h"
#include "algorithms/namespaced_key.h"
#include "sim/core/prioritize.h"
#include "sim/core/queueing_hints.h"

namespace kext::sim {
namespace {

// The group's pods in the cluster: pending ones by name, and how many are bound.
gang::GroupMembers members_of(const SimCluster& cluster, std::string_view group) {
  gang::GroupMembers out;
  cluster.for_each_pod([&](const std::shared_ptr<const Pod>& p) {
    const gang::Membership m = gang::membership_in(*p, group);
    if (m == gang::Membership::kPending) out.pending.push_back(p);
    if (m == gang::Membership::kBound) out.bound_nodes.push_back(p->node_name);
  });
  out.bound = out.bound_nodes.size();
  std::sort(out.pending.begin(), out.pending.end(),
            [](const auto& a, const auto& b) { return a->name < b->name; });
  // By node name, as the extender's cache lists them (extender/gang/coordinator.cc members_in).
  std::sort(out.bound_nodes.begin(), out.bound_nodes.end());
  return out;
}

// calculateNumCandidates (default_preemption.go): the share of the nodes, at least the absolute
// minimum, at most all of them.
size_t num_candidates(size_t nodes, const CycleConfig& config) {
  auto n = static_cast<int64_t>(nodes) * config.min_candidate_nodes_percentage / 100;
  n = std::max(n, config.min_candidate_nodes_absolute);
  return static_cast<size_t>(std::clamp<int64_t>(n, 0, static_cast<int64_t>(nodes)));
}

// findCandidates + DryRunPreemption: the dry runs walk `nodes` from a random offset (rand.Int31n) and
// stop once they have num_candidates candidates including one without PDB violations. Go runs them
// in parallel and cancels mid-way; here they run a chunk of num_candidates nodes at a time (each
// chunk as parallel as select_candidates makes it), so a run may evaluate up to one chunk more than
// Go's, deterministically. Returns every candidate found, best first.
std::vector<preemption::Candidate> find_candidates(const PodContext& ctx,
                                                   std::span<const NodeInfo* const> nodes,
                                                   const SimCluster& cluster, const CycleConfig& config,
                                                   int64_t now_unix, Rng& rng) {
  if (nodes.empty()) return {};
  const size_t want = std::max<size_t>(1, num_candidates(nodes.size(), config));
  const size_t offset = uniform_below(rng, nodes.size());
  std::vector<const NodeInfo*> rotated;
  rotated.reserve(nodes.size());
  for (size_t k = 0; k < nodes.size(); ++k) rotated.push_back(nodes[(offset + k) % nodes.size()]);
  preemption::Options options = config.preemption;
  std::vector<preemption::Candidate> found;
  size_t non_violating = 0;
  for (size_t start = 0; start < rotated.size(); start += want) {
    const size_t len = std::min(want, rotated.size() - start);
    options.max_candidates = len;
    auto chunk = preemption::select_candidates(ctx, std::span(rotated).subspan(start, len), cluster.pdbs(),
                                               *config.engine, now_unix, options);
    for (auto& c : chunk) {
      if (c.num_pdb_violations == 0) ++non_violating;
      found.push_back(std::move(c));
    }
    if (non_violating > 0 && found.size() >= want) break;
  }
  preemption::order_candidates(found, now_unix);
  return found;
}

// The nodes as this cycle's filter sees them: with the pods nominated to them (addNominatedPods) and
// the room held for other gang members (algorithms/gang/gatekeeper.h apply_held_room, as the
// extender's filter counts it), each node with either a copy in `copies`; `added[i]` are the pods
// added to node i, for the PreFilter states.
struct NodeOverlay {
  std::deque<NodeInfo> copies;
  std::vector<const NodeInfo*> nodes;                              // [i]: the cluster's node i or its copy
  std::vector<std::vector<std::shared_ptr<const PodInfo>>> added;  // [i]
  bool changed(size_t i) const { return !added[i].empty(); }
};

// findNodesThatFitPod's answer: the feasible nodes' indices and the others' statuses.
struct Fit {
  std::vector<size_t> feasible;
  std::vector<FilterStatus> statuses;  // [node]: failures only; success elsewhere
};

// One pod's scheduling cycle, step by step as kube-scheduler's schedulingCycle runs it
// (pkg/scheduler/schedule_one.go), each step named after the Go function it follows, the gang steps
// after the extender's (algorithms/gang/gatekeeper.h). Its PodContext points at its own ClusterView:
// neither copied nor moved.
class SchedulingCycle {
 public:
  SchedulingCycle(QueuedPodInfo popped, int64_t cycle, std::shared_ptr<const Pod> pod, SchedulingQueue& queue,
                  SimCluster& cluster, const CycleConfig& config, SchedulerState& state, SimTime now);
  SchedulingCycle(const SchedulingCycle&) = delete;
  SchedulingCycle& operator=(const SchedulingCycle&) = delete;

  CycleRecord run();

 private:
  void add_nominated_pods();
  void gate_gang();
  void add_held_room();
  void refuse_group();
  std::vector<FilterStatus> filter(std::span<const NodeInfo* const> some) const;
  FilterStatus with_nominated_pods(size_t i, FilterStatus without) const;
  FilterStatus filter_node(size_t i) const;
  Fit find_nodes_that_fit_pod();
  void filter_only_node(Fit& fit) const;
  void evaluate_nominated_node(Fit& fit) const;
  size_t find_nodes_that_pass_filters(Fit& fit);
  size_t choose_host(const std::vector<size_t>& feasible);
  void assume_and_bind(size_t chosen);
  void permit_gang();
  void extenders_binding();
  void handle_fit_error(const Fit& fit);
  EventMask failure_events(const Fit& fit, std::vector<const NodeInfo*>& might_help);
  const FilterPlugin* first_failing_filter(size_t i) const;
  RejectorSet rejectors(const Fit& fit, EventMask& plugin_events) const;
  std::string post_filter(std::span<const NodeInfo* const> might_help);
  std::optional<std::vector<preemption::Candidate>> group_candidates();
  std::string prepare_candidate(std::vector<preemption::Candidate> candidates);
  void clear_lower_nominations(const std::string& node);
  void nominate_to(const std::optional<std::string>& node);
  void add_unschedulable(EventMask events);
  gang::MembersOf members() const {
    return [this](std::string_view group, const Pod&) { return members_of(cluster_, group); };
  }
  gang::NodesOf all_nodes() const {
    return [this] { return std::vector<const NodeInfo*>(nodes_.begin(), nodes_.end()); };
  }

  QueuedPodInfo popped_;
  const int64_t cycle_;
  const std::shared_ptr<const Pod> pod_;
  SchedulingQueue& queue_;
  SimCluster& cluster_;
  const CycleConfig& config_;
  SchedulerState& state_;
  const Engine& engine_;
  const SimTime now_;
  const int64_t now_unix_;
  const ClusterView view_;
  PodContext ctx_;
  const std::span<const NodeInfo* const> nodes_;
  // The node the pod was nominated to by an earlier preemption, if the cluster still has it.
  const NodeInfo* const nominated_;
  NodeOverlay overlay_;
  gang::Gate gate_;  // kOrdinary for a pod of no group
  CycleRecord d_;
};

SchedulingCycle::SchedulingCycle(QueuedPodInfo popped, int64_t cycle, std::shared_ptr<const Pod> pod,
                                 SchedulingQueue& queue, SimCluster& cluster, const CycleConfig& config,
                                 SchedulerState& state, SimTime now)
    : popped_(std::move(popped)),
      cycle_(cycle),
      pod_(std::move(pod)),
      queue_(queue),
      cluster_(cluster),
      config_(config),
      state_(state),
      engine_(*config.engine),
      now_(now),
      now_unix_(config.epoch_unix_seconds + std::chrono::duration_cast<std::chrono::seconds>(now).count()),
      view_(cluster.view()),
      ctx_(*pod_, &view_, config.preemption.version),
      nodes_(cluster.nodes()),
      nominated_(pod_->nominated_node_name.empty() ? nullptr : cluster.node(pod_->nominated_node_name)) {
  d_.at = now;
  d_.cycle = cycle;
  d_.uid = pod_->uid;
  d_.pod = namespaced_key(pod_->namespace_, pod_->name);
  d_.priority = pod_->effective_priority();
  d_.attempts = popped_.attempts;
  overlay_.nodes.assign(nodes_.begin(), nodes_.end());
  overlay_.added.resize(nodes_.size());
  // PreFilter once over the whole cluster, before the filter passes over chunks of it.
  engine_.prepare(ctx_, nodes_);
}

// schedulingCycle: SchedulePod (findNodesThatFitPod, prioritizeNodes, selectHost), then assume and
// bind, or on a FitError PostFilter and handleSchedulingFailure. The gang gate comes first, as the
// extender's filter runs it.
CycleRecord SchedulingCycle::run() {
  add_nominated_pods();
  gate_gang();
  add_held_room();
  if (gate_.kind == gang::Gate::Kind::kRefuse) {
    refuse_group();
  } else if (Fit fit = find_nodes_that_fit_pod(); !fit.feasible.empty()) {
    assume_and_bind(choose_host(fit.feasible));
  } else {
    handle_fit_error(fit);
  }
  return std::move(d_);
}

// addNominatedPods (pkg/scheduler/framework/runtime/framework.go): the nodes with pods nominated to
// them of equal or higher priority than this one, as they would be with those pods on them. The
// filter and preemption's dry runs both see them so (RunFilterPluginsWithNominatedPods, which
// SelectVictimsOnNode's podPassesFiltersOnNode calls too), so that two preemptors do not free the
// same room. Visits only the nodes with nominations.
void SchedulingCycle::add_nominated_pods() {
  for (const auto& [node_name, uids] : queue_.nominated_pods()) {
    const std::optional<size_t> i = cluster_.node_position(node_name);
    if (!i) continue;
    NodeInfo* copy = nullptr;
    for (const std::string& uid : uids) {
      if (uid == pod_->uid) continue;
      auto info = cluster_.pod_info(uid);
      if (info == nullptr || info->pod->effective_priority() < pod_->effective_priority()) continue;
      if (copy == nullptr) copy = &overlay_.copies.emplace_back(*nodes_[*i]);
      overlay_.added[*i].push_back(info);
      copy->add_pod(std::move(info));
    }
    if (copy != nullptr) overlay_.nodes[*i] = copy;
  }
}

// Gang scheduling, as the extender's filter runs it (algorithms/gang/gatekeeper.h Gatekeeper::gate):
// a member may go only where its group's admission put it, or nowhere yet. No PodGroups: no pod is a
// member.
void SchedulingCycle::gate_gang() {
  if (state_.groups.empty() || !gang::pod_group_key(*pod_)) return;
  gate_ = state_.gangs.gate(engine_, *pod_, state_.groups, members(), all_nodes(), &view_, gang_time(now_));
  d_.gang = "pod group " + gate_.group + ": " + gate_.state;
}

// Every pod sees the room held for other groups' members as taken, as it sees nominated pods: the
// room as the gate (which may have admitted a group) left it.
void SchedulingCycle::add_held_room() {
  gang::apply_held_room(state_.gangs.held_room(), overlay_.nodes, overlay_.copies, pod_->uid,
                        [this](size_t i, const std::shared_ptr<const PodInfo>& member) {
                          overlay_.added[i].push_back(member);
                        });
}

// The gate refused the member on every node (unresolvable): its group's room comes from its
// admission, with the evictions of its members' preemptions when it has its members but no room.
void SchedulingCycle::refuse_group() {
  d_.reasons[gate_.reason] = nodes_.size();
  d_.message = fit_error_message(nodes_.size(), d_.reasons);
  if (gate_.wants_room && preemption::eligible_to_preempt(*pod_, nominated_))
    if (auto candidates = group_candidates()) nominate_to(prepare_candidate(std::move(*candidates)));
  popped_.rejectors = bit(Rejector::kGang);
  add_unschedulable(kAnyEvent);
}

// The first filter pass: the engine, and the backend (an extender) after it or in its place.
std::vector<FilterStatus> SchedulingCycle::filter(std::span<const NodeInfo* const> some) const {
  return filter_nodes(config_, ctx_, cluster_, *pod_, some);
}

// RunFilterPluginsWithNominatedPods (framework.go): a node with nominated pods (or held room) must
// pass both with them and without them; the run without comes first here, and a node failing it keeps
// that status. The run with them sees them in the PreFilter states too (addNominatedPods calls
// RunPreFilterExtensionAddPod on a clone of the cycle state): PodTopologySpread counts them,
// InterPodAffinity matches their terms.
FilterStatus SchedulingCycle::with_nominated_pods(size_t i, FilterStatus without) const {
  if (!without.ok() || !overlay_.changed(i)) return without;
  const NodeInfo* one[] = {overlay_.nodes[i]};
  if (ctx_.filter_states.empty()) return std::move(engine_.filter(ctx_, one)[0]);
  PodContext with = ctx_.with_cloned_states();
  for (const auto& p : overlay_.added[i]) with.add_pod(*p, *overlay_.nodes[i]);
  return std::move(engine_.filter(with, one)[0]);
}

// Both passes over node i alone.
FilterStatus SchedulingCycle::filter_node(size_t i) const {
  const NodeInfo* one[] = {nodes_[i]};
  return with_nominated_pods(i, std::move(filter(one)[0]));
}

// findNodesThatFitPod: a gang member's held node alone, else evaluateNominatedNode, else (or when the
// nominated node no longer fits) findNodesThatPassFilters over the sample.
Fit SchedulingCycle::find_nodes_that_fit_pod() {
  Fit fit;
  fit.statuses.resize(nodes_.size());
  if (gate_.kind == gang::Gate::Kind::kOnlyNode) {
    filter_only_node(fit);
  } else if (!pod_->nominated_node_name.empty()) {
    evaluate_nominated_node(fit);
  }
  if (gate_.kind != gang::Gate::Kind::kOnlyNode && fit.feasible.empty() && !nodes_.empty()) {
    d_.evaluated_nodes = find_nodes_that_pass_filters(fit);
  } else {
    d_.evaluated_nodes = fit.feasible.size();
  }
  d_.feasible_nodes = fit.feasible.size();
  return fit;
}

// An admitted member: the node held for it, alone; the others fail as the extender's filter fails
// them.
void SchedulingCycle::filter_only_node(Fit& fit) const {
  for (FilterStatus& st : fit.statuses) st = FilterStatus::unresolvable({gate_.reason});
  const std::optional<size_t> i = cluster_.node_position(gate_.node);
  if (!i) return;
  FilterStatus st = filter_node(*i);
  if (st.ok()) fit.feasible.push_back(*i);
  fit.statuses[*i] = std::move(st);
}

// evaluateNominatedNode: a pod that preempted tries its nominated node first, alone.
void SchedulingCycle::evaluate_nominated_node(Fit& fit) const {
  const std::optional<size_t> i = cluster_.node_position(pod_->nominated_node_name);
  if (i && filter_node(*i).ok()) fit.feasible.push_back(*i);
}

// findNodesThatPassFilters: from nextStartNodeIndex round the node list until numFeasibleNodesToFind
// nodes are feasible. Go filters in parallel and cancels once enough are found; here the engine
// filters a chunk of that many nodes at a time (in parallel as it sees fit) and the results are taken
// in node order up to the exact point a serial walk would stop, so the outcome is Go's serial one.
// Returns how many nodes it processed.
size_t SchedulingCycle::find_nodes_that_pass_filters(Fit& fit) {
  const size_t n = nodes_.size();
  const size_t want = num_feasible_nodes_to_find(n, config_.percentage_of_nodes_to_score);
  const size_t first = state_.next_start_node_index;
  size_t processed = 0;
  std::vector<const NodeInfo*> chunk;
  for (size_t start = 0; start < n && fit.feasible.size() < want; start += want) {
    const size_t len = std::min(want, n - start);
    chunk.clear();
    for (size_t k = 0; k < len; ++k) chunk.push_back(nodes_[(first + start + k) % n]);
    std::vector<FilterStatus> chunk_statuses = filter(chunk);
    for (size_t k = 0; k < len && fit.feasible.size() < want; ++k) {
      const size_t i = (first + start + k) % n;
      FilterStatus st = with_nominated_pods(i, std::move(chunk_statuses[k]));
      ++processed;
      if (st.ok()) {
        fit.feasible.push_back(i);
      } else {
        fit.statuses[i] = std::move(st);
      }
    }
  }
  state_.next_start_node_index = (first + processed) % n;
  return processed;
}

// schedulePod's choice: one feasible node is taken without scoring (and without a draw); more are
// scored (prioritizeNodes) and selectHost draws among the best. The record keeps the winner's total,
// the best of the others' and the winner's terms.
size_t SchedulingCycle::choose_host(const std::vector<size_t>& feasible) {
  if (feasible.size() == 1) return feasible[0];
  std::vector<const NodeInfo*> candidates;
  candidates.reserve(feasible.size());
  for (size_t i : feasible) candidates.push_back(nodes_[i]);
  const Priorities priorities = prioritize_nodes(config_, ctx_, cluster_, *pod_, candidates);
  const std::vector<int64_t>& totals = priorities.totals;
  const size_t pick = scheduler_since::tie_break_among_extender_scored(config_.preemption.version)
                          ? select_host_by_randomizer(totals, !priorities.reply.empty(), state_.rng)
                          : *select_host(totals, state_.rng);
  d_.score = totals[pick];
  d_.score_terms = score_terms(config_, priorities, pick);
  for (size_t k = 0; k < totals.size(); ++k) {
    if (k != pick && (!d_.runner_up_score || totals[k] > *d_.runner_up_score)) d_.runner_up_score = totals[k];
  }
  return feasible[pick];
}

// assume: the pod leaves the nominator and takes its node; then a gang member's Permit, or the
// bind (bindingCycle), by the backend's bindVerb when it has one, else the DefaultBinder's here.
void SchedulingCycle::assume_and_bind(size_t chosen) {
  d_.outcome = Outcome::kScheduled;
  d_.node = nodes_[chosen]->name();
  queue_.delete_nominated_pod_if_exists(pod_->uid);
  if (!gate_.group.empty() && state_.gangs.admitted(gate_.group)) {
    permit_gang();
    return;
  }
  cluster_.bind(pod_->uid, d_.node, now_unix_);
  if (config_.backend != nullptr) extenders_binding();
}

// The gang gate at Permit (the extender's bind: Gatekeeper::permit, as Coscheduling's Permit waits):
// a member is held until minMember of its group have reached bind. A waiting member is assumed on its
// node: its room is the pod's now, no longer held for it. The last one releases the others with it.
void SchedulingCycle::permit_gang() {
  gang::PermitDecision permit = state_.gangs.permit(gate_.group, pod_->uid, gang_time(now_));
  cluster_.bind(pod_->uid, d_.node, now_unix_);
  if (permit.verdict == gang::Verdict::kWait) {
    state_.gangs.unplace(gate_.group, pod_->uid);
    d_.outcome = Outcome::kWaiting;
    return;
  }
  for (const std::string& uid : permit.release) {
    state_.gangs.bound(gate_.group, uid, gang_time(now_));
    if (uid != pod_->uid) d_.released.push_back(uid);
  }
}

// extendersBinding: the backend's bindVerb binds in the DefaultBinder's place. A held bind keeps what
// Pop returned, for its answer; a failed one is forgotten (handleBindingCycleError).
void SchedulingCycle::extenders_binding() {
  const std::optional<BindReply> bound = config_.backend->bind(cluster_, *pod_, d_.node);
  if (!bound || bound->kind == BindReply::Kind::kBound) return;
  if (bound->kind == BindReply::Kind::kHeld) {
    d_.outcome = Outcome::kWaiting;
    state_.held_binds.insert_or_assign(pod_->uid, std::pair(std::move(popped_), cycle_));
    return;
  }
  d_.outcome = Outcome::kBindFailed;
  d_.message = bound->error;
  forget_bind(queue_, cluster_, std::move(popped_), cycle_);
}

// A FitError: its message, PostFilter (DefaultPreemption, preemption.go Evaluator.Preempt), then
// handleSchedulingFailure. The nomination afterwards: unchanged when the pod may not preempt (nil
// result), cleared when no node has victims enough (NewPostFilterResultWithNominatedNode("")), the
// chosen node otherwise.
void SchedulingCycle::handle_fit_error(const Fit& fit) {
  std::vector<const NodeInfo*> might_help;
  const EventMask events = failure_events(fit, might_help);
  d_.message = fit_error_message(nodes_.size(), d_.reasons);
  std::optional<std::string> nominate;
  if (preemption::eligible_to_preempt(*pod_, nominated_)) nominate = post_filter(might_help);
  nominate_to(nominate);
  add_unschedulable(events);
}

// The FitError's reasons (Diagnosis), and the events that may make the pod schedulable: node changes
// can help any failure; removing pods only those where preemption might (kUnschedulable, not
// kUnresolvable), which is the rule nodesWherePreemptionMightHelp applies. `might_help` gets those
// nodes, as the nominated pods leave them. With an extender or queueing hints, the plugins that
// rejected the pod (popped_.rejectors) decide instead (rejectors()).
EventMask SchedulingCycle::failure_events(const Fit& fit, std::vector<const NodeInfo*>& might_help) {
  EventMask events =
      static_cast<EventMask>(ClusterEvent::kNodeAdded) | static_cast<EventMask>(ClusterEvent::kNodeChanged);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    for (const auto& r : fit.statuses[i].reasons) ++d_.reasons[r];
    if (fit.statuses[i].code == FilterCode::kUnschedulable) {
      might_help.push_back(overlay_.nodes[i]);
      events |= static_cast<EventMask>(ClusterEvent::kPodDeleted);
    }
  }
  if (config_.backend == nullptr && !config_.queueing_hints) return events;
  EventMask plugin_events =
      static_cast<EventMask>(ClusterEvent::kNodeAdded) | static_cast<EventMask>(ClusterEvent::kNodeChanged);
  popped_.rejectors = rejectors(fit, plugin_events);
  if (config_.backend == nullptr) return events;
  // podMatchesEvent: "Extender" (or no rejector at all) matches every event; otherwise only the
  // events of the plugins that rejected nodes, not those an extender refused.
  const RejectorSet plugins = popped_.rejectors & ~bit(Rejector::kExtender);
  if ((popped_.rejectors & bit(Rejector::kExtender)) != 0 || plugins == 0) return kAnyEvent;
  return plugin_events;
}

// The first of the profile's filters, in the engine's order, that fails node i without and then with
// the pods nominated to it (the plugin kube-scheduler's Diagnosis names for the node); nullptr when
// they all pass it: only an extender (or the gang gate) refused it.
const FilterPlugin* SchedulingCycle::first_failing_filter(size_t i) const {
  std::vector<std::string> reasons;
  const auto first = [&](const PodContext& ctx, const NodeInfo& node) -> const FilterPlugin* {
    for (const auto& f : engine_.filters())
      if (f->can_fail(ctx) && f->check(ctx, node, reasons) != FilterCode::kSuccess) return f.get();
    return nullptr;
  };
  if (const FilterPlugin* f = first(ctx_, *nodes_[i])) return f;
  if (!overlay_.changed(i)) return nullptr;
  if (ctx_.filter_states.empty()) return first(ctx_, *overlay_.nodes[i]);
  PodContext with = ctx_.with_cloned_states();
  for (const auto& p : overlay_.added[i]) with.add_pod(*p, *overlay_.nodes[i]);
  return first(with, *overlay_.nodes[i]);
}

// handleSchedulingFailure's UnschedulablePlugins: the failing filter of each node that failed, and for
// a node no filter fails, the extender that refused it ("Extender", schedule_one.go
// findNodesThatFitPod, from 1.29: before, the refusal names no plugin) or the gang gate.
// `plugin_events` gets kPodDeleted for a node a plugin failed where preemption might help.
RejectorSet SchedulingCycle::rejectors(const Fit& fit, EventMask& plugin_events) const {
  RejectorSet out = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (fit.statuses[i].ok()) continue;
    if (const FilterPlugin* f = first_failing_filter(i)) {
      const std::string_view legacy = plugin_for_legacy_filter(f->name());
      out |= bit(rejector_of(legacy.empty() ? f->name() : legacy));
      if (fit.statuses[i].code == FilterCode::kUnschedulable)
        plugin_events |= static_cast<EventMask>(ClusterEvent::kPodDeleted);
    } else if (config_.backend != nullptr) {
      if (since::extender_rejection_requeues(config_.preemption.version)) out |= bit(Rejector::kExtender);
    } else {
      out |= bit(Rejector::kGang);
    }
  }
  return out;
}

// PostFilter's candidates: a gang member preempts for its whole group; any other pod (and a member of
// a complete or running group) runs findCandidates over the nodes where preemption might help, with
// no gang member a victim. The node nominated: "" without candidates.
std::string SchedulingCycle::post_filter(std::span<const NodeInfo* const> might_help) {
  std::optional<std::vector<preemption::Candidate>> candidates;
  if (!gate_.group.empty()) candidates = group_candidates();
  if (!candidates) {
    candidates.emplace();
    if (!might_help.empty())
      *candidates = find_candidates(ctx_, might_help, cluster_, config_, now_unix_, state_.rng);
    if (!state_.groups.empty()) gang::keep_gangs_whole(*candidates);
  }
  return prepare_candidate(std::move(*candidates));
}

// A gang member's PostFilter: its whole group's preemption (algorithms/gang/preemption.h), the
// candidates with victims left; nullopt for a member of a complete or running group.
std::optional<std::vector<preemption::Candidate>> SchedulingCycle::group_candidates() {
  const gang::Evictions evictions{cluster_.pdbs(), now_unix_, config_.preemption.semantics};
  gang::GroupPreemption p = state_.gangs.preempt_after(engine_, *pod_, gate_, members(), all_nodes(), &view_,
                                                       gang_time(now_), evictions);
  d_.gang = "pod group " + p.group + ": " + p.state;
  if (p.kind == gang::GroupPreemption::Kind::kOrdinary) return std::nullopt;
  auto i = cluster_.node_position(p.node);
  std::vector<preemption::Candidate> c = gang::member_candidates(p, i ? nodes_[*i] : nullptr);
  std::erase_if(c, [](const preemption::Candidate& x) { return x.victims.empty(); });
  return c;
}

// callExtenders (the backend may drop candidates and change victims), SelectCandidate over what it
// kept, then prepareCandidate on the best candidate: the victims are deleted (they terminate; the
// event loop removes them after their grace period), and pods of lower priority nominated to the
// node lose the nomination. The node the pod is nominated to: "" (none) without candidates.
std::string SchedulingCycle::prepare_candidate(std::vector<preemption::Candidate> candidates) {
  if (config_.backend != nullptr && !candidates.empty()) {
    candidates = config_.backend->preempt(cluster_, *pod_, std::move(candidates));
    preemption::order_candidates(candidates, now_unix_);
  }
  if (candidates.empty()) return "";
  const preemption::Candidate& best = candidates.front();
  d_.outcome = Outcome::kPreempted;
  d_.node = best.node_name;
  for (const auto& v : best.victims) {
    d_.victims.push_back(v->pod->uid);
    d_.victim_names.push_back(namespaced_key(v->pod->namespace_, v->pod->name));
    d_.victim_priorities.push_back(v->pod->effective_priority());
    cluster_.mark_terminating(v->pod->uid);
  }
  clear_lower_nominations(best.node_name);
  return best.node_name;
}

// prepareCandidate's last step (preemption.go getLowerPriorityNominatedPods): the pods nominated to
// `node` of lower priority than this one lose their nomination.
void SchedulingCycle::clear_lower_nominations(const std::string& node) {
  std::vector<std::string> lower;
  for (const std::string& uid : queue_.nominated_pods_for_node(node)) {
    auto p = cluster_.pod(uid);
    if (p != nullptr && p->effective_priority() < pod_->effective_priority()) lower.push_back(uid);
  }
  for (const std::string& uid : lower) {
    queue_.delete_nominated_pod_if_exists(uid);
    cluster_.set_nominated_node(uid, "");
  }
}

// handleSchedulingFailure's nomination (AddNominatedPod, updatePod's status.nominatedNodeName):
// nullopt leaves it, "" removes it.
void SchedulingCycle::nominate_to(const std::optional<std::string>& node) {
  if (!node) return;
  queue_.add_nominated_pod(pod_->uid, *node);  // an empty name only removes
  cluster_.set_nominated_node(pod_->uid, *node);
}

// handleSchedulingFailure: back to the queue (AddUnschedulableIfNotPresent), to move on `events`.
void SchedulingCycle::add_unschedulable(EventMask events) {
  popped_.unschedulable_events = events;
  queue_.add_unschedulable_if_not_present(std::move(popped_), cycle_);
}

}  // namespace

void forget_bind(SchedulingQueue& queue, SimCluster& cluster, QueuedPodInfo popped, int64_t cycle) {
  cluster.unbind(popped.uid);
  queue.move_all_to_active_or_backoff(ClusterEvent::kPodDeleted);
  popped.unschedulable_events = kAnyEvent;
  queue.add_unschedulable_if_not_present(std::move(popped), cycle);
}

std::string fit_error_message(size_t nodes, const std::map<std::string, size_t>& reasons) {
  std::vector<std::string> parts;
  parts.reserve(reasons.size());
  for (const auto& [reason, count] : reasons) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  // NoNodeAvailableMsg + ":", then SeparatorFormat " %v." around the joined reasons if any.
  std::string out = "0/" + std::to_string(nodes) + " nodes are available:";
  if (parts.empty()) return out;
  out += " ";
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : ", ") + parts[i];
  return out + ".";
}

size_t num_feasible_nodes_to_find(size_t all_nodes, int32_t percentage_of_nodes_to_score) {
  constexpr size_t kMinFeasibleNodesToFind = 100;
  constexpr int64_t kMinFeasibleNodesPercentageToFind = 5;
  if (all_nodes < kMinFeasibleNodesToFind) return all_nodes;
  int64_t percentage = percentage_of_nodes_to_score;
  if (percentage <= 0) {
    percentage = 50 - static_cast<int64_t>(all_nodes) / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) percentage = kMinFeasibleNodesPercentageToFind;
  }
  const auto num =
      static_cast<size_t>(static_cast<int64_t>(all_nodes) * std::min<int64_t>(percentage, 100) / 100);
  return std::max(num, kMinFeasibleNodesToFind);
}

std::optional<CycleRecord> run_cycle(SchedulingQueue& queue, SimCluster& cluster, const CycleConfig& config,
                                     SchedulerState& state, SimTime now) {
  if (config.engine == nullptr) throw std::invalid_argument("run_cycle: CycleConfig.engine is not set");
  for (;;) {
    std::optional<QueuedPodInfo> popped = queue.pop();
    if (!popped.has_value()) return std::nullopt;
    const int64_t cycle = queue.scheduling_cycle();
    auto pod = cluster.pod(popped->uid);
    // skipPodSchedule: deleted, being deleted, or already bound (assumed).
    if (pod == nullptr || pod->terminating || !pod->node_name.empty()) continue;
    return SchedulingCycle(std::move(*popped), cycle, std::move(pod), queue, cluster, config, state, now)
        .run();
  }
}

}  // namespace kext::sim
