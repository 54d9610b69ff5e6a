// The gang tracker (algorithms/gang/tracker.h): binds held until min members arrive, room held until
// bound, time running out, backoff.
#include "algorithms/gang/tracker.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext::gang {
namespace tracker_test {
namespace {

using std::chrono::seconds;
using Uids = std::vector<std::string>;

PodGroupSpec group(int32_t min_member, int32_t timeout_seconds = 30) {
  PodGroupSpec g;
  g.namespace_ = "train";
  g.name = "g";
  g.min_member = min_member;
  g.schedule_timeout_seconds = timeout_seconds;
  return g;
}

// Members named by their UIDs, placed on n0, n1, ...
std::vector<HeldMember> placed(const Uids& uids) {
  std::vector<HeldMember> out;
  for (size_t i = 0; i < uids.size(); ++i) {
    Pod p = testing::make_pod(uids[i], 1000, 0);
    p.uid = uids[i];
    out.push_back({std::make_shared<const PodInfo>(make_pod_info(std::make_shared<const Pod>(std::move(p)))),
                   "n" + std::to_string(i)});
  }
  return out;
}

Uids held(const GangTracker& t) {
  Uids out;
  t.for_each_held([&](const HeldMember& m) { out.push_back(m.pod->pod->uid + "@" + m.node); });
  return out;
}

struct Step {
  std::string uid;
  Verdict verdict;
  Uids release;
};

struct PermitCase {
  std::string name;
  int32_t min_member;
  Uids bound_before;  // members already bound when the binds arrive
  std::vector<Step> steps;
};

class GangPermit : public ::testing::TestWithParam<PermitCase> {};

TEST_P(GangPermit, HoldsBindsUntilMinMemberArrive) {
  const PermitCase& c = GetParam();
  GangTracker t;
  t.admit(group(c.min_member), placed({"a", "b", "c"}), Time(0));
  for (const std::string& uid : c.bound_before) t.bound("train/g", uid);
  for (const Step& s : c.steps) {
    const PermitDecision d = t.permit("train/g", s.uid, seconds(1));
    EXPECT_EQ(d.verdict, s.verdict) << s.uid;
    EXPECT_EQ(d.release, s.release) << s.uid;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GangPermit,
    ::testing::Values(PermitCase{"AllTogether",
                                 3,
                                 {},
                                 {{"a", Verdict::kWait, {}},
                                  {"b", Verdict::kWait, {}},
                                  {"c", Verdict::kRelease, {"a", "b", "c"}}}},
                      PermitCase{"OutOfOrderAndBeyondMin",
                                 2,
                                 {},
                                 {{"c", Verdict::kWait, {}},
                                  {"a", Verdict::kRelease, {"c", "a"}},
                                  {"b", Verdict::kRelease, {"b"}}}},
                      PermitCase{"BoundMembersCount", 3, {"a", "b"}, {{"c", Verdict::kRelease, {"c"}}}},
                      PermitCase{"ARetriedBindCountsOnce",
                                 2,
                                 {},
                                 {{"a", Verdict::kWait, {}},
                                  {"a", Verdict::kWait, {}},
                                  {"b", Verdict::kRelease, {"a", "b"}}}},
                      PermitCase{"AMemberAdmissionDidNotPlaceCounts",
                                 2,
                                 {},
                                 {{"z", Verdict::kWait, {}}, {"a", Verdict::kRelease, {"z", "a"}}}},
                      PermitCase{"MinMemberOne", 1, {}, {{"b", Verdict::kRelease, {"b"}}}}),
    [](const auto& info) { return info.param.name; });

TEST(GangTracker, HoldsRoomUntilEachMemberBinds) {
  GangTracker t;
  t.admit(group(3), placed({"a", "b", "c"}), Time(0));
  EXPECT_TRUE(t.admitted("train/g"));
  EXPECT_EQ(t.placement("train/g", "b"), "n1");
  EXPECT_EQ(t.placement("train/g", "z"), std::nullopt);
  EXPECT_EQ(t.placement("train/other", "b"), std::nullopt);
  EXPECT_EQ(held(t), (Uids{"a@n0", "b@n1", "c@n2"}));
  EXPECT_EQ(t.next_deadline(), seconds(30));
  for (const char* uid : {"a", "b", "c"}) t.permit("train/g", uid, seconds(1));
  EXPECT_EQ(t.next_deadline(), std::nullopt) << "a complete group no longer times out";
  t.bound("train/g", "a");
  t.bound("train/g", "c");
  EXPECT_EQ(held(t), (Uids{"b@n1"}));
  EXPECT_TRUE(t.expire(seconds(100)).empty());
  EXPECT_TRUE(t.admitted("train/g"));
}

TEST(GangTracker, TimeoutRejectsTheWaitingReleasesTheRoomAndBacksOff) {
  GangTracker t(seconds(10));
  t.admit(group(3, 30), placed({"a", "b", "c"}), Time(0));
  t.bound("train/g", "a");
  EXPECT_EQ(t.permit("train/g", "b", seconds(5)).verdict, Verdict::kWait);
  EXPECT_TRUE(t.expire(seconds(29)).empty());
  const std::vector<Expired> gone = t.expire(seconds(30));
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].group, "train/g");
  EXPECT_EQ(gone[0].rejected, (Uids{"b"}));
  EXPECT_EQ(gone[0].reason, "pod group train/g timed out after 30s with 2 of minMember 3 members at bind");
  EXPECT_TRUE(held(t).empty()) << "the room is released";
  EXPECT_FALSE(t.admitted("train/g"));
  EXPECT_TRUE(t.backing_off("train/g", seconds(39)));
  EXPECT_FALSE(t.backing_off("train/g", seconds(40)));
  const PermitDecision late = t.permit("train/g", "c", seconds(31));
  EXPECT_EQ(late.verdict, Verdict::kReject);
  EXPECT_EQ(late.reason, "pod group train/g timed out and backs off");
  // Admitted again after its backoff: a new deadline from then.
  t.admit(group(3, 30), placed({"b", "c"}), seconds(41));
  EXPECT_FALSE(t.backing_off("train/g", seconds(41)));
  EXPECT_EQ(t.next_deadline(), seconds(71));
}

TEST(GangTracker, ADeletedGroupRejectsItsWaitingBindsWithoutBackoff) {
  GangTracker t;
  t.admit(group(3), placed({"a", "b", "c"}), Time(0));
  t.permit("train/g", "a", seconds(1));
  const auto gone = t.forget("train/g");
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(gone->rejected, (Uids{"a"}));
  EXPECT_EQ(gone->reason, "pod group train/g was deleted");
  EXPECT_FALSE(t.backing_off("train/g", seconds(1)));
  EXPECT_TRUE(held(t).empty());
  EXPECT_FALSE(t.forget("train/g").has_value());
  const PermitDecision d = t.permit("train/g", "b", seconds(2));
  EXPECT_EQ(d.verdict, Verdict::kReject);
  EXPECT_EQ(d.reason, "pod group train/g is not admitted");
}

TEST(GangTracker, GroupsTimeOutIndependently) {
  GangTracker t;
  PodGroupSpec slow = group(2, 60), fast = group(2, 10);
  fast.name = "fast";
  t.admit(slow, placed({"s1", "s2"}), Time(0));
  t.admit(fast, placed({"f1", "f2"}), Time(0));
  EXPECT_EQ(t.next_deadline(), seconds(10));
  const auto gone = t.expire(seconds(10));
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].group, "train/fast");
  EXPECT_EQ(held(t), (Uids{"s1@n0", "s2@n1"}));
  EXPECT_EQ(t.next_deadline(), seconds(60));
}

