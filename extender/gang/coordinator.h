#pragma once
// Gang scheduling in the extender: algorithms/gang/gatekeeper.h's decisions at the verbs, on the wall
// clock. kube-scheduler has no Permit for an extender, so the two halves run where an extender can:
//   - filter: the gate (a group admitted whole or not at all; a member filtered to the node held for
//     it; every other pod's filter seeing the held room as taken);
//   - bind: a member that reaches bind waits there until minMember of its group have reached bind,
//     then all of them are bound (scheduler-plugins pkg/coscheduling/coscheduling.go Permit, where a
//     pod waits at Permit until its group is complete or times out). Its HTTP call is held only below
//     the scheduler's httpTimeout and only while a worker is free for it; when the call must be
//     answered first, the member still counts as arrived, and the bind that completes its group
//     binds it too (BindPermit::detached). So a group completes once each member has reached bind
//     once within the group's timeout, however far apart kube-scheduler's backoff (1 s doubling to
//     10 s: pkg/scheduler/internal/queue/scheduling_queue.go) brings them.
// This class adds the lock, the clock, the held binds' threads and the cluster state. Thread-safe.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/gang/gatekeeper.h"
#include "extender/observe/metrics.h"
#include "kube/state/cluster_state.h"
#include "kube/state/cluster_view.h"

namespace kext {

using gang::apply_held_room;
using gang::HeldRoom;
using GangGate = gang::Gate;

struct GangConfig {
  // How long a member's bind call is held for the rest of its group before it is answered with an
  // Error (the member stays arrived, and is bound when its group completes). Below the scheduler's extender
  // httpTimeout (5 s in manifests/base/scheduler-config.yaml; unset, it is 5 s too: pkg/scheduler/extender.go
  // DefaultExtenderTimeout), so that the scheduler never gives up on a bind the extender still holds.
  std::chrono::milliseconds max_hold = std::chrono::seconds(4);
  gang::Time backoff = gang::kDefaultGroupBackoff;
  // Bind calls held at once; more are answered at once with an Error (the member stays arrived), so
  // that holding never takes every worker thread (the server's default is half of --threads).
  size_t max_held_binds = 8;
  // The topology levels, coarse to fine, that a group's preferred topology falls back through
  // (gang::Gatekeeper::set_topology_levels): the configuration's (Profile::topology_levels).
  std::vector<std::string> topology_levels{};
};

// A member that reached bind and whose call was answered before its group completed: the bind that
// completes the group makes its Binding (to the node held for it).
struct MemberBind {
  std::string uid;
  std::string namespace_;
  std::string name;
  std::string node;
};

// What a member's bind may do.
struct BindPermit {
  std::string group;  // empty: not a gang member, bind as any pod
  std::string error;  // non-empty: answer the bind with it, create no Binding
  // The group completed with this bind: these members' Bindings are the caller's to make too, each
  // followed by bound() (their own calls were answered before).
  std::vector<MemberBind> detached;
};

class GangCoordinator {
 public:
  // The time that group timeouts, backoffs and held binds run on, since any fixed instant: by default
  // steady_clock's since the coordinator started. A test passes its own and advances it instead of
  // sleeping.
  using Clock = std::function<gang::Time()>;

  // engine and store (what binds read the PodGroups and pods from) must outlive the coordinator;
  // metrics may be null.
  GangCoordinator(const Engine& engine, const StateStore& store, GangConfig config = {},
                  Metrics* metrics = nullptr, Clock clock = {});
  ~GangCoordinator() { stop(); }

  // The filter's gate for `pod` against `state` (cluster: what the engine's PreFilters read, may be null).
  GangGate gate(const Pod& pod, const ClusterState& state, const ClusterView* cluster);
  // A member's preemption for `pod` against `state` (whole-group preemption: Gatekeeper::preempt).
  gang::GroupPreemption preempt(const Pod& pod, const ClusterState& state, const ClusterView* cluster,
                                const gang::Evictions& evictions);
  // The room held now: what every other pod's filter must see as taken. Never null. A group whose
  // timeout has passed holds none, whether or not a request has noticed it since; with `state`, nor
  // do members it shows bound, nor groups it no longer has.
  std::shared_ptr<const HeldRoom> held_room(const ClusterState* state = nullptr);

