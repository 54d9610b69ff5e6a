#include "extender/gang/coordinator.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/namespaced_key.h"

namespace kext {

namespace {

// A member as admission places it: the filtered pod's scheduling constraints (a gang's members come
// from one template: a Job's, a training operator's replica spec), the member's own identity, labels
// and requests (the cache keeps only those of a pod: algorithms/model.h PodMeta).
std::shared_ptr<const Pod> member_like(const Pod& like, const PodInfo& member) {
  auto p = std::make_shared<Pod>(like);
  static_cast<PodMeta&>(*p) = *member.pod;
  p->nominated_node_name.clear();
  p->init_containers.clear();
  p->overhead = {};
  p->containers.assign(1, Container{"member", "", member.requests, true, true, false, std::nullopt});
  return p;
}

// The group's pods in the cache: pending ones by name (as members like `like`), and the bound ones'
// count and nodes (by node name: the cache's shards have no order of their own).
gang::GroupMembers members_in(const ClusterState& state, std::string_view group, const Pod* like) {
  gang::GroupMembers out;
  std::vector<std::shared_ptr<const PodInfo>> pending;
  state.pods_by_uid.for_each([&](const auto&, const std::shared_ptr<const PodInfo>& info) {
    const gang::Membership m = gang::membership_in(*info->pod, group);
    if (m == gang::Membership::kPending) pending.push_back(info);
    if (m == gang::Membership::kBound) out.bound_nodes.push_back(info->pod->node_name);
  });
  out.bound = out.bound_nodes.size();
  std::sort(out.bound_nodes.begin(), out.bound_nodes.end());
  if (!like) return out;
  std::sort(pending.begin(), pending.end(),
            [](const auto& a, const auto& b) { return a->pod->name < b->pod->name; });
  for (const auto& info : pending) out.pending.push_back(member_like(*like, *info));
  return out;
}

// Every node with a node object, by name: a stable order, so that the first node on ties is the same
// whichever shard a name hashed to.
std::vector<const NodeInfo*> cluster_nodes(const ClusterState& state) {
  std::vector<const NodeInfo*> nodes;
  nodes.reserve(state.node_object_count());
  state.nodes.for_each([&](const auto&, const std::shared_ptr<const NodeInfo>& n) {
    if (n->node) nodes.push_back(n.get());
  });
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeInfo* a, const NodeInfo* b) { return a->name() < b->name(); });
  return nodes;
}

// A member the cache shows on a node already: bound, or its Binding on its way. The bind that completes
// a group makes the Bindings of its members whose calls were answered before (BindPermit::detached),
// and the cache counts each on its node from the moment it is sent (StateCache's assume_pod), before the
// scheduler's own cache shows it. The scheduler, which had that member's bind call answered with an
// Error, may try it again meanwhile: any node but that one would race the Binding on its way, and take
// the member out of its group's room and topology domain. nullopt for a pod not on a node, or not of
// an all-or-nothing group.
std::optional<GangGate> on_its_node(const Pod& pod, const std::string& group, const ClusterState& state) {
  const PodInfo* self = state.find_pod(pod.uid);
  if (!self || self->pod->node_name.empty()) return std::nullopt;
  const auto spec = state.gangs->find(group);
  if (spec == state.gangs->end() || !spec->second.all_or_nothing) return std::nullopt;
  GangGate g;
  g.kind = GangGate::Kind::kOnlyNode;
  g.group = group;
  g.node = self->pod->node_name;
  g.reason = "pod group " + group + ": this member is bound to node " + g.node + " already";
  g.state = "member bound to node " + g.node;
  return g;
}

// The reasons of the filters that pass `pod` on `as_is` and fail it on `with_room`, the same node with
// the held room added: what the room takes from the pod. The pod is as the cache keeps it, without its
// tolerations, selectors or node affinity, so a filter may fail it on the node as it is (a tainted node
// fails TaintToleration); that is the scheduler's to have checked, and not the room's doing, so each
// filter is compared with itself rather than the node's verdict as a whole.
std::vector<std::string> failed_by_room(const Engine& engine, PodContext& pod, const NodeInfo& as_is,
                                        const NodeInfo& with_room) {
  const NodeInfo* nodes[] = {&as_is};
  engine.prepare(pod, nodes);
  std::vector<std::string> lost;
  for (const auto& f : engine.filters()) {
    std::vector<std::string> reasons;
    if (f->check(pod, as_is, reasons) != FilterCode::kSuccess) continue;
    if (f->check(pod, with_room, reasons) != FilterCode::kSuccess)
      lost.insert(lost.end(), reasons.begin(), reasons.end());
  }
  return lost;
}

}  // namespace