// A member counts as arrived from its first bind until its group completes, however often it comes
// back (its caller answered the scheduler meanwhile); a failed bind gives its room back; status says
// where the group stands.
TEST(GangTracker, ArrivalsStayUnplaceAndStatus) {
  GangTracker t;
  EXPECT_FALSE(t.status("train/g"));
  t.admit(group(3), placed({"a", "b", "c"}), Time(1000));
  EXPECT_EQ(t.permit("train/g", "a", Time(1100)).verdict, Verdict::kWait);
  EXPECT_EQ(t.permit("train/g", "b", Time(1200)).verdict, Verdict::kWait);
  EXPECT_EQ(t.permit("train/g", "a", Time(9000)).verdict, Verdict::kWait) << "a again: still 2 of 3";
  auto s = t.status("train/g");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->waiting, 2u);
  EXPECT_EQ(s->held, 3u);
  EXPECT_EQ(s->min_member, 3);
  EXPECT_EQ(s->admitted_at, Time(1000));
  EXPECT_EQ(s->deadline, Time(31'000));
  EXPECT_FALSE(s->complete);
  PermitDecision d = t.permit("train/g", "c", Time(20'000));
  EXPECT_EQ(d.verdict, Verdict::kRelease);
  EXPECT_EQ(d.release, (Uids{"a", "b", "c"}));
  t.unplace("train/g", "b");
  t.bound("train/g", "c");
  EXPECT_EQ(held(t), (Uids{"a@n0"}));
  s = t.status("train/g");
  EXPECT_TRUE(s->complete);
  EXPECT_EQ(s->bound, 1u);
  EXPECT_EQ(s->held, 1u);
}

}  // namespace
}  // namespace tracker_test
}  // namespace kext::gang
