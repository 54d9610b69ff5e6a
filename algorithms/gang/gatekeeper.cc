#include "algorithms/gang/gatekeeper.h"

#include <algorithm>
#include <utility>

#include "algorithms/gang/admission.h"
#include "algorithms/gang/topology.h"

namespace kext::gang {

namespace {

// A waiting group whose members have not been filtered for this long has left the queue (its job was
// deleted, or the scheduler gave up on it): it no longer goes before younger groups.
constexpr Time kWaitingForgetAfter = std::chrono::seconds(120);

// The start of every reason the gate gives, as admission's reasons start.
std::string reason_prefix(const std::string& group) { return "pod group " + group + ": "; }

}  // namespace

std::string seconds_text(Time t) {
  const auto ms = t.count();
  return std::to_string(ms / 1000) + (ms % 1000 >= 100 ? "." + std::to_string(ms % 1000 / 100) : "") + "s";
}

void apply_held_room(const HeldRoom& room, std::span<const NodeInfo*> nodes, std::deque<NodeInfo>& copies,
                     std::string_view except_uid, const HeldAdded& added) {
  if (room.empty()) return;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeInfo*& n = nodes[i];
    if (!n || !n->node) continue;
    auto it = room.by_node.find(n->name());
    if (it == room.by_node.end()) continue;
    NodeInfo* copy = nullptr;
    for (const auto& held : it->second) {
      if (held->pod->uid == except_uid) continue;
      if (!copy) copy = &copies.emplace_back(*n);
      copy->add_pod(held);
      if (added) added(i, held);
    }
    if (copy) n = copy;
  }
}

std::string Gatekeeper::in_domain(std::string_view group) const {
  const std::string d = domain_of(group);
  return d.empty() ? "" : " in " + d;
}

// "preempting 3 pods of priority <= 100": what a group's admission evicts, as its state says it.
std::string Gatekeeper::eviction_summary(std::string_view group) const {
  size_t victims = 0;
  int32_t highest = 0;
  if (auto e = evictions_.find(group); e != evictions_.end())
    for (const auto& [node, pods] : e->second)
      for (const auto& p : pods)
        highest =
            victims++ == 0 ? p->pod->effective_priority() : std::max(highest, p->pod->effective_priority());
  if (victims == 0) return "preempting";
  return "preempting " + std::to_string(victims) + " pod" + (victims == 1 ? "" : "s") +
         " of priority <= " + std::to_string(highest);
}

void Gatekeeper::forget_stale_waiting(Time now) {
  std::erase_if(waiting_, [&](const auto& w) { return w.second.seen + kWaitingForgetAfter < now; });
}

void Gatekeeper::rebuild_room() {
  std::erase_if(evictions_, [&](const auto& e) { return !tracker_.admitted(e.first); });
  std::erase_if(domains_, [&](const auto& e) { return !tracker_.admitted(e.first); });
  room_.by_node.clear();
  tracker_.for_each_held([&](const HeldMember& m) { room_.by_node[m.node].push_back(m.pod); });
}

std::vector<Expired> Gatekeeper::sweep(Time now, const GroupMap* groups) {
  std::vector<Expired> gone = tracker_.expire(now);
  for (const Expired& e : gone) notify(GroupEvent::kTimedOut, e.group, now);
  if (groups) {
    std::vector<std::string> deleted;
    for (const auto& [uid, group] : member_group_)
      if (groups->find(group) == groups->end() &&
          std::find(deleted.begin(), deleted.end(), group) == deleted.end())
        deleted.push_back(group);
    for (const std::string& group : deleted) {
      if (auto e = tracker_.forget(group)) {
        notify(GroupEvent::kDeleted, group, now);
        gone.push_back(std::move(*e));
      }
    }
  }
  forget_stale_waiting(now);
  if (gone.empty()) return gone;
  for (const Expired& e : gone)
    std::erase_if(member_group_, [&](const auto& m) { return m.second == e.group; });
  rebuild_room();
  return gone;
}

