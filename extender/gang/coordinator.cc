#include "extender/gang/coordinator.h"

#include <algorithm>
#include <utility>

#include "algorithms/gang/admission.h"

namespace kext {

namespace {

// A waiting group whose members have not been filtered for this long has left the queue (its job was
// deleted, or the scheduler gave up on it): it no longer goes before younger groups.
constexpr gang::Time kWaitingForgetAfter = std::chrono::seconds(120);

std::string seconds_text(gang::Time t) {
  const auto ms = t.count();
  return std::to_string(ms / 1000) + (ms % 1000 ? "." + std::to_string(ms % 1000 / 100) : "") + "s";
}

// A member as admission places it: the filtering pod's scheduling constraints (a gang's members come
// from one template: a Job's, a training operator's replica spec), the member's own identity, labels
// and requests (the cache keeps only those of a pod: algorithms/model.h PodMeta).
std::shared_ptr<const Pod> member_like(const Pod& like, const PodInfo& member) {
  auto p = std::make_shared<Pod>(like);
  static_cast<PodMeta&>(*p) = *member.pod;
  p->nominated_node_name.clear();
  p->init_containers.clear();
  p->overhead = {};
  p->containers.assign(1, Container{"member", "", member.requests, true, true, false});
  return p;
}

}  // namespace

void apply_held_room(const HeldRoom& room, std::span<const NodeInfo*> nodes, std::deque<NodeInfo>& copies,
                     std::string_view except_uid) {
  if (room.empty()) return;
  for (const NodeInfo*& n : nodes) {
    if (!n || !n->node) continue;
    auto it = room.by_node.find(n->name());
    if (it == room.by_node.end()) continue;
    NodeInfo* copy = nullptr;
    for (const auto& held : it->second) {
      if (held->pod->uid == except_uid) continue;
      if (!copy) copy = &copies.emplace_back(*n);
      copy->add_pod(held);
    }
    if (copy) n = copy;
  }
}

GangCoordinator::GangCoordinator(const Engine& engine, const StateStore& store, GangConfig config,
                                 Metrics* metrics)
    : engine_(engine), store_(store), config_(config), metrics_(metrics), tracker_(config.backoff) {}

gang::Time GangCoordinator::now() const {
  return std::chrono::duration_cast<gang::Time>(Clock::now() - epoch_);
}

std::map<std::string, GangCoordinator::Members, std::less<>> GangCoordinator::scan_members(
    const ClusterState& state) {
  std::map<std::string, Members, std::less<>> out;
  if (state.gangs->empty()) return out;
  state.pods_by_uid.for_each([&](const auto&, const std::shared_ptr<const PodInfo>& info) {
    const PodMeta& p = *info->pod;
    if (p.terminating) return;
    std::optional<std::string> key = gang::pod_group_key(p);
    if (!key) return;
    Members& m = out[*key];
    if (p.node_name.empty()) {
      m.pending.push_back(info);
    } else {
      ++m.bound;
    }
  });
  for (auto& [key, m] : out) {
    std::sort(m.pending.begin(), m.pending.end(),
              [](const auto& a, const auto& b) { return a->pod->name < b->pod->name; });
  }
  return out;
}

void GangCoordinator::reject(const gang::Expired& e) {
  for (const std::string& uid : e.rejected) rejected_[uid] = e.reason;
  std::erase_if(member_group_, [&](const auto& m) { return m.second == e.group; });
}

void GangCoordinator::sweep(gang::Time t, const ClusterState* state) {
  std::vector<gang::Expired> gone = tracker_.expire(t);
  if (metrics_ && !gone.empty()) metrics_->count_gang_timed_out(gone.size());
  if (state) {
    std::vector<std::string> deleted;
    for (const auto& [uid, group] : member_group_)
      if (state->gangs->find(group) == state->gangs->end()) deleted.push_back(group);
    for (const std::string& group : deleted)
      if (auto e = tracker_.forget(group)) gone.push_back(std::move(*e));
  }
  std::erase_if(waiting_, [&](const auto& w) { return w.second.seen + kWaitingForgetAfter < t; });
  if (gone.empty()) return;
  for (const gang::Expired& e : gone) reject(e);
  publish_room();
  cv_.notify_all();
}

std::shared_ptr<const HeldRoom> GangCoordinator::held_room() {
  if (now().count() >= next_deadline_ms_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mu_);
    sweep(now(), nullptr);
  }
  return room_.load(std::memory_order_acquire);
}