namespace {

// The level of the one domain a group was admitted in, as the gatekeeper names it: "rack r3" and
// "block b1 (racks r1, r2)" are one rack and one block; "racks r1, r2", a preferred group spread over
// several, is in none (a label value holds no comma).
std::string_view single_domain_level(std::string_view domain) {
  const size_t space = domain.find(' ');
  if (space == std::string_view::npos) return {};
  const std::string_view value = domain.substr(space + 1, domain.find(" (") - space - 1);
  return value.find(',') == std::string_view::npos ? domain.substr(0, space) : std::string_view();
}

GangCoordinator::Clock steady_since_now() {
  return [epoch = std::chrono::steady_clock::now()] {
    return std::chrono::duration_cast<gang::Time>(std::chrono::steady_clock::now() - epoch);
  };
}

}  // namespace

GangCoordinator::GangCoordinator(const Engine& engine, const StateStore& store, GangConfig config,
                                 Metrics* metrics, Clock clock)
    : engine_(engine),
      store_(store),
      config_(config),
      metrics_(metrics),
      clock_(clock ? std::move(clock) : steady_since_now()),
      gates_(config.backoff) {
  gates_.set_topology_levels(config_.topology_levels);
  gates_.set_observer(
      [this](gang::GroupEvent e, const std::string& group, gang::Time at) { observe(e, group, at); });
}

void GangCoordinator::observe(gang::GroupEvent e, const std::string& group, gang::Time at) {
  switch (e) {
    case gang::GroupEvent::kAdmitted:
      if (metrics_) {
        metrics_->count_gang_admitted();
        const std::string domain = gates_.domain_of(group);
        if (const std::string_view level = single_domain_level(domain); !level.empty())
          metrics_->count_gang_topology_admitted(level, gates_.evicts(group));
      }
      break;
    case gang::GroupEvent::kComplete:
      if (auto s = gates_.status(group); s && metrics_)
        metrics_->observe_gang_bound(std::chrono::duration<double>(at - s->admitted_at).count());
      break;
    case gang::GroupEvent::kTimedOut:
      if (metrics_) metrics_->count_gang_timed_out();
      break;
    case gang::GroupEvent::kDeleted:
      break;
  }
}

void GangCoordinator::sweep(gang::Time t, const ClusterState* state) {
  const bool settled = state && !gates_.held_room().empty() &&
                       gates_.settle(
                           [state](std::string_view uid) {
                             const PodInfo* p = state->find_pod(uid);
                             return p != nullptr && !p->pod->node_name.empty();
                           },
                           t);
  std::vector<gang::Expired> gone = gates_.sweep(t, state ? state->gangs.get() : nullptr);
  for (const gang::Expired& e : gone)
    for (const std::string& uid : e.rejected) {
      if (holding_.erase(uid) != 0) rejected_[uid] = e.reason;
      arrived_.erase(uid);
    }
  if (settled || !gone.empty()) publish();
  if (!gone.empty()) cv_.notify_all();
}

std::shared_ptr<const HeldRoom> GangCoordinator::held_room(const ClusterState* state) {
  std::shared_ptr<const HeldRoom> room = room_.load(std::memory_order_acquire);
  if ((state && !room->empty()) || now().count() >= next_deadline_ms_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mu_);
    sweep(now(), state);
    room = room_.load(std::memory_order_acquire);
  }
  return room;
}

void GangCoordinator::publish() {
  auto room = std::make_shared<HeldRoom>(gates_.held_room());
  room->version = ++room_version_;
  room_.store(std::move(room), std::memory_order_release);
  const std::optional<gang::Time> next = gates_.next_deadline();
  next_deadline_ms_.store(next ? next->count() : INT64_MAX, std::memory_order_release);
  if (metrics_) {
    metrics_->set_gang_gauges(static_cast<int64_t>(gates_.waiting_groups()),
                              static_cast<int64_t>(gates_.admitted_groups()),
                              static_cast<int64_t>(holding_.size()));
  }
}

