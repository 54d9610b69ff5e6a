#pragma once
// Gang scheduling in the extender: one admission and one permit for every pod group, whatever scheduler
// sends the pods. kube-scheduler has no Permit for an extender, so the two run where an extender can:
//   - filter: a group's first member filtered admits the whole group or none of it
//     (algorithms/gang/admission.h) and holds room for its members; a member admitted is filtered to
//     the node held for it, every other pod's filter sees the held room as taken;
//   - bind: a member's bind is held until minMember of its group have reached bind, then all of them
//     are bound (scheduler-plugins pkg/coscheduling/coscheduling.go Permit). A hold is bounded below
//     the scheduler's httpTimeout: a member not released by then gets an Error, goes back to the
//     scheduler's queue, and comes back to the node still held for it until the group's timeout.
// The decisions are GangTracker's (algorithms/gang/tracker.h); this class adds the lock, the clock,
// the waiting threads and the cluster state. Thread-safe.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/gang/tracker.h"
#include "extender/observe/metrics.h"
#include "extender/state/cluster_state.h"

namespace kext {

struct GangConfig {
  // How long a member's bind is held for the rest of its group before it is answered with an Error.
  // Below the scheduler's extender httpTimeout (5 s in manifests/base/scheduler-config.yaml; unset, it
  // is 5 s too: pkg/scheduler/extender.go DefaultExtenderTimeout), so that the scheduler never gives up
  // on a bind the extender still holds.
  std::chrono::milliseconds max_hold = std::chrono::seconds(4);
  gang::Time backoff = gang::kDefaultGroupBackoff;
  // Binds held at once; more are answered at once with an Error, so that holding never takes every
  // worker thread (the server's default is half of --threads).
  size_t max_held_binds = 8;
};

// What a pod's filter may pass.
struct GangGate {
  enum class Kind {
    kOrdinary,  // no group, or its group is complete or running: filter as any pod
    kOnlyNode,  // an admitted member: only `node`, the one held for it
    kRefuse,    // no node: `reason`
  };
  Kind kind = Kind::kOrdinary;
  std::string group;   // "namespace/name"; empty for a pod of no group
  std::string node;    // kOnlyNode
  std::string reason;  // kOnlyNode: the other nodes' reason; kRefuse: every node's
  std::string state;   // the group's state for the decision log ("" for a pod of no group)
};

// The room held for admitted members, by node name.
struct HeldRoom {
  std::map<std::string, std::vector<std::shared_ptr<const PodInfo>>, std::less<>> by_node;
  bool empty() const { return by_node.empty(); }
};

// `nodes` with the held room counted: each node holding room for a member other than `except_uid` is
// replaced by a copy (in `copies`) with the held members added.
void apply_held_room(const HeldRoom& room, std::span<const NodeInfo*> nodes, std::deque<NodeInfo>& copies,
                     std::string_view except_uid);

// What a member's bind may do.
struct BindPermit {
  std::string group;  // empty: not a gang member, bind as any pod
  std::string error;  // non-empty: answer the bind with it, create no Binding
};

class GangCoordinator {
 public:
  // engine and store (what binds read the PodGroups and pods from) must outlive the coordinator;
  // metrics may be null.
  GangCoordinator(const Engine& engine, const StateStore& store, GangConfig config = {},
                  Metrics* metrics = nullptr);
  ~GangCoordinator() { stop(); }

  // The filter's gate for `pod` against `state` (cluster: what the engine's PreFilters read, may be null).
  GangGate gate(const Pod& pod, const ClusterState& state, const ClusterView* cluster);
  // The room held now: what every other pod's filter must see as taken. Never null. A group whose
  // timeout has passed holds none, whether or not a request has noticed it since.
  std::shared_ptr<const HeldRoom> held_room();

  // Member `uid` reached bind for `node`: returns at once for a pod of no group or of a running group,
  // and when the group completes with it; otherwise blocks until the group completes (the bind goes),
  // times out, or GangConfig::max_hold passes (an Error either way). After a permit with a group and no
  // error, bound() says how the Binding went.
  BindPermit permit(std::string_view uid, std::string_view namespace_, std::string_view name);
  void bound(const BindPermit& permit, std::string_view uid, bool ok);

  // Shutting down: every held bind is answered at once, and no more are held.
  void stop();

  size_t held_binds() const;
  bool admitted(std::string_view group) const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Waiting {  // a group whose members reach filter and which is not admitted
    gang::PodGroupSpec spec;
    std::shared_ptr<const Pod> pod;  // its last member filtered: the others' constraints
    gang::Time seen{};
  };
  struct Members {
    std::vector<std::shared_ptr<const PodInfo>> pending;  // not bound, by name
    size_t bound = 0;
  };

  gang::Time now() const;
  // Timeouts and deleted PodGroups: waiting binds answered, room released (mu_ held).
  void sweep(gang::Time now, const ClusterState* state);
  void reject(const gang::Expired& e);
  void publish_room();
  void publish_gauges();
  // Tries to admit `w` on the nodes as held room leaves them; true when admitted (mu_ held).
  bool try_admit(const Waiting& w, const Members& members, const ClusterState& state,
                 const ClusterView* cluster, gang::Time now, std::string* reason);
  static std::map<std::string, Members, std::less<>> scan_members(const ClusterState& state);

  const Engine& engine_;
  const StateStore& store_;
  GangConfig config_;
  Metrics* metrics_;
  const Clock::time_point epoch_ = Clock::now();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  gang::GangTracker tracker_;
  std::map<std::string, std::string, std::less<>> member_group_;  // uid -> group, for admitted members
  std::set<std::string, std::less<>> released_;                   // held binds that may go
  std::map<std::string, std::string, std::less<>> rejected_;      // held binds answered with an Error
  std::map<std::string, Waiting, std::less<>> waiting_;
  size_t held_binds_ = 0;
  bool stopped_ = false;
  std::atomic<std::shared_ptr<const HeldRoom>> room_{std::make_shared<const HeldRoom>()};
  std::atomic<int64_t> next_deadline_ms_{INT64_MAX};  // the earliest timeout of an admitted group
};

}  // namespace kext