void GangCoordinator::publish_room() {
  auto room = std::make_shared<HeldRoom>();
  tracker_.for_each_held([&](const gang::HeldMember& m) { room->by_node[m.node].push_back(m.pod); });
  room_.store(std::move(room), std::memory_order_release);
  const std::optional<gang::Time> next = tracker_.next_deadline();
  next_deadline_ms_.store(next ? next->count() : INT64_MAX, std::memory_order_release);
  publish_gauges();
}

void GangCoordinator::publish_gauges() {
  if (!metrics_) return;
  metrics_->set_gang_gauges(static_cast<int64_t>(waiting_.size()),
                            static_cast<int64_t>(tracker_.admitted_groups()),
                            static_cast<int64_t>(held_binds_));
}

bool GangCoordinator::try_admit(const Waiting& w, const Members& members, const ClusterState& state,
                                const ClusterView* cluster, gang::Time t, std::string* reason) {
  // The members still to place: minMember less those already bound (a group that lost a member).
  gang::PodGroupSpec need = w.spec;
  need.min_member = std::max<int32_t>(1, w.spec.min_member - static_cast<int32_t>(members.bound));
  std::vector<std::shared_ptr<const Pod>> pods;
  pods.reserve(members.pending.size() + 1);
  pods.push_back(w.pod);  // the pod filtered now goes first: it gets its best node
  for (const auto& info : members.pending)
    if (info->pod->uid != w.pod->uid) pods.push_back(member_like(*w.pod, *info));

  std::vector<const NodeInfo*> nodes;
  nodes.reserve(state.node_object_count());
  state.nodes.for_each([&](const auto&, const std::shared_ptr<const NodeInfo>& n) {
    if (n->node) nodes.push_back(n.get());
  });
  // A stable order: the first node on ties is the same whichever shard a name hashed to.
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeInfo* a, const NodeInfo* b) { return a->name() < b->name(); });
  std::deque<NodeInfo> copies;
  apply_held_room(*room_.load(std::memory_order_acquire), nodes, copies, "");  // swept: mu_ is held

  const gang::Admission a = gang::admit(engine_, need, pods, nodes, cluster);
  if (!a.admitted) {
    *reason = a.reason;
    return false;
  }
  std::map<std::string_view, std::shared_ptr<const PodInfo>> infos;
  for (const auto& info : members.pending) infos.emplace(info->pod->uid, info);
  std::vector<gang::HeldMember> held;
  for (const gang::MemberPlacement& p : a.placements) {
    auto it = infos.find(p.uid);
    auto info = it != infos.end() ? it->second : std::make_shared<const PodInfo>(make_pod_info(w.pod));
    held.push_back({std::move(info), p.node});
    member_group_[p.uid] = w.spec.key();
  }
  tracker_.admit(w.spec, std::move(held), t);
  waiting_.erase(w.spec.key());
  if (metrics_) metrics_->count_gang_admitted();
  publish_room();
  return true;
}

