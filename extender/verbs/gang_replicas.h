#pragma once
// Gang scheduling with several replicas (--leader-elect): the Lease holder decides every gang member's
// filter and preemption, as it makes every bind (bind_forward.h), so that a group is admitted in one
// place and its room held there once. The other replicas pass those requests on, and count the room the
// holder holds in the filters of the other pods they answer: a thread of their own asks the holder for it
// (kHolderGangRoomRoute) every kRoomRefresh, and is sent only what changed since, so that no filter
// waits on the holder.
//
// A copy lags the holder by up to kRoomRefresh: a pod filtered on another replica in that time may be
// offered a node whose room the holder has just taken for a group. Its bind reaches the holder, which
// refuses a pod that fits there only in the held room (GangCoordinator::check_bind), and the scheduler
// tries it again; so held room is never given to another pod, whichever replica filters it.
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "extender/gang/coordinator.h"
#include "kube/client/leader_election.h"
#include "kube/state/cluster_state.h"
#include "extender/verbs/bind_forward.h"
#include "extender/verbs/preamble.h"
#include "extender/verbs/verbs.h"

namespace kext {

// How often a replica not holding the Lease asks the holder for its room: one small request (~60 bytes
// each way while the room is unchanged) per replica and period.
inline constexpr std::chrono::milliseconds kRoomRefresh{100};
// A copy the holder could not be asked about for this long is dropped: the holder it came from is
// gone, and its successor admits the groups again (GangCoordinator::admit_at_bind).
inline constexpr std::chrono::milliseconds kRoomKeep{2000};

// The held room as the holder sends it: member UIDs by node (each replica has the members themselves in
// its own cluster state), and the holder's HeldRoom::version with the holder's identity.
struct SharedRoom {
  std::string holder;
  uint64_t version = 0;
  std::map<std::string, std::vector<std::string>, std::less<>> uids_by_node;
};
// {"Holder":h,"Version":v,"Nodes":{"node":["uid",...]}}; with `unchanged`, no Nodes.
std::string encode_shared_room(const std::string& holder, const HeldRoom& room, bool unchanged);
// What encode_shared_room wrote; `unchanged` is set when it has no Nodes. Throws DecodeError.
SharedRoom decode_shared_room(std::string_view body, bool* unchanged);

// GangReplicas (verbs.h) through the Lease and the bind forwarder.
class LeaseGangReplicas final : public GangReplicas {
 public:
  // All three must outlive this.
  LeaseGangReplicas(const kube::LeaderElector& elector, const BindForwarder& forwarder,
                    GangCoordinator& gangs);
  ~LeaseGangReplicas() override;

  bool holds() const override { return elector_.is_leader(); }
  const std::string& identity() const override { return elector_.identity(); }
  std::optional<Reply> forward(std::string_view route, std::string_view body, const std::string& what,
                               std::string_view verb) const override {
    return forwarder_.forward(route, body, what, verb);
  }

  // kHolderGangRoomRoute: the room held here, to a replica that has version {"Holder":h,"Since":v} of
  // it (only the version when that is still current); kNotHolderStatus on a replica not holding the
  // Lease, whose room decides nothing.
  Reply serve_room(std::string_view body) const override;

  // On a replica not holding the Lease: the room the holder holds, its members as `state` has them (a
  // member `state` does not have yet, or shows bound, is not counted). Never null.
  std::shared_ptr<const HeldRoom> holder_room(
      const std::shared_ptr<const ClusterState>& state) const override;

 private:
  using Clock = std::chrono::steady_clock;
  void run();      // the thread: refresh() every kRoomRefresh while this replica does not hold the Lease
  void refresh();  // asks the holder once

  const kube::LeaderElector& elector_;
  const BindForwarder& forwarder_;
  GangCoordinator& gangs_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  Clock::time_point answered_at_{};  // the last time the holder answered
  SharedRoom copy_;
  mutable std::shared_ptr<const ClusterState> resolved_for_;
  mutable uint64_t resolved_version_ = 0;
  mutable std::string resolved_holder_;
  mutable std::shared_ptr<const HeldRoom> resolved_ = std::make_shared<const HeldRoom>();
  std::thread thread_;  // last: started once the rest is
};

}  // namespace kext
