#include "algorithms/gang/tracker.h"

#include <algorithm>
#include <utility>

namespace kext::gang {

void GangTracker::admit(const PodGroupSpec& group, std::vector<HeldMember> placed, Time now) {
  Group& g = groups_[group.key()];
  g.spec = group;
  if (g.held.empty() && g.waiting.empty() && g.bound.empty()) g.admitted_at = now;
  g.deadline = now + std::chrono::seconds(group.timeout_seconds());
  g.held = std::move(placed);
  std::erase_if(g.held, [&](const HeldMember& m) { return g.bound.count(m.pod->pod->uid) != 0; });
  backoff_until_.erase(group.key());
}

bool GangTracker::admitted(std::string_view group) const { return groups_.find(group) != groups_.end(); }

std::optional<std::string> GangTracker::placement(std::string_view group, std::string_view uid) const {
  auto it = groups_.find(group);
  if (it == groups_.end()) return std::nullopt;
  for (const HeldMember& m : it->second.held)
    if (m.pod->pod->uid == uid) return m.node;
  return std::nullopt;
}

void GangTracker::for_each_held(const std::function<void(const HeldMember&)>& fn) const {
  for (const auto& [key, g] : groups_)
    for (const HeldMember& m : g.held) fn(m);
}

PermitDecision GangTracker::permit(std::string_view group, std::string_view uid, Time now) {
  PermitDecision d;
  auto it = groups_.find(group);
  if (it == groups_.end()) {
    d.verdict = Verdict::kReject;
    d.reason = "pod group " + std::string(group) +
               (backing_off(group, now) ? " timed out and backs off" : " is not admitted");
    return d;
  }
  Group& g = it->second;
  if (g.complete) {
    d.verdict = Verdict::kRelease;
    d.release.emplace_back(uid);
    return d;
  }
  if (std::find(g.waiting.begin(), g.waiting.end(), uid) == g.waiting.end()) g.waiting.emplace_back(uid);
  if (g.waiting.size() + g.bound.size() < static_cast<size_t>(std::max(g.spec.min_member, 1))) return d;
  g.complete = true;
  d.verdict = Verdict::kRelease;
  d.release = std::move(g.waiting);
  g.waiting.clear();
  return d;
}

void GangTracker::bound(std::string_view group, std::string_view uid) {
  auto it = groups_.find(group);
  if (it == groups_.end()) return;
  Group& g = it->second;
  g.bound.emplace(uid);
  std::erase_if(g.held, [&](const HeldMember& m) { return m.pod->pod->uid == uid; });
  // minMember bound (bound elsewhere too: another replica's binds, seen through the watch) is complete.
  if (g.bound.size() >= static_cast<size_t>(std::max(g.spec.min_member, 1))) g.complete = true;
}

void GangTracker::unplace(std::string_view group, std::string_view uid) {
  auto it = groups_.find(group);
  if (it == groups_.end()) return;
  std::erase_if(it->second.held, [&](const HeldMember& m) { return m.pod->pod->uid == uid; });
}

std::optional<GroupStatus> GangTracker::status(std::string_view group) const {
  auto it = groups_.find(group);
  if (it == groups_.end()) return std::nullopt;
  const Group& g = it->second;
  return GroupStatus{g.complete, g.held.size(), g.waiting.size(), g.bound.size(),
                     g.deadline, g.admitted_at, g.spec.min_member};
}

Expired GangTracker::release(std::map<std::string, Group, std::less<>>::iterator it, std::string reason) {
  Expired e{it->first, std::move(it->second.waiting), std::move(reason)};
  groups_.erase(it);
  return e;
}

std::vector<Expired> GangTracker::expire(Time now) {
  std::vector<Expired> out;
  std::erase_if(backoff_until_, [&](const auto& b) { return b.second <= now; });
  for (auto it = groups_.begin(); it != groups_.end();) {
    auto next = std::next(it);
    const Group& g = it->second;
    if (!g.complete && g.deadline <= now) {
      const size_t arrived = g.waiting.size() + g.bound.size();
      const std::string reason = "pod group " + it->first + " timed out after " +
                                 std::to_string(g.spec.timeout_seconds()) + "s with " +
                                 std::to_string(arrived) + " of " + std::string(g.spec.min_field()) + " " +
                                 std::to_string(g.spec.min_member) + " members at bind";
      backoff_until_[it->first] = now + backoff_;
      out.push_back(release(it, reason));
    }
    it = next;
  }
  return out;
}

std::optional<Expired> GangTracker::forget(std::string_view group) {
  backoff_until_.erase(std::string(group));
  auto it = groups_.find(group);
  if (it == groups_.end()) return std::nullopt;
  return release(it, "pod group " + std::string(group) + " was deleted");
}

std::optional<Time> GangTracker::next_deadline() const {
  std::optional<Time> out;
  for (const auto& [key, g] : groups_)
    if (!g.complete && (!out || g.deadline < *out)) out = g.deadline;
  return out;
}

bool GangTracker::any_backing_off(Time now) const {
  return std::any_of(backoff_until_.begin(), backoff_until_.end(),
                     [now](const auto& b) { return now < b.second; });
}

bool GangTracker::backing_off(std::string_view group, Time now) const {
  auto it = backoff_until_.find(group);
  return it != backoff_until_.end() && now < it->second;
}

}  // namespace kext::gang