GangGate GangCoordinator::gate(const Pod& pod, const ClusterState& state, const ClusterView* cluster) {
  GangGate g;
  std::optional<std::string> key = gang::pod_group_key(pod);
  if (!key) return g;
  g.group = *key;
  const std::string prefix = "pod group " + g.group + ": ";

  std::lock_guard<std::mutex> lock(mu_);
  const gang::Time t = now();
  sweep(t, &state);
  auto spec = state.gangs->find(g.group);
  if (spec == state.gangs->end()) {
    g.kind = GangGate::Kind::kRefuse;
    g.state = "unknown";
    g.reason = prefix + "no such PodGroup: the pod waits until it exists";
    return g;
  }
  const std::string min = std::to_string(spec->second.min_member);
  if (auto status = tracker_.status(g.group)) {
    if (status->complete) {
      g.state = "complete";
      return g;
    }
    g.state = "admitted, " + std::to_string(status->waiting + status->bound) + " of minMember " + min +
              " at bind, times out in " + seconds_text(status->deadline - t);
    if (auto node = tracker_.placement(g.group, pod.uid)) {
      g.kind = GangGate::Kind::kOnlyNode;
      g.node = *node;
      g.reason = prefix + "node " + *node + " is held for this member";
    }
    return g;  // a member beyond those placed: as any pod, in the room left
  }

  auto all = scan_members(state);
  Members& mine = all[g.group];
  if (mine.bound >= static_cast<size_t>(spec->second.min_member)) {
    g.state = "running, " + std::to_string(mine.bound) + " bound";
    return g;
  }
  g.kind = GangGate::Kind::kRefuse;
  if (tracker_.backing_off(g.group, t)) {
    g.state = "backing off";
    g.reason = prefix + "timed out and backs off before it is admitted again";
    return g;
  }
  // The pod itself may not be in the cache yet (the watch lags the scheduler): count it.
  const bool listed = std::any_of(mine.pending.begin(), mine.pending.end(),
                                  [&](const auto& p) { return p->pod->uid == pod.uid; });
  const size_t pods = mine.pending.size() + (listed ? 0 : 1) + mine.bound;
  if (pods < static_cast<size_t>(spec->second.min_member)) {
    g.state = "waiting for members";
    g.reason = prefix + std::to_string(pods) + " pods of minMember " + min + ": waiting for the rest";
    return g;
  }
  Waiting& self = waiting_[g.group];
  self.spec = spec->second;
  self.pod = std::make_shared<const Pod>(pod);
  self.seen = t;

  // One at a time, in a stable order: a group waiting before this one (higher priority, then older)
  // is admitted first when it fits, so that a group whose members reach filter more often cannot take
  // the room of one that waits longer.
  auto priority = [](const Waiting& w) { return w.pod->effective_priority(); };
  std::vector<const Waiting*> ahead;
  for (const auto& [k, w] : waiting_)
    if (k != g.group && !tracker_.backing_off(k, t) && state.gangs->count(k) &&
        gang::admitted_before(w.spec, priority(w), self.spec, priority(self)))
      ahead.push_back(&w);
  std::sort(ahead.begin(), ahead.end(), [&](const Waiting* a, const Waiting* b) {
    return gang::admitted_before(a->spec, priority(*a), b->spec, priority(*b));
  });
  for (const Waiting* w : ahead) {
    std::string ignored;
    const Waiting copy = *w;  // try_admit erases it from waiting_ when admitted
    try_admit(copy, all[copy.spec.key()], state, cluster, t, &ignored);
  }

  std::string reason;
  const Waiting copy = self;
  if (!try_admit(copy, mine, state, cluster, t, &reason)) {
    g.state = "waiting for room";
    g.reason = std::move(reason);
    publish_gauges();
    return g;
  }
  auto node = tracker_.placement(g.group, pod.uid);
  g.kind = node ? GangGate::Kind::kOnlyNode : GangGate::Kind::kOrdinary;
  g.node = node.value_or("");
  g.reason = prefix + "node " + g.node + " is held for this member";
  g.state = "admitted now";
  return g;
}

