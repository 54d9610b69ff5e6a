#include "algorithms/taints.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kext {
namespace taints_test {
namespace {

struct Case {
  std::string name;
  Toleration tol;
  Taint taint;
  bool want;
};

TEST(TolerationToleratesTaint, Table) {
  const Taint gpu{"dedicated", "gpu", "NoSchedule"};
  const std::vector<Case> cases = {
      {"exact Equal", {"dedicated", "Equal", "gpu", "NoSchedule"}, gpu, true},
      {"empty operator means Equal", {"dedicated", "", "gpu", "NoSchedule"}, gpu, true},
      {"Equal with another value", {"dedicated", "Equal", "cpu", "NoSchedule"}, gpu, false},
      {"Equal with empty value vs valued taint", {"dedicated", "Equal", "", "NoSchedule"}, gpu, false},
      {"Exists ignores value", {"dedicated", "Exists", "ignored", "NoSchedule"}, gpu, true},
      {"other key", {"other", "Exists", "", "NoSchedule"}, gpu, false},
      {"other effect", {"dedicated", "Equal", "gpu", "NoExecute"}, gpu, false},
      {"empty effect matches every effect", {"dedicated", "Equal", "gpu", ""}, gpu, true},
      {"empty effect matches PreferNoSchedule",
       {"spot", "Exists", "", ""},
       {"spot", "", "PreferNoSchedule"},
       true},
      {"empty key + Exists tolerates everything", {"", "Exists", "", ""}, gpu, true},
      {"empty key + Exists with effect",
       {"", "Exists", "", "NoExecute"},
       {"maint", "true", "NoExecute"},
       true},
      {"empty key + Exists with other effect", {"", "Exists", "", "NoExecute"}, gpu, false},
      // Validation forbids empty key with Equal, but ToleratesTaint would still compare values.
      {"empty key + Equal compares the value", {"", "Equal", "gpu", ""}, gpu, true},
      {"unknown operator tolerates nothing", {"dedicated", "Gt", "gpu", "NoSchedule"}, gpu, false},
      {"operator is case sensitive", {"dedicated", "exists", "", "NoSchedule"}, gpu, false},
      {"empty taint value matches empty Equal",
       {"k", "Equal", "", "NoSchedule"},
       {"k", "", "NoSchedule"},
       true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(toleration_tolerates_taint(c.tol, c.taint), c.want);
  }
}

// One taint of each effect.
const std::vector<Taint> kExample4Taints = {
    {"dedicated", "gpu", "NoSchedule"}, {"spot", "", "PreferNoSchedule"}, {"maint", "true", "NoExecute"}};
const std::vector<Toleration> kExample4Tolerations = {{"dedicated", "Equal", "gpu", "NoSchedule"},
                                                      {"", "Exists", "", "NoExecute"}};

TEST(FirstUntoleratedSchedulingTaint, Example4Passes) {
  EXPECT_EQ(first_untolerated_scheduling_taint(kExample4Taints, kExample4Tolerations), nullptr);
}

TEST(FirstUntoleratedSchedulingTaint, PreferNoScheduleIsIgnored) {
  EXPECT_EQ(first_untolerated_scheduling_taint(std::vector<Taint>{{"spot", "", "PreferNoSchedule"}}, {}),
            nullptr);
}

TEST(FirstUntoleratedSchedulingTaint, ReturnsTheFirstInNodeOrder) {
  std::vector<Taint> taints = {
      {"soft", "", "PreferNoSchedule"}, {"b", "2", "NoExecute"}, {"a", "1", "NoSchedule"}};
  const Taint* t = first_untolerated_scheduling_taint(taints, {});
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->key, "b");
  std::vector<Toleration> tol_b = {{"b", "Exists", "", ""}};
  t = first_untolerated_scheduling_taint(taints, tol_b);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->key, "a");
}

TEST(CountUntoleratedPreferNoSchedule, Example4CountsSpot) {
  // Neither toleration has an empty or PreferNoSchedule effect, so spot stays untolerated.
  EXPECT_EQ(count_untolerated_prefer_no_schedule(kExample4Taints, kExample4Tolerations), 1);
}

TEST(CountUntoleratedPreferNoSchedule, OnlyEmptyOrPreferEffectsCount) {
  std::vector<Taint> taints = {{"a", "", "PreferNoSchedule"},
                               {"b", "x", "PreferNoSchedule"},
                               {"c", "", "PreferNoSchedule"},
                               {"d", "", "NoSchedule"}};
  EXPECT_EQ(count_untolerated_prefer_no_schedule(taints, {}), 3);
  std::vector<Toleration> tols = {{"a", "Exists", "", ""},                  // empty effect: counts
                                  {"b", "Equal", "x", "PreferNoSchedule"},  // PNS effect: counts
                                  {"c", "Exists", "", "NoSchedule"}};       // wrong effect
  EXPECT_EQ(count_untolerated_prefer_no_schedule(taints, tols), 1);
  std::vector<Toleration> all = {{"", "Exists", "", ""}};
  EXPECT_EQ(count_untolerated_prefer_no_schedule(taints, all), 0);
}

}  // namespace
}  // namespace taints_test
}  // namespace kext
