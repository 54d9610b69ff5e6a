#include "sim/core/cycle.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <span>
#include <utility>

#include "algorithms/gang/preemption.h"
#include "sim/core/prioritize.h"

namespace kext::sim {
namespace {

// A node as it would be with the pods nominated to it, and those pods.
struct HeldNode {
  std::unique_ptr<NodeInfo> node;
  std::vector<std::shared_ptr<const PodInfo>> pods;
};

// addNominatedPods (pkg/scheduler/framework/runtime/framework.go): the node as it would be with the
// pods nominated to it that are of equal or higher priority than `pod`; no node if there are none.
HeldNode with_nominated_pods(const Pod& pod, const NodeInfo& node, const std::vector<std::string>& nominated,
                             const SimCluster& cluster) {
  HeldNode out;
  for (const std::string& uid : nominated) {
    if (uid == pod.uid) continue;
    auto info = cluster.pod_info(uid);
    if (info == nullptr || info->pod->effective_priority() < pod.effective_priority()) continue;
    if (!out.node) out.node = std::make_unique<NodeInfo>(node);
    out.pods.push_back(info);
    out.node->add_pod(std::move(info));
  }
  return out;
}

// The group's pods in the cluster: pending ones by name, and how many are bound.
gang::GroupMembers members_of(const SimCluster& cluster, std::string_view group) {
  gang::GroupMembers out;
  cluster.for_each_pod([&](const std::shared_ptr<const Pod>& p) {
    const gang::Membership m = gang::membership_in(*p, group);
    if (m == gang::Membership::kPending) out.pending.push_back(p);
    out.bound += m == gang::Membership::kBound;
  });
  std::sort(out.pending.begin(), out.pending.end(),
            [](const auto& a, const auto& b) { return a->name < b->name; });
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

CycleRecord schedule_one(QueuedPodInfo popped, int64_t cycle, const std::shared_ptr<const Pod>& pod,
                         SchedulingQueue& queue, SimCluster& cluster, const CycleConfig& config,
                         SchedulerState& state, SimTime now) {
  const Engine& engine = *config.engine;
  const int64_t now_unix =
      config.epoch_unix_seconds + std::chrono::duration_cast<std::chrono::seconds>(now).count();
  CycleRecord d;
  d.at = now;
  d.cycle = cycle;
  d.uid = pod->uid;
  d.pod = pod->namespace_ + "/" + pod->name;
  d.priority = pod->effective_priority();
  d.attempts = popped.attempts;

  const ClusterView view = cluster.view();
  PodContext ctx(*pod, &view);
  const auto nodes = cluster.nodes();
  // PreFilter once over the whole cluster, before the filter passes over chunks of it.
  engine.prepare(ctx, nodes);
  // The nodes with nominated pods of equal or higher priority, as they would be with those pods on
  // them (nullptr elsewhere): the filter and preemption's dry runs both see them so
  // (RunFilterPluginsWithNominatedPods, which SelectVictimsOnNode's podPassesFiltersOnNode calls too),
  // so that two preemptors do not free the same room. Visits only the nodes with nominations.
  std::vector<HeldNode> held(nodes.size());
  for (const auto& [node_name, uids] : queue.nominated_pods()) {
    if (auto i = cluster.node_position(node_name))
      held[*i] = with_nominated_pods(*pod, *nodes[*i], uids, cluster);
  }
  // Gang scheduling, as the extender's filter runs it (algorithms/gang/gatekeeper.h): a member may go
  // only where its group's admission put it, or nowhere yet; every pod sees the room held for other
  // groups' members as taken, as it sees nominated pods.
  gang::Gate gate;
  auto members = [&cluster](std::string_view group, const Pod&) { return members_of(cluster, group); };
  auto all = [&nodes] { return std::vector<const NodeInfo*>(nodes.begin(), nodes.end()); };
  if (!state.groups.empty() && gang::pod_group_key(*pod)) {
    gate = state.gangs.gate(engine, *pod, state.groups, members, all, &view, gang_time(now));
    d.gang = "pod group " + gate.group + ": " + gate.state;
  }
  const NodeInfo* nominated =
      pod->nominated_node_name.empty() ? nullptr : cluster.node(pod->nominated_node_name);
  // A gang member's PostFilter: its whole group's preemption (algorithms/gang/preemption.h), the
  // candidates with victims left; nullopt for a member of a complete or running group.
  auto group_candidates = [&]() -> std::optional<std::vector<preemption::Candidate>> {
    const gang::Evictions evictions{cluster.pdbs(), now_unix, config.preemption.semantics};
    gang::GroupPreemption p =
        state.gangs.preempt_after(engine, *pod, gate, members, all, &view, gang_time(now), evictions);
    d.gang = "pod group " + p.group + ": " + p.state;
    if (p.kind == gang::GroupPreemption::Kind::kOrdinary) return std::nullopt;
    auto i = cluster.node_position(p.node);
    std::vector<preemption::Candidate> c = gang::member_candidates(p, i ? nodes[*i] : nullptr);
    std::erase_if(c, [](const preemption::Candidate& x) { return x.victims.empty(); });
    return c;
  };
  // prepareCandidate on the best candidate: the victims are deleted (they terminate; the event loop
  // removes them after their grace period), and pods of lower priority nominated to the node lose the
  // nomination. The node the pod is nominated to: "" (none) without candidates.
  auto preempt_on = [&](std::vector<preemption::Candidate> candidates) -> std::string {
    if (config.backend != nullptr && !candidates.empty()) {
      // callExtenders, then SelectCandidate over what the extender kept.
      candidates = config.backend->preempt(cluster, *pod, std::move(candidates));
      preemption::order_candidates(candidates, now_unix);
    }
    if (candidates.empty()) return "";
    const preemption::Candidate& best = candidates.front();
    d.outcome = Outcome::kPreempted;
    d.node = best.node_name;
    for (const auto& v : best.victims) {
      d.victims.push_back(v->pod->uid);
      d.victim_names.push_back(v->pod->namespace_ + "/" + v->pod->name);
      d.victim_priorities.push_back(v->pod->effective_priority());
      cluster.mark_terminating(v->pod->uid);
    }
    std::vector<std::string> lower;
    for (const std::string& uid : queue.nominated_pods_for_node(best.node_name)) {
      auto p = cluster.pod(uid);
      if (p != nullptr && p->effective_priority() < pod->effective_priority()) lower.push_back(uid);
    }
    for (const std::string& uid : lower) {
      queue.delete_nominated_pod_if_exists(uid);
      cluster.set_nominated_node(uid, "");
    }
    return best.node_name;
  };
  auto nominate_to = [&](const std::optional<std::string>& node) {
    if (!node) return;
    queue.add_nominated_pod(pod->uid, *node);  // an empty name only removes
    cluster.set_nominated_node(pod->uid, *node);
  };
  for (const auto& [node_name, infos] : state.gangs.held_room().by_node) {
    auto i = cluster.node_position(node_name);
    if (!i) continue;
    for (const auto& info : infos) {
      if (info->pod->uid == pod->uid) continue;
      if (!held[*i].node) held[*i].node = std::make_unique<NodeInfo>(*nodes[*i]);
      held[*i].pods.push_back(info);
      held[*i].node->add_pod(info);
    }
  }
  if (gate.kind == gang::Gate::Kind::kRefuse) {
    // Unresolvable on every node: the group's room comes from its admission, with the evictions of
    // its members' preemptions when it has its members but no room.
    d.reasons[gate.reason] = nodes.size();
    d.message = fit_error_message(nodes.size(), d.reasons);
    if (gate.wants_room && preemption::eligible_to_preempt(*pod, nominated))
      if (auto candidates = group_candidates()) nominate_to(preempt_on(std::move(*candidates)));
    popped.unschedulable_events = kAnyEvent;
    queue.add_unschedulable_if_not_present(std::move(popped), cycle);
    return d;
  }
  // The first filter pass: the engine, and the backend (an extender) after it or in its place.
  auto filter = [&](std::span<const NodeInfo* const> some) {
    return filter_nodes(config, ctx, cluster, *pod, some);
  };
  // A node with nominated pods must pass both with them (resources held for the preemptors) and
  // without them (RunFilterPluginsWithNominatedPods); the run without comes first here, and a node
  // failing it keeps that status.
  // The run with them sees them in the PreFilter states too (addNominatedPods calls
  // RunPreFilterExtensionAddPod on a clone of the cycle state): PodTopologySpread counts them,
  // InterPodAffinity matches their terms.
  auto with_held = [&](size_t i, FilterStatus without) {
    if (!without.ok() || held[i].node == nullptr) return without;
    const NodeInfo* one[] = {held[i].node.get()};
    if (ctx.filter_states.empty()) return std::move(engine.filter(ctx, one)[0]);
    PodContext with = ctx.with_cloned_states();
    for (const auto& p : held[i].pods) with.add_pod(*p, *held[i].node);
    return std::move(engine.filter(with, one)[0]);
  };
  std::vector<FilterStatus> statuses(nodes.size());  // failures only; success elsewhere
  std::vector<size_t> feasible;
  if (gate.kind == gang::Gate::Kind::kOnlyNode) {
    // The node held for this member, alone; the others fail as the extender fails them.
    for (size_t i = 0; i < nodes.size(); ++i) statuses[i] = FilterStatus::unresolvable({gate.reason});
    if (auto i = cluster.node_position(gate.node)) {
      const NodeInfo* one[] = {nodes[*i]};
      FilterStatus st = with_held(*i, std::move(filter(one)[0]));
      if (st.ok()) {
        feasible.push_back(*i);
        statuses[*i] = FilterStatus{};
      } else {
        statuses[*i] = std::move(st);
      }
    }
  } else if (!pod->nominated_node_name.empty()) {
    // evaluateNominatedNode: a pod that preempted tries its nominated node first, alone.
    if (auto i = cluster.node_position(pod->nominated_node_name)) {
      const NodeInfo* one[] = {nodes[*i]};
      if (with_held(*i, std::move(filter(one)[0])).ok()) feasible.push_back(*i);
    }
  }
  if (gate.kind != gang::Gate::Kind::kOnlyNode && feasible.empty() && !nodes.empty()) {
    // findNodesThatPassFilters: from nextStartNodeIndex round the node list until `want` nodes are
    // feasible. Go filters in parallel and cancels once enough are found; here the engine filters a
    // chunk of `want` nodes at a time (in parallel as it sees fit) and the results are taken in node
    // order up to the exact point a serial walk would stop, so the outcome is Go's serial one.
    const size_t n = nodes.size();
    const size_t want = num_feasible_nodes_to_find(n, config.percentage_of_nodes_to_score);
    size_t processed = 0;
    std::vector<const NodeInfo*> chunk;
    for (size_t start = 0; start < n && feasible.size() < want; start += want) {
      const size_t len = std::min(want, n - start);
      chunk.clear();
      for (size_t k = 0; k < len; ++k) chunk.push_back(nodes[(state.next_start_node_index + start + k) % n]);
      std::vector<FilterStatus> chunk_statuses = filter(chunk);
      for (size_t k = 0; k < len && feasible.size() < want; ++k) {
        const size_t i = (state.next_start_node_index + start + k) % n;
        FilterStatus st = with_held(i, std::move(chunk_statuses[k]));
        ++processed;
        if (st.ok()) {
          feasible.push_back(i);
        } else {
          statuses[i] = std::move(st);
        }
      }
    }
    d.evaluated_nodes = processed;
    state.next_start_node_index = (state.next_start_node_index + processed) % n;
  } else {
    d.evaluated_nodes = feasible.size();
  }
  d.feasible_nodes = feasible.size();

  if (!feasible.empty()) {
    size_t chosen = feasible[0];
    // schedulePod: one feasible node is taken without scoring (and without a draw).
    if (feasible.size() > 1) {
      std::vector<const NodeInfo*> candidates;
      candidates.reserve(feasible.size());
      for (size_t i : feasible) candidates.push_back(nodes[i]);
      const Priorities priorities = prioritize_nodes(config, ctx, cluster, *pod, candidates);
      const std::vector<int64_t>& combined = priorities.totals;
      const size_t pick = *select_host(combined, state.rng);
      chosen = feasible[pick];
      d.score = combined[pick];
      d.score_terms = score_terms(config, priorities, pick);
      for (size_t k = 0; k < combined.size(); ++k) {
        if (k != pick && (!d.runner_up_score || combined[k] > *d.runner_up_score)) {
          d.runner_up_score = combined[k];
        }
      }
    }
    d.outcome = Outcome::kScheduled;
    d.node = nodes[chosen]->name();
    // assume: the pod leaves the nominator, then binds.
    queue.delete_nominated_pod_if_exists(pod->uid);
    if (!gate.group.empty() && state.gangs.admitted(gate.group)) {
      // The extender's bind holds a member until minMember of its group have reached bind. A waiting
      // member is assumed on its node: its room is the pod's now, no longer held for it.
      gang::PermitDecision permit = state.gangs.permit(gate.group, pod->uid, gang_time(now));
      cluster.bind(pod->uid, d.node, now_unix);
      if (permit.verdict == gang::Verdict::kWait) {
        state.gangs.unplace(gate.group, pod->uid);
        d.outcome = Outcome::kWaiting;
        return d;
      }
      for (const std::string& uid : permit.release) {
        state.gangs.bound(gate.group, uid, gang_time(now));
        if (uid != pod->uid) d.released.push_back(uid);
      }
      return d;
    }
    cluster.bind(pod->uid, d.node, now_unix);
    if (config.backend == nullptr) return d;
    const std::optional<BindReply> bound = config.backend->bind(cluster, *pod, d.node);
    if (!bound || bound->kind == BindReply::Kind::kBound) return d;
    if (bound->kind == BindReply::Kind::kHeld) {
      d.outcome = Outcome::kWaiting;
      state.held_binds.insert_or_assign(pod->uid, std::pair(std::move(popped), cycle));
      return d;
    }
    d.outcome = Outcome::kBindFailed;
    d.message = bound->error;
    forget_bind(queue, cluster, std::move(popped), cycle);
    return d;
  }

  // A FitError. Node changes can help any failure; removing pods only those where preemption might
  // (kUnschedulable, not kUnresolvable), which is the rule nodesWherePreemptionMightHelp applies.
  EventMask events =
      static_cast<EventMask>(ClusterEvent::kNodeAdded) | static_cast<EventMask>(ClusterEvent::kNodeChanged);
  std::vector<const NodeInfo*> might_help;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& r : statuses[i].reasons) ++d.reasons[r];
    if (statuses[i].code == FilterCode::kUnschedulable) {
      might_help.push_back(held[i].node != nullptr ? held[i].node.get() : nodes[i]);
      events |= static_cast<EventMask>(ClusterEvent::kPodDeleted);
    }
  }
  if (config.backend != nullptr && events != kAnyEvent) {
    // A node the backend (an extender) refuses as unresolvable while the scheduler's own filters
    // pass it: kube-scheduler names no plugin for an extender's refusal (schedule_one.go
    // findNodesThatPassExtenders), and a pod failed by no plugin moves on every event
    // (scheduling_queue.go movePodsToActiveOrBackoffQueue: empty UnschedulablePlugins). It is how a
    // gang member the extender refuses comes back when room is freed.
    std::vector<const NodeInfo*> refused;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (statuses[i].code == FilterCode::kUnresolvable) refused.push_back(nodes[i]);
    if (!refused.empty()) {
      for (const FilterStatus& own : engine.filter(ctx, refused)) {
        if (own.ok()) events = kAnyEvent;
        if (own.code == FilterCode::kUnschedulable)
          events |= static_cast<EventMask>(ClusterEvent::kPodDeleted);
      }
    }
  }
  d.message = fit_error_message(nodes.size(), d.reasons);

  // PostFilter, DefaultPreemption (preemption.go Evaluator.Preempt). The nomination afterwards:
  // unchanged when the pod may not preempt (nil result), cleared when no node has victims enough
  // (NewPostFilterResultWithNominatedNode("")), the chosen node otherwise.
  std::optional<std::string> nominate;
  if (preemption::eligible_to_preempt(*pod, nominated)) {
    std::optional<std::vector<preemption::Candidate>> candidates;
    if (!gate.group.empty()) candidates = group_candidates();  // a member preempts for its whole group
    if (!candidates) {
      candidates.emplace();
      if (!might_help.empty())
        *candidates = find_candidates(ctx, might_help, cluster, config, now_unix, state.rng);
      if (!state.groups.empty()) gang::keep_gangs_whole(*candidates);  // no victim is a gang member
    }
    nominate = preempt_on(std::move(*candidates));
  }
  nominate_to(nominate);
  popped.unschedulable_events = events;
  queue.add_unschedulable_if_not_present(std::move(popped), cycle);
  return d;
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
    return schedule_one(std::move(*popped), cycle, pod, queue, cluster, config, state, now);
  }
}

}  // namespace kext::sim