std::optional<std::string> Gatekeeper::group_of(std::string_view uid) const {
  auto it = member_group_.find(uid);
  if (it == member_group_.end()) return std::nullopt;
  return it->second;
}

bool Gatekeeper::try_admit(const Engine& engine, const Waiting& w, const GroupMembers& members,
                           std::span<const NodeInfo* const> all_nodes, const ClusterView* cluster, Time now,
                           std::string* reason, const Evictions* evictions) {
  // The members still to place: minMember less those already bound (a group that lost a member).
  PodGroupSpec need = w.spec;
  need.min_member = std::max<int32_t>(1, w.spec.min_member - static_cast<int32_t>(members.bound));
  std::vector<std::shared_ptr<const Pod>> pods;
  pods.reserve(members.pending.size() + 1);
  pods.push_back(w.pod);  // the pod filtered last goes first: it gets its best node
  for (const auto& p : members.pending)
    if (p->uid != w.pod->uid) pods.push_back(p);

  std::vector<const NodeInfo*> nodes(all_nodes.begin(), all_nodes.end());
  std::deque<NodeInfo> copies;
  apply_held_room(room_, nodes, copies, "");
  const Admission a =
      admit_in_topology(engine, need, pods, nodes, levels_, cluster, evictions, members.bound_nodes);
  if (!a.admitted) {
    *reason = a.reason;
    return false;
  }
  std::map<std::string_view, const std::shared_ptr<const Pod>*> by_uid;
  for (const auto& p : pods) by_uid.emplace(p->uid, &p);
  std::vector<HeldMember> held;
  for (const MemberPlacement& p : a.placements) {
    held.push_back(
        {std::make_shared<const PodInfo>(make_pod_info(p.reserved ? p.reserved : *by_uid.at(p.uid))),
         p.node});
    member_group_[p.uid] = w.spec.key();
    if (!p.victims.empty()) {
      auto& victims = evictions_[w.spec.key()][p.node];
      victims.insert(victims.end(), p.victims.begin(), p.victims.end());
    }
  }
  tracker_.admit(need, std::move(held), now);  // waits at bind for those placed, not those bound already
  if (!a.domain.empty()) domains_[w.spec.key()] = a.domain;
  waiting_.erase(w.spec.key());
  rebuild_room();
  notify(GroupEvent::kAdmitted, w.spec.key(), now);
  return true;
}

Gate Gatekeeper::gate(const Engine& engine, const Pod& pod, const GroupMap& groups,
                      const MembersOf& members_of, const NodesOf& nodes, const ClusterView* cluster,
                      Time now) {
  Gate g;
  std::optional<std::string> key = pod_group_key(pod);
  if (!key) return g;
  g.group = *key;
  auto spec = groups.find(g.group);
  if (spec == groups.end()) {
    g.kind = Gate::Kind::kRefuse;
    g.state = "unknown";
    g.reason = reason_prefix(g.group) + "no such PodGroup: the pod waits until it exists";
    return g;
  }
  if (!spec->second.all_or_nothing) {
    g.state = "basic policy: scheduled as any pod";
    return g;
  }
  if (!spec->second.topology.invalid.empty()) {
    g.kind = Gate::Kind::kRefuse;
    g.state = "invalid topology";
    g.reason = reason_prefix(g.group) + spec->second.topology.invalid;
    return g;
  }
  if (auto status = tracker_.status(g.group)) {
    gate_admitted(g, spec->second, *status, pod, now);
    return g;
  }
  GroupMembers mine = members_of(g.group, pod);
  if (!ready_to_admit(g, spec->second, mine, pod, now)) return g;
  forget_stale_waiting(now);
  Waiting& self = waiting_[g.group];
  self.spec = spec->second;
  self.pod = std::make_shared<const Pod>(pod);
  self.seen = now;

  const std::vector<const NodeInfo*> all = nodes();
  admit_waiting_ahead(engine, self, groups, members_of, all, cluster, now);
  std::string reason;
  const Waiting copy = self;
  if (!try_admit(engine, copy, mine, all, cluster, now, &reason)) {
    g.state = "waiting for room";
    g.reason = std::move(reason);
    g.wants_room = true;
    return g;
  }
  auto node = tracker_.placement(g.group, pod.uid);
  g.kind = node ? Gate::Kind::kOnlyNode : Gate::Kind::kOrdinary;
  g.node = node.value_or("");
  g.reason = reason_prefix(g.group) + "node " + g.node + " is held for this member";
  g.state = "admitted now" + in_domain(g.group);
  return g;
}