GangGate GangCoordinator::gate(const Pod& pod, const ClusterState& state, const ClusterView* cluster) {
  const std::optional<std::string> group = gang::pod_group_key(pod);
  if (!group) return {};
  if (std::optional<GangGate> there = on_its_node(pod, *group, state)) return std::move(*there);
  auto members = [&state](std::string_view group, const Pod& like) {
    return members_in(state, group, &like);
  };
  AdmissionNodes from;
  auto nodes = [this, &from] { return admission_nodes(from); };

  std::lock_guard<std::mutex> lock(mu_);
  const gang::Time t = now();
  sweep(t, &state);
  GangGate g = gates_.gate(engine_, pod, *state.gangs, members, nodes, cluster, t);
  publish();
  return g;
}

gang::GroupPreemption GangCoordinator::preempt(const Pod& pod, const ClusterState& state,
                                               const ClusterView* cluster, const gang::Evictions& evictions) {
  auto members = [&state](std::string_view group, const Pod& like) {
    return members_in(state, group, &like);
  };
  AdmissionNodes from;
  std::lock_guard<std::mutex> lock(mu_);
  const gang::Time t = now();
  sweep(t, &state);
  gang::GroupPreemption p = gates_.preempt(
      engine_, pod, *state.gangs, members, [&] { return admission_nodes(from); }, cluster, t, evictions);
  publish();
  return p;
}

BindPermit GangCoordinator::permit(std::string_view uid, std::string_view namespace_, std::string_view name,
                                   std::string_view node) {
  BindPermit out;
  const std::shared_ptr<const ClusterState> snapshot = store_.current();
  const ClusterState& state = *snapshot;
  std::unique_lock<std::mutex> lock(mu_);
  const gang::Time t = now();
  sweep(t, &state);
  if (auto group = gates_.group_of(uid)) {
    out.group = std::move(*group);
  } else if (const PodInfo* p = state.find_pod(uid)) {
    if (auto key = gang::pod_group_key(*p->pod)) out.group = std::move(*key);
  }
  if (auto spec = state.gangs->find(out.group); spec != state.gangs->end() && !spec->second.all_or_nothing)
    out.group.clear();  // upstream's basic policy: its pods bind as any pod
  if (out.group.empty()) return out;
  const std::string pod = namespaced_key(namespace_, name);
  if (const PodInfo* p = state.find_pod(uid);
      p && !node.empty() && !p->pod->node_name.empty() && p->pod->node_name != node) {
    // Bound, or its Binding on its way (on_its_node): a second Binding elsewhere would race it.
    out.error = "not binding pod " + pod + " to node " + std::string(node) + ": it is bound to node " +
                p->pod->node_name + " already";
    return out;
  }
  if (std::optional<std::string> held = gates_.placement(out.group, uid);
      held && !node.empty() && *held != node) {
    // Only a scheduler that filtered without this extender, or on a stale answer, asks for another
    // node: binding there would take the member out of its group's room (and domain), while the
    // Binding its group's completion makes names the held node.
    out.error = "not binding pod " + pod + " to node " + std::string(node) + ": node " + *held +
                " is held for this member of pod group " + out.group;
    return out;
  }
  if (!gates_.admitted(out.group)) admit_at_bind(uid, snapshot, t);
  gang::PermitDecision d = gates_.permit(out.group, uid, t);
  if (d.verdict == gang::Verdict::kReject) {
    // Not admitted here: a group already running (bound before this extender started, or complete and
    // forgotten) binds as any pod; any other was never admitted, and its pod waits.
    auto spec = state.gangs->find(out.group);
    if (spec != state.gangs->end() &&
        members_in(state, out.group, nullptr).bound >= static_cast<size_t>(spec->second.min_member)) {
      return out;
    }
    out.error = "not binding pod " + pod + ": " + d.reason;
    return out;
  }
  if (d.verdict == gang::Verdict::kRelease) {
    out.detached = release(out.group, uid, d.release);
    return out;
  }
  const auto placed = gates_.placement(out.group, uid);
  arrived_[std::string(uid)] =
      MemberBind{std::string(uid), std::string(namespace_), std::string(name), placed.value_or("")};
  out.error = hold(lock, out.group, uid, pod, t);
  return out;
}

