#pragma once
// Gang scheduling's decisions for one scheduler, whoever drives it: the extender's verbs
// (extender/gang/coordinator.h, on the wall clock, behind a lock) and extender-sim's cycle
// (sim/core/cycle.h, on the virtual clock). Two points of a pod's cycle:
//   - filter (gate): a group's first member admits the whole group or none of it (admission.h) and
//     holds room for its members; an admitted member may go only to the node held for it; a pod of no
//     group sees the held room as taken (held_room);
//   - bind (permit): a member waits until minMember of its group have reached bind, then all go
//     (GangTracker).
// Groups are admitted one at a time, in a stable order: before a group is admitted, the waiting
// groups that go before it (higher priority, then older: admitted_before) are admitted if they fit,
// so that a group whose members reach filter more often cannot take the room of one that waits longer.
// Pure: the caller passes the time and the cluster. Not thread-safe.
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/gang/admission.h"
#include "algorithms/gang/pod_group.h"
#include "algorithms/gang/tracker.h"
#include "algorithms/model.h"
#include "algorithms/plugin.h"

namespace kext::gang {

// The PodGroups by "namespace/name".
using GroupMap = std::map<std::string, PodGroupSpec, std::less<>>;

// What a pod's filter may pass.
struct Gate {
  enum class Kind {
    kOrdinary,  // no group, or its group is complete or running: filter as any pod, in the room left
    kOnlyNode,  // an admitted member: only `node`, the one held for it
    kRefuse,    // no node: `reason`
  };
  Kind kind = Kind::kOrdinary;
  std::string group;        // "namespace/name"; empty for a pod of no group
  std::string node;         // kOnlyNode
  std::string reason;       // kOnlyNode: the other nodes' reason; kRefuse: every node's
  std::string state;        // the group's state, for decision logs ("" for a pod of no group)
  bool wants_room = false;  // kRefuse: the group has its members but no room (preemption may make it)
};

// A group's pods as the caller's cluster has them.
struct GroupMembers {
  // Not bound and not terminating, in a stable order (by name); the pod being filtered may be among
  // them or not (a watch that lags the scheduler).
  std::vector<std::shared_ptr<const Pod>> pending;
  size_t bound = 0;
  // The nodes of the bound members (a group that lost a member and is admitted again keeps to their
  // topology domain, as upstream's TopologyPlacement keeps recreated pods to the domain in use).
  std::vector<std::string> bound_nodes;
};
// The members of `group`; `like` is the group's pod filtered last, for a caller that keeps only some
// of its pods' fields (extender/gang/coordinator.cc member_like).
using MembersOf = std::function<GroupMembers(std::string_view group, const Pod& like)>;
// Every node of the cluster, in a stable order: asked for only when a group is to be admitted, not
// on the filters of members already admitted.
using NodesOf = std::function<std::vector<const NodeInfo*>()>;

// The room held for admitted members, by node name.
struct HeldRoom {
  std::map<std::string, std::vector<std::shared_ptr<const PodInfo>>, std::less<>> by_node;
  // Set by whoever publishes a copy of it: a different number whenever the room differs.
  uint64_t version = 0;
  bool empty() const { return by_node.empty(); }
};

// `nodes` with the held room counted: each node holding room for a member other than `except_uid` is
// replaced by a copy (in `copies`) with the held members added. `added`, if set, is told each member
// added and its node's index in `nodes`, for a caller that adds them to the PreFilter states too
// (sim/core/cycle.cc, as addNominatedPods does for nominated pods).
using HeldAdded = std::function<void(size_t node, const std::shared_ptr<const PodInfo>& member)>;
void apply_held_room(const HeldRoom& room, std::span<const NodeInfo*> nodes, std::deque<NodeInfo>& copies,
                     std::string_view except_uid, const HeldAdded& added = {});

// What a member's preemption may do (DefaultPreemption's PostFilter for a gang member).
struct GroupPreemption {
  enum class Kind {
    kOrdinary,  // no group, or its group is complete or running: preempt as any pod
    kNode,      // only on `node`, the one held for it, evicting `victims`
    kNone,      // no preemption: `reason`
  };
  Kind kind = Kind::kOrdinary;
  std::string group;
  std::string node;
  // kNode: the pods the group's admission evicts from `node` (every member's held there), as they
  // were then: the caller keeps those still running there.
  std::vector<std::shared_ptr<const PodInfo>> victims;
  std::string reason;
  std::string state;  // the group's state, for decision logs
};

// What happens to a group, for metrics and timelines. The observer is called while the group's status
// (Gatekeeper::status) still describes it: kComplete before the group is forgotten.
enum class GroupEvent { kAdmitted, kComplete, kTimedOut, kDeleted };
using GroupObserver = std::function<void(GroupEvent, const std::string& group, Time at)>;

// "1.5s": a duration as the reasons print it.
std::string seconds_text(Time t);

class Gatekeeper {
 public:
  Gatekeeper() : Gatekeeper(kDefaultGroupBackoff) {}
  explicit Gatekeeper(Time backoff) : tracker_(backoff) {}
  void set_observer(GroupObserver observer) { observer_ = std::move(observer); }
  // The topology levels, coarse to fine (node label keys: "block", "rack", "kubernetes.io/hostname"),
  // that a group's preferred constraint falls back through (topology.h admit_in_topology).
  void set_topology_levels(std::vector<std::string> levels) { levels_ = std::move(levels); }
  const std::vector<std::string>& topology_levels() const { return levels_; }