  // Member `uid` reached bind: returns at once for a pod of no group or of a running group, and when
  // the group completes with it; otherwise blocks until the group completes (the bind goes), times
  // out, or GangConfig::max_hold passes (an Error either way; the member stays arrived until its
  // group completes or times out). After a permit with a group and no error, bound() says how the
  // Binding went, for this member and each of `detached`. `node` is where the scheduler binds it: a
  // member held on another node is refused, whatever its group's state (empty: not checked).
  BindPermit permit(std::string_view uid, std::string_view namespace_, std::string_view name,
                    std::string_view node = {});
  void bound(const BindPermit& permit, std::string_view uid, bool ok);
  // The members waiting for their group whose bind calls were answered (none hold a worker).
  size_t detached_members() const;
  // The bind of pod `uid` (ns/name), with no group to wait for (permit gave no group), to `node`: why
  // it must not go ("" if it may). It must not when the pod fits `node` only in room held for another
  // group's members: filtered where that room was not yet seen (before the group was admitted, or on
  // a replica whose copy of the Lease holder's room lagged: extender/verbs/gang_replicas.h). Each filter is
  // asked on its own, with and without the held room: one that fails the pod either way (Insufficient
  // cpu beyond the node's size, or a taint, since the cache keeps no pod's tolerations) is not the
  // room's doing, and the pod is left to bind as it would.
  //
  // A bind it lets go counts as taking its room on `node` in every admission until bind_ended: the
  // cache counts the pod there only once its Binding is sent, and an admission on a state taken before
  // that would give the same room to a member (seen against the real scheduler with two replicas: a
  // group admitted onto a node a pod was being bound to, its member then unschedulable there).
  std::string check_bind(std::string_view uid, std::string_view namespace_, std::string_view name,
                         std::string_view node);
  // The bind check_bind let go has ended, made or failed: its room is the cache's to count again.
  void bind_ended(std::string_view uid);

  // Shutting down: every held bind is answered at once, and no more are held.
  void stop();

  const StateStore& store() const { return store_; }
  size_t held_binds() const;  // binds held and not yet let go
  bool admitted(std::string_view group) const;

 private:
  gang::Time now() const { return clock_(); }
  // Timeouts and deleted PodGroups: waiting binds answered, room released (mu_ held).
  void sweep(gang::Time now, const ClusterState* state);
  void publish();  // the room and the gauges, after a change (mu_ held)
  // A bind of a group this replica did not admit (with several replicas, the scheduler may filter on
  // one and every bind reaches the Lease holder): the group is admitted here now, as a filter of the
  // binding member would, so that holding stays in the one place binds are made (mu_ held).
  void admit_at_bind(std::string_view uid, const std::shared_ptr<const ClusterState>& state, gang::Time t);
  void observe(gang::GroupEvent e, const std::string& group, gang::Time at);
  // check_bind's verdict on `room`: why the bind must not go, or "".
  std::string bind_refusal(std::string_view uid, std::string_view namespace_, std::string_view name,
                           std::string_view node, const ClusterState& state, const HeldRoom& room);
  // What one request's admissions read their nodes from, kept alive while it runs: the newest state,
  // and the copies of its nodes with binds in flight added.
  struct AdmissionNodes {
    std::shared_ptr<const ClusterState> live;
    std::deque<NodeInfo> copies;
  };
  // Every node for an admission, from the newest state (taken once per request), not the request's: a
  // bind made since the request's state was taken counts there, and a bind check_bind let go that the
  // newest state does not show yet is added to its node (mu_ held).
  std::vector<const NodeInfo*> admission_nodes(AdmissionNodes& from) const;
  // The group completed with `uid`'s bind: the held calls of `members` are let go to make their own
  // Bindings; the members whose calls were answered are returned, for `uid`'s caller to bind (mu_ held).
  std::vector<MemberBind> release(const std::string& group, std::string_view uid,
                                  const std::vector<std::string>& members);
  // Holds `uid`'s bind call until its group completes or times out, the extender stops, or
  // GangConfig::max_hold passes: "" to bind, else the Error to answer (mu_ held through `lock`).
  std::string hold(std::unique_lock<std::mutex>& lock, const std::string& group, std::string_view uid,
                   const std::string& pod, gang::Time t);

  const Engine& engine_;
  const StateStore& store_;
  GangConfig config_;
  Metrics* metrics_;
  const Clock clock_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  gang::Gatekeeper gates_;
  std::set<std::string, std::less<>> released_;               // held binds that may go
  std::map<std::string, std::string, std::less<>> rejected_;  // held binds answered with an Error
  // Every member waiting at bind for its group, by UID, whether or not its call is still held.
  std::map<std::string, MemberBind, std::less<>> arrived_;
  // The binds held now: a bind leaves it when it is let go (released or rejected), before its thread
  // wakes, so that kube_extender_gang_held_binds never counts a bind already on its way out (what
  // extender-sim --extender waits on to know every bind it sent is answered or held).
  std::set<std::string, std::less<>> holding_;
  bool stopped_ = false;
  // Binds of pods of no group that check_bind let go, by UID, until bind_ended: the node, and the pod
  // as the state had it.
  struct InFlight {
    std::string node;
    std::shared_ptr<const PodInfo> pod;
  };
  std::map<std::string, InFlight, std::less<>> binding_;
  std::atomic<std::shared_ptr<const HeldRoom>> room_{std::make_shared<const HeldRoom>()};
  std::atomic<int64_t> next_deadline_ms_{INT64_MAX};  // the earliest timeout of an admitted group
  uint64_t room_version_ = 0;                         // the last HeldRoom::version published (mu_)
};

}  // namespace kext