BindPermit GangCoordinator::permit(std::string_view uid, std::string_view namespace_, std::string_view name) {
  BindPermit out;
  const std::shared_ptr<const ClusterState> snapshot = store_.current();
  const ClusterState& state = *snapshot;
  std::unique_lock<std::mutex> lock(mu_);
  gang::Time t = now();
  sweep(t, &state);
  if (auto it = member_group_.find(uid); it != member_group_.end()) {
    out.group = it->second;
  } else if (const PodInfo* p = state.find_pod(uid)) {
    if (auto key = gang::pod_group_key(*p->pod)) out.group = *key;
  }
  if (out.group.empty()) return out;
  const std::string pod = std::string(namespace_) + "/" + std::string(name);
  gang::PermitDecision d = tracker_.permit(out.group, uid, t);
  if (d.verdict == gang::Verdict::kReject) {
    // Not admitted here: a group already running (bound before this extender started, or complete and
    // forgotten) binds as any pod; any other was never admitted, and its pod waits.
    auto members = scan_members(state);
    auto spec = state.gangs->find(out.group);
    if (spec != state.gangs->end() &&
        members[out.group].bound >= static_cast<size_t>(spec->second.min_member)) {
      return out;
    }
    out.error = "not binding pod " + pod + ": " + d.reason;
    return out;
  }
  if (d.verdict == gang::Verdict::kRelease) {
    for (const std::string& r : d.release)
      if (r != uid) released_.insert(r);
    cv_.notify_all();
    return out;
  }
  if (stopped_ || held_binds_ >= config_.max_held_binds) {
    tracker_.withdraw(out.group, uid);
    out.error = "not binding pod " + pod + ": " +
                (stopped_ ? std::string("the extender is shutting down")
                          : std::to_string(held_binds_) + " binds are held already (--gang-max-held-binds)");
    return out;
  }
  ++held_binds_;
  publish_gauges();
  const std::string key(uid);
  const auto status = tracker_.status(out.group);
  const gang::Time until = std::min(t + config_.max_hold, status ? status->deadline : t);
  const Clock::time_point deadline = epoch_ + until;
  for (;;) {
    const bool woken = cv_.wait_until(
        lock, deadline, [&] { return stopped_ || released_.count(key) != 0 || rejected_.count(key) != 0; });
    if (!woken) {
      sweep(now(), nullptr);  // this member's group may have timed out now
      if (rejected_.count(key) == 0 && released_.count(key) == 0) {
        const auto s = tracker_.status(out.group);
        tracker_.withdraw(out.group, uid);
        out.error = "not binding pod " + pod + " yet: pod group " + out.group + " has " +
                    std::to_string(s ? s->waiting + s->bound : 0) + " members at bind after " +
                    seconds_text(config_.max_hold) +
                    "; the node stays held for this member until the group's timeout";
        break;
      }
    }
    if (released_.erase(key)) break;
    if (auto r = rejected_.find(key); r != rejected_.end()) {
      out.error = "not binding pod " + pod + ": " + r->second;
      rejected_.erase(r);
      break;
    }
    if (stopped_) {
      tracker_.withdraw(out.group, uid);
      out.error = "not binding pod " + pod + ": the extender is shutting down";
      break;
    }
  }
  --held_binds_;
  publish_gauges();
  return out;
}

void GangCoordinator::bound(const BindPermit& permit, std::string_view uid, bool ok) {
  if (permit.group.empty() || !permit.error.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!ok) {
    tracker_.unplace(permit.group, uid);
    publish_room();
    return;
  }
  tracker_.bound(permit.group, uid);
  member_group_.erase(std::string(uid));
  if (auto s = tracker_.status(permit.group); s && s->complete && s->held == 0 && s->waiting == 0) {
    // Done: its members are bound, and later ones (beyond minMember) bind as any pod of a running group.
    if (metrics_) metrics_->observe_gang_bound(std::chrono::duration<double>(now() - s->admitted_at).count());
    tracker_.forget(permit.group);
  }
  publish_room();
}

void GangCoordinator::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  cv_.notify_all();
}

size_t GangCoordinator::held_binds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_binds_;
}

bool GangCoordinator::admitted(std::string_view group) const {
  std::lock_guard<std::mutex> lock(mu_);
  return tracker_.admitted(group);
}

}  // namespace kext