std::vector<MemberBind> GangCoordinator::release(const std::string& group, std::string_view uid,
                                                 const std::vector<std::string>& members) {
  std::vector<MemberBind> detached;
  for (const std::string& r : members) {
    auto arrived = arrived_.find(r);
    if (r != uid && holding_.count(r) != 0) {
      released_.insert(r);  // its held call makes its Binding
      holding_.erase(r);
    } else if (r != uid && arrived != arrived_.end() && !arrived->second.node.empty()) {
      detached.push_back(arrived->second);
    } else if (r != uid) {
      gates_.unplace(group, r);  // no node held for it: the scheduler binds it again, as any pod
    }
    if (arrived != arrived_.end()) arrived_.erase(arrived);
  }
  publish();
  cv_.notify_all();
  return detached;
}

std::string GangCoordinator::hold(std::unique_lock<std::mutex>& lock, const std::string& group,
                                  std::string_view uid, const std::string& pod, gang::Time t) {
  const std::string key(uid);
  auto waiting_text = [&](const std::string& why) {
    const auto s = gates_.status(group);
    const auto node = gates_.placement(group, uid);
    return "not binding pod " + pod + " yet: pod group " + group + " has " +
           std::to_string(s ? s->waiting + s->bound : 0) + " of " + std::to_string(s ? s->min_member : 0) +
           " members at bind" + why + "; this member stays at bind, and is bound" +
           (node ? " to node " + *node : std::string()) +
           " as soon as its group completes (it times out in " +
           gang::seconds_text(s ? s->deadline - now() : gang::Time(0)) + ")";
  };
  if (stopped_) return "not binding pod " + pod + ": the extender is shutting down";
  if (holding_.size() >= config_.max_held_binds)
    return waiting_text(" (" + std::to_string(holding_.size()) +
                        " bind calls are held already: --gang-max-held-binds)");
  holding_.insert(key);
  publish();
  const auto status = gates_.status(group);
  const gang::Time until = std::min(t + config_.max_hold, status ? status->deadline : t);
  const bool woken = cv_.wait_for(lock, until - now(), [&] {
    return stopped_ || released_.count(key) != 0 || rejected_.count(key) != 0;
  });
  if (!woken) sweep(now(), nullptr);  // this member's group may have timed out now
  auto answer = [&]() -> std::string {
    if (released_.erase(key) != 0) return "";  // the caller makes the Binding
    if (auto r = rejected_.find(key); r != rejected_.end()) {
      std::string e = "not binding pod " + pod + ": " + r->second;
      rejected_.erase(r);
      return e;
    }
    if (stopped_) return "not binding pod " + pod + ": the extender is shutting down";
    return waiting_text(" after " + gang::seconds_text(config_.max_hold));
  };
  const std::string error = answer();
  holding_.erase(key);
  publish();
  return error;
}

void GangCoordinator::admit_at_bind(std::string_view uid, const std::shared_ptr<const ClusterState>& state,
                                    gang::Time t) {
  const PodInfo* info = state->find_pod(uid);
  if (!info) return;
  // Only the cache's fields of the pod: its requests stand for its constraints. It has no tolerations,
  // so on tainted nodes this admission fails and the member's bind is refused; the scheduler then
  // filters the member, here, and the filter admits the group with the whole pod.
  const std::shared_ptr<const Pod> like = member_like(Pod{}, *info);
  auto members = [&state](std::string_view group, const Pod& l) { return members_in(*state, group, &l); };
  const auto cluster = engine_.reads_cluster() ? cluster_view_of(state, store_.usage()) : nullptr;
  AdmissionNodes from;
  gates_.gate(
      engine_, *like, *state->gangs, members, [&] { return admission_nodes(from); },
      cluster ? &cluster->view : nullptr, t);
  publish();
}

void GangCoordinator::bound(const BindPermit& permit, std::string_view uid, bool ok) {
  if (permit.group.empty() || !permit.error.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (ok) {
    gates_.bound(permit.group, uid, now());
  } else {
    gates_.unplace(permit.group, uid);
  }
  publish();
}

void GangCoordinator::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  holding_.clear();
  arrived_.clear();
  cv_.notify_all();
}

size_t GangCoordinator::detached_members() const {
  std::lock_guard<std::mutex> lock(mu_);
  return arrived_.size() - std::count_if(arrived_.begin(), arrived_.end(),
                                         [this](const auto& a) { return holding_.count(a.first) != 0; });
}