void Gatekeeper::gate_admitted(Gate& g, const PodGroupSpec& spec, const GroupStatus& status, const Pod& pod,
                               Time now) const {
  // A member keeps to the node held for it until it is bound there, through every retry of the
  // scheduler's: also once its group is complete, since the Binding its group's completion makes
  // names that node. Passing other nodes then let the scheduler bind it outside its group's domain.
  const std::optional<std::string> held = tracker_.placement(g.group, pod.uid);
  if (held) {
    g.kind = Gate::Kind::kOnlyNode;
    g.node = *held;
    g.reason = reason_prefix(g.group) + "node " + *held + " is held for this member";
  }
  if (status.complete) {
    g.state = "complete";
    return;
  }
  const size_t min = static_cast<size_t>(std::max(spec.min_member, 1));
  // A group admitted again after losing a member waits for fewer: its running ones count.
  const size_t running = min - std::min<size_t>(min, static_cast<size_t>(std::max(status.min_member, 1)));
  g.state = "admitted, " + std::to_string(running + status.waiting + status.bound) + " of " +
            std::string(spec.min_field()) + " " + std::to_string(min) + " at bind, times out in " +
            seconds_text(status.deadline - now) + in_domain(g.group);
  // A member beyond those placed (no `held`): as any pod, in the room left.
}

bool Gatekeeper::ready_to_admit(Gate& g, const PodGroupSpec& spec, const GroupMembers& mine, const Pod& pod,
                                Time now) const {
  const size_t min = static_cast<size_t>(std::max(spec.min_member, 1));
  if (mine.bound >= min) {
    g.state = "running, " + std::to_string(mine.bound) + " bound";
    return false;
  }
  g.kind = Gate::Kind::kRefuse;
  if (tracker_.backing_off(g.group, now)) {
    g.state = "backing off";
    g.reason = reason_prefix(g.group) + "timed out and backs off before it is admitted again";
    return false;
  }
  const bool listed =
      std::any_of(mine.pending.begin(), mine.pending.end(), [&](const auto& p) { return p->uid == pod.uid; });
  const size_t pods = mine.pending.size() + (listed ? 0 : 1) + mine.bound;
  if (pods < min) {
    g.state = "waiting for members";
    g.reason = reason_prefix(g.group) + std::to_string(pods) + " pods of " + std::string(spec.min_field()) +
               " " + std::to_string(min) + ": waiting for the rest";
    return false;
  }
  return true;
}

void Gatekeeper::admit_waiting_ahead(const Engine& engine, const Waiting& self, const GroupMap& groups,
                                     const MembersOf& members_of, std::span<const NodeInfo* const> all,
                                     const ClusterView* cluster, Time now) {
  auto priority = [](const Waiting& w) { return w.pod->effective_priority(); };
  std::vector<const Waiting*> ahead;
  for (const auto& [k, w] : waiting_)
    if (&w != &self && !tracker_.backing_off(k, now) && groups.count(k) &&
        admitted_before(w.spec, priority(w), self.spec, priority(self)))
      ahead.push_back(&w);
  std::sort(ahead.begin(), ahead.end(), [&](const Waiting* a, const Waiting* b) {
    return admitted_before(a->spec, priority(*a), b->spec, priority(*b));
  });
  std::vector<Waiting> copies;  // try_admit erases an admitted group from waiting_
  for (const Waiting* w : ahead) copies.push_back(*w);
  for (const Waiting& w : copies) {
    std::string ignored;
    try_admit(engine, w, members_of(w.spec.key(), *w.pod), all, cluster, now, &ignored);
  }
}