  // The filter's gate for `pod` at `now`: `groups` are the PodGroups, `cluster` what the engine's
  // PreFilters read (may be null). The caller has swept up to `now` (sweep), and answers the waiting
  // binds that returned.
  Gate gate(const Engine& engine, const Pod& pod, const GroupMap& groups, const MembersOf& members,
            const NodesOf& nodes, const ClusterView* cluster, Time now);
  // A member's preemption at `now` (whole-group preemption): a group not admitted is admitted with
  // the evictions its members' preemptions make (admission.h Evictions), or not at all; an admitted
  // member preempts only on the node held for it, for the victims planned there. The caller has
  // filtered `pod` (gate) and swept up to `now`.
  GroupPreemption preempt(const Engine& engine, const Pod& pod, const GroupMap& groups,
                          const MembersOf& members, const NodesOf& nodes, const ClusterView* cluster,
                          Time now, const Evictions& evictions);
  // The same for a member whose filter at `now` gave `gate`, with nothing changed since (the
  // simulator's cycle runs both; the extender's /preempt comes apart from its /filter).
  GroupPreemption preempt_after(const Engine& engine, const Pod& pod, Gate gate, const MembersOf& members,
                                const NodesOf& nodes, const ClusterView* cluster, Time now,
                                const Evictions& evictions);
  // The room held now; valid until the next call that changes it.
  const HeldRoom& held_room() const { return room_; }

  // Timeouts by `now`, and (with groups) the admitted groups whose PodGroup is gone: released, their
  // waiting binds returned.
  std::vector<Expired> sweep(Time now, const GroupMap* groups);
  // The group of an admitted member, or nullopt.
  std::optional<std::string> group_of(std::string_view uid) const;

  // Member `uid` of `group` reached bind (GangTracker::permit). A rejection for a group not admitted
  // is the caller's to overrule for a running group (minMember of its pods bound already), whose
  // later members bind as any pod.
  PermitDecision permit(std::string_view group, std::string_view uid, Time now);
  // How the member's Binding went after kRelease: bound, or not (its room is released).
  void bound(std::string_view group, std::string_view uid, Time now);
  void unplace(std::string_view group, std::string_view uid);
  // Held members the cluster shows bound (`is_bound`: bound by another replica, or a bound() the
  // caller never got to make) are bound here too, and their room is no longer held. Whether any was.
  bool settle(const std::function<bool(std::string_view uid)>& is_bound, Time now);
  // Where admission put member `uid` of `group` (GangTracker::placement).
  std::optional<std::string> placement(std::string_view group, std::string_view uid) const {
    return tracker_.placement(group, uid);
  }

  // The topology domain an admitted group was placed in ("rack r3"), or "" (no constraint).
  std::string domain_of(std::string_view group) const {
    auto it = domains_.find(group);
    return it == domains_.end() ? std::string() : it->second;
  }
  // Whether an admitted group's admission evicts pods (whole-group preemption).
  bool evicts(std::string_view group) const { return evictions_.find(group) != evictions_.end(); }
  std::optional<GroupStatus> status(std::string_view group) const { return tracker_.status(group); }
  bool admitted(std::string_view group) const { return tracker_.admitted(group); }
  std::optional<Time> next_deadline() const { return tracker_.next_deadline(); }
  size_t admitted_groups() const { return tracker_.admitted_groups(); }
  size_t waiting_groups() const { return waiting_.size(); }
  bool any_backing_off(Time now) const { return tracker_.any_backing_off(now); }

 private:
  struct Waiting {  // a group whose members reach filter and which is not admitted
    PodGroupSpec spec;
    std::shared_ptr<const Pod> pod;  // its member filtered last
    Time seen{};
  };
  // Tries to admit `w` with `pod` placed first, on the nodes as held room leaves them.
  bool try_admit(const Engine& engine, const Waiting& w, const GroupMembers& members,
                 std::span<const NodeInfo* const> nodes, const ClusterView* cluster, Time now,
                 std::string* reason, const Evictions* evictions = nullptr);
  // gate() for a member of an admitted group: only the node held for it, or as any pod once the
  // group is complete or for a member beyond those placed.
  void gate_admitted(Gate& g, const PodGroupSpec& spec, const GroupStatus& status, const Pod& pod,
                     Time now) const;
  // gate() for a group not admitted: whether it may try now; if not, `g` says why (running already,
  // backing off, or fewer pods than minMember).
  bool ready_to_admit(Gate& g, const PodGroupSpec& spec, const GroupMembers& mine, const Pod& pod,
                      Time now) const;
  // Admits, in their order, the waiting groups that go before `self` (admitted_before) and fit.
  void admit_waiting_ahead(const Engine& engine, const Waiting& self, const GroupMap& groups,
                           const MembersOf& members_of, std::span<const NodeInfo* const> all,
                           const ClusterView* cluster, Time now);
  void rebuild_room();
  // " in rack r3" for a group admitted in a topology domain, else "".
  std::string in_domain(std::string_view group) const;
  std::string eviction_summary(std::string_view group) const;
  // The waiting groups not filtered for a while have left the queue: they no longer go first.
  void forget_stale_waiting(Time now);
  void notify(GroupEvent e, const std::string& group, Time at) const {
    if (observer_) observer_(e, group, at);
  }

  GangTracker tracker_;
  HeldRoom room_;
  std::map<std::string, std::string, std::less<>> member_group_;  // uid -> group, for admitted members
  std::map<std::string, Waiting, std::less<>> waiting_;
  // Admitted groups' evictions: group -> node -> victims (while the group is admitted).
  std::map<std::string, std::map<std::string, std::vector<std::shared_ptr<const PodInfo>>, std::less<>>,
           std::less<>>
      evictions_;
  std::map<std::string, std::string, std::less<>> domains_;  // admitted group -> its domain, if any
  GroupObserver observer_;
  std::vector<std::string> levels_;
};

}  // namespace kext::gang