size_t GangCoordinator::held_binds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return holding_.size();
}

bool GangCoordinator::admitted(std::string_view group) const {
  std::lock_guard<std::mutex> lock(mu_);
  return gates_.admitted(group);
}

std::string GangCoordinator::check_bind(std::string_view uid, std::string_view namespace_,
                                        std::string_view name, std::string_view node) {
  const std::shared_ptr<const ClusterState> state = store_.current();
  if (!state) return "";
  for (;;) {
    const std::shared_ptr<const HeldRoom> room = held_room(state.get());
    std::string refused = bind_refusal(uid, namespace_, name, node, *state, *room);
    if (!refused.empty()) return refused;
    std::lock_guard<std::mutex> lock(mu_);
    // An admission between the check and now may have taken this room: check again on the new room.
    if (room_.load(std::memory_order_acquire)->version != room->version) continue;
    if (const auto* info = state->pods_by_uid.find(uid))
      binding_.insert_or_assign(std::string(uid), InFlight{std::string(node), *info});
    return "";
  }
}

void GangCoordinator::bind_ended(std::string_view uid) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = binding_.find(uid); it != binding_.end()) binding_.erase(it);
}

std::vector<const NodeInfo*> GangCoordinator::admission_nodes(AdmissionNodes& from) const {
  if (!from.live) from.live = store_.current();  // one state for every call of one request
  std::vector<const NodeInfo*> nodes = cluster_nodes(*from.live);
  for (const auto& [uid, b] : binding_) {
    if (const PodInfo* now = from.live->find_pod(uid); !now || !now->pod->node_name.empty()) continue;
    auto it = std::lower_bound(nodes.begin(), nodes.end(), b.node,
                               [](const NodeInfo* n, const std::string& name) { return n->name() < name; });
    if (it == nodes.end() || (*it)->name() != b.node) continue;
    NodeInfo& copy = from.copies.emplace_back(**it);
    copy.add_pod(b.pod);
    *it = &copy;
  }
  return nodes;
}

std::string GangCoordinator::bind_refusal(std::string_view uid, std::string_view namespace_,
                                          std::string_view name, std::string_view node,
                                          const ClusterState& state, const HeldRoom& room) {
  const auto held = room.by_node.find(node);
  if (held == room.by_node.end()) return "";
  const PodInfo* info = state.find_pod(uid);
  const NodeInfo* n = state.find_node(node);
  if (!n || !n->node) return "";
  // The groups whose members hold room there, this pod's own aside.
  auto held_for = [&] {
    std::set<std::string> groups;
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& member : held->second)
      if (member->pod->uid != uid)
        if (std::optional<std::string> g = gates_.group_of(member->pod->uid)) groups.insert(*g);
    std::string names;
    for (const std::string& g : groups) names += (names.empty() ? "" : ", ") + g;
    return names.empty() ? std::string("?") : names;
  };
  const std::string refused = "not binding pod " + namespaced_key(namespace_, name) + " to node " +
                              std::string(node) + ": room there is held for pod group ";
  if (!info) {
    // A pod this replica's watch has not shown yet (filtered on a replica whose watch is ahead, its bind
    // passed on here): its requests are unknown, so it could take the held room. The scheduler tries it
    // again, by when the watch has it.
    for (const auto& member : held->second)
      if (member->pod->uid == uid) return "";
    return refused + held_for() + ", and the extender's cache does not have the pod yet to check it";
  }
  // The pod as the cache keeps it (its identity, labels and requests): what the held room can take from
  // it. Its other constraints do not change with the room, and the scheduler checked them.
  Pod pod;
  static_cast<PodMeta&>(pod) = *info->pod;
  pod.containers.assign(1, Container{"pod", "", info->requests, true, true, false, std::nullopt});
  std::deque<NodeInfo> copies;
  const NodeInfo* with_room[] = {n};
  apply_held_room(room, with_room, copies, uid);
  if (with_room[0] == n) return "";  // the room there is held for this pod itself
  PodContext context(pod, nullptr);
  const std::vector<std::string> lost = failed_by_room(engine_, context, *n, *with_room[0]);
  if (lost.empty()) return "";
  std::string reasons;
  for (const std::string& r : lost) reasons += (reasons.empty() ? "" : ", ") + r;
  return refused + held_for() + " (" + reasons + ")";
}

}  // namespace kext