GroupPreemption Gatekeeper::preempt(const Engine& engine, const Pod& pod, const GroupMap& groups,
                                    const MembersOf& members_of, const NodesOf& nodes,
                                    const ClusterView* cluster, Time now, const Evictions& evictions) {
  return preempt_after(engine, pod, gate(engine, pod, groups, members_of, nodes, cluster, now), members_of,
                       nodes, cluster, now, evictions);
}

GroupPreemption Gatekeeper::preempt_after(const Engine& engine, const Pod& pod, Gate g,
                                          const MembersOf& members_of, const NodesOf& nodes,
                                          const ClusterView* cluster, Time now, const Evictions& evictions) {
  GroupPreemption out;
  out.group = g.group;
  out.state = g.state;
  if (g.kind == Gate::Kind::kOrdinary) return out;
  if (g.kind == Gate::Kind::kRefuse) {
    out.kind = GroupPreemption::Kind::kNone;
    out.reason = g.reason;
    auto self = waiting_.find(g.group);
    if (!g.wants_room || self == waiting_.end()) return out;
    const Waiting w = self->second;
    std::string reason;
    if (!try_admit(engine, w, members_of(g.group, pod), nodes(), cluster, now, &reason, &evictions)) {
      const std::string& key = w.spec.topology.required;
      out.reason = reason + "; preempting pods of lower priority (never a gang member) makes no room " +
                   (key.empty() ? "either" : "in any one " + std::string(level_name(key)) + " either");
      out.state = "waiting for room, with preemption too";
      return out;
    }
    std::optional<std::string> node = tracker_.placement(g.group, pod.uid);
    if (!node) return out;
    g.node = std::move(*node);
    out.state = "admitted now, " + eviction_summary(g.group) + in_domain(g.group);
  }
  out.kind = GroupPreemption::Kind::kNode;
  out.node = g.node;
  out.reason.clear();
  if (auto e = evictions_.find(g.group); e != evictions_.end())
    if (auto v = e->second.find(g.node); v != e->second.end()) out.victims = v->second;
  return out;
}

PermitDecision Gatekeeper::permit(std::string_view group, std::string_view uid, Time now) {
  return tracker_.permit(group, uid, now);
}

void Gatekeeper::bound(std::string_view group, std::string_view uid, Time now) {
  tracker_.bound(group, uid);
  member_group_.erase(std::string(uid));
  if (auto s = tracker_.status(group); s && s->complete && s->held == 0 && s->waiting == 0) {
    // Done: its members are bound, and later ones (beyond minMember) bind as any pod of a running group.
    notify(GroupEvent::kComplete, std::string(group), now);
    tracker_.forget(group);
  }
  rebuild_room();
}

bool Gatekeeper::settle(const std::function<bool(std::string_view uid)>& is_bound, Time now) {
  std::vector<std::pair<std::string, std::string>> done;  // group, uid
  tracker_.for_each_held([&](const HeldMember& m) {
    if (!is_bound(m.pod->pod->uid)) return;
    if (auto g = group_of(m.pod->pod->uid)) done.emplace_back(std::move(*g), m.pod->pod->uid);
  });
  for (const auto& [group, uid] : done) bound(group, uid, now);
  return !done.empty();
}

void Gatekeeper::unplace(std::string_view group, std::string_view uid) {
  tracker_.unplace(group, uid);
  rebuild_room();
}

}  // namespace kext::gang
