#pragma once
// The gangs between admission and bind: their room held, their members' binds held until enough of
// them have arrived (Coscheduling's Permit: scheduler-plugins pkg/coscheduling/coscheduling.go), and
// their time running out. Pure: the caller passes the time, and turns the decisions into HTTP
// answers (the extender's bind verb) or simulated events (extender-sim). One decider owns a tracker;
// it is not thread-safe.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/gang/pod_group.h"
#include "algorithms/model.h"

namespace kext::gang {

using Time = std::chrono::milliseconds;  // since any fixed instant the caller chooses

// How long a group that timed out waits before it may be admitted again, unless the caller says
// otherwise: long enough for its members to go back to the scheduler's queue and for other pods to
// use the room it released. Coscheduling's podGroupBackoffSeconds defaults to 0 (none), which lets
// a group that cannot complete take the room again at once.
inline constexpr Time kDefaultGroupBackoff = std::chrono::seconds(10);

// One member placed at admission: the room it holds until it binds.
struct HeldMember {
  std::shared_ptr<const PodInfo> pod;
  std::string node;
};

enum class Verdict {
  kWait,     // hold this bind
  kRelease,  // bind `release` now: this member and every one waiting
  kReject,   // answer this bind with `reason`
};

struct PermitDecision {
  Verdict verdict = Verdict::kWait;
  std::vector<std::string> release;  // kRelease: the members' UIDs, in arrival order
  std::string reason;                // kReject
};

// A group whose time ran out: its waiting binds are rejected with `reason`.
struct Expired {
  std::string group;
  std::vector<std::string> rejected;  // UIDs of the members that were waiting, in arrival order
  std::string reason;
};

struct GroupStatus {
  bool complete = false;  // min_member reached bind together
  size_t held = 0;        // members placed and not yet bound
  size_t waiting = 0;     // binds held
  size_t bound = 0;
  Time deadline{};
  Time admitted_at{};
  int32_t min_member = 0;
};

class GangTracker {
 public:
  explicit GangTracker(Time backoff = kDefaultGroupBackoff) : backoff_(backoff) {}

  // Admission's placements held from `now` until each member binds, or the group's timeout.
  // Re-admitting a group that is still admitted replaces its placements (its waiting binds stay).
  void admit(const PodGroupSpec& group, std::vector<HeldMember> placed, Time now);
  bool admitted(std::string_view group) const;
  // Where admission put member `uid`: its node, or nullopt (not admitted, or not one it placed).
  std::optional<std::string> placement(std::string_view group, std::string_view uid) const;
  // Every member held and not yet bound, with its node: the room other pods' filters must not take.
  void for_each_held(const std::function<void(const HeldMember&)>& fn) const;

  // Member `uid` of `group` reached bind at `now`. Held (kWait) until min_member of the group have
  // reached bind or are bound, then every waiting member is released at once (kRelease); a member of
  // a group already complete is released alone. Rejected when the group is not admitted. A member
  // counts as arrived from its first permit until its group completes or is released, as a pod waits
  // at Permit in Coscheduling: however its caller answered the scheduler meanwhile, and however often
  // it comes back.
  PermitDecision permit(std::string_view group, std::string_view uid, Time now);
  // The member's bind succeeded: its room is now its own, no longer held. minMember bound complete
  // the group, however they got there.
  void bound(std::string_view group, std::string_view uid);
  // The member's bind, released, failed: its room is no longer held (it comes back through filter).
  void unplace(std::string_view group, std::string_view uid);
  // Where the group stands, or nullopt when it is not admitted.
  std::optional<GroupStatus> status(std::string_view group) const;
  // The groups whose timeout passed by `now`, each released (room and waiting binds) and backing off.
  std::vector<Expired> expire(Time now);
  // The group's PodGroup is gone: as a timeout, without backoff. Returns the waiting binds to reject.
  std::optional<Expired> forget(std::string_view group);
  // The earliest timeout of an admitted group, for the caller's timer.
  std::optional<Time> next_deadline() const;
  // Whether the group timed out less than the backoff ago (it is not admitted again until then).
  bool backing_off(std::string_view group, Time now) const;
  // Whether any group is backing off at `now`.
  bool any_backing_off(Time now) const;

  size_t admitted_groups() const { return groups_.size(); }

 private:
  struct Group {
    PodGroupSpec spec;
    Time deadline{};
    Time admitted_at{};
    std::vector<HeldMember> held;      // placed and not yet bound
    std::vector<std::string> waiting;  // binds held, in arrival order
    std::set<std::string, std::less<>> bound;
    bool complete = false;  // min_member reached bind together: later ones pass
  };
  Expired release(std::map<std::string, Group, std::less<>>::iterator it, std::string reason);

  Time backoff_;
  std::map<std::string, Group, std::less<>> groups_;        // admitted, by key
  std::map<std::string, Time, std::less<>> backoff_until_;  // timed out, by key
};

}  // namespace kext::gang
