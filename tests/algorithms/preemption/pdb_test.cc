#include "algorithms/preemption/pdb.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext::preemption {
namespace pdb_test {
namespace {

std::shared_ptr<const PodInfo> pod(std::string name, Labels labels, std::string ns = "default") {
  Pod p = testing::make_pod(std::move(name), 1000, 0);
  p.labels = std::move(labels);
  p.namespace_ = std::move(ns);
  return std::make_shared<const PodInfo>(make_pod_info(std::make_shared<const Pod>(std::move(p))));
}

PodDisruptionBudget pdb(std::string name, Labels match_labels, int32_t allowed,
                        std::vector<std::string> disrupted = {}) {
  PodDisruptionBudget b;
  b.name = std::move(name);
  b.namespace_ = "default";
  b.selector = LabelSelector{std::move(match_labels), {}};
  b.disruptions_allowed = allowed;
  b.disrupted_pods = std::move(disrupted);
  return b;
}

std::vector<std::string> names(const std::vector<std::shared_ptr<const PodInfo>>& v) {
  std::vector<std::string> out;
  for (const auto& p : v) out.push_back(p->pod->name);
  return out;
}

using Names = std::vector<std::string>;

TEST(PdbMatchTest, SchedulerReading) {
  const auto db_info = pod("a", {{"app", "db"}});
  const PodMeta& db = *db_info->pod;
  EXPECT_TRUE(pdb_matches(pdb("p", {{"app", "db"}}, 1), db));
  EXPECT_FALSE(pdb_matches(pdb("p", {{"app", "web"}}, 1), db));

  PodDisruptionBudget other_ns = pdb("p", {{"app", "db"}}, 1);
  other_ns.namespace_ = "prod";
  EXPECT_FALSE(pdb_matches(other_ns, db)) << "PDBs only protect pods of their own namespace";

  PodDisruptionBudget nil_selector = pdb("p", {}, 0);
  nil_selector.selector.reset();
  EXPECT_FALSE(pdb_matches(nil_selector, db)) << "nil selector -> labels.Nothing()";
  EXPECT_FALSE(pdb_matches(pdb("p", {}, 0), db)) << "empty selector is skipped by selector.Empty()";

  // A NotIn-only selector would match an unlabeled pod under metav1, but the scheduler skips
  // pods without labels before looking at any PDB.
  PodDisruptionBudget not_in = pdb("p", {}, 0);
  not_in.selector->match_expressions = {{"app", "NotIn", {"web"}}};
  EXPECT_TRUE(pdb_matches(not_in, db));
  const auto bare = pod("bare", {});
  EXPECT_FALSE(pdb_matches(not_in, *bare->pod));

  PodDisruptionBudget invalid = pdb("p", {{"app", "db"}}, 0);
  invalid.selector->match_expressions = {{"app", "Gt", {"1"}}};
  EXPECT_FALSE(pdb_matches(invalid, db)) << "a conversion error means no match";
}

// filterPodsWithPDBViolation: the budget is consumed by the most important pods first, the later ones
// violate.
TEST(PdbSplitTest, CurrentConsumesBudgetInOrder) {
  std::vector<std::shared_ptr<const PodInfo>> sorted = {
      pod("d", {}), pod("a", {{"app", "db"}}), pod("b", {{"app", "db"}}), pod("c", {{"app", "web"}})};
  std::vector<PodDisruptionBudget> pdbs = {pdb("db", {{"app", "db"}}, 1)};
  auto s = split_by_pdb_violation(sorted, pdbs, Semantics::kCurrent);
  EXPECT_EQ(names(s.violating), (Names{"b"}));
  EXPECT_EQ(names(s.non_violating), (Names{"d", "a", "c"}));

  auto old = split_by_pdb_violation(sorted, pdbs, Semantics::kV1_16);
  EXPECT_TRUE(old.violating.empty()) << "v1.16 only asks disruptionsAllowed <= 0";
  EXPECT_EQ(names(old.non_violating), (Names{"d", "a", "b", "c"}));
}

TEST(PdbSplitTest, ZeroBudgetViolatesInBothSemantics) {
  std::vector<std::shared_ptr<const PodInfo>> sorted = {pod("a", {{"app", "db"}}), pod("b", {{"app", "db"}}),
                                                        pod("c", {{"app", "web"}})};
  std::vector<PodDisruptionBudget> pdbs = {pdb("db", {{"app", "db"}}, 0)};
  for (Semantics s : {Semantics::kCurrent, Semantics::kV1_16}) {
    auto out = split_by_pdb_violation(sorted, pdbs, s);
    EXPECT_EQ(names(out.violating), (Names{"a", "b"}));
    EXPECT_EQ(names(out.non_violating), (Names{"c"}));
  }
}

TEST(PdbSplitTest, DisruptedPodsSkipThatBudgetOnlyInCurrent) {
  std::vector<std::shared_ptr<const PodInfo>> sorted = {pod("a", {{"app", "db"}}), pod("b", {{"app", "db"}})};
  std::vector<PodDisruptionBudget> pdbs = {pdb("db", {{"app", "db"}}, 1, {"a"})};
  // a is already counted as disrupted: it neither consumes nor violates; b gets the one disruption.
  auto cur = split_by_pdb_violation(sorted, pdbs, Semantics::kCurrent);
  EXPECT_TRUE(cur.violating.empty());
  EXPECT_EQ(names(cur.non_violating), (Names{"a", "b"}));

  pdbs[0].disruptions_allowed = 0;
  cur = split_by_pdb_violation(sorted, pdbs, Semantics::kCurrent);
  EXPECT_EQ(names(cur.violating), (Names{"b"}));
  auto old = split_by_pdb_violation(sorted, pdbs, Semantics::kV1_16);
  EXPECT_EQ(names(old.violating), (Names{"a", "b"})) << "v1.16 ignores DisruptedPods";
}

TEST(PdbSplitTest, MoreThanOnePdbPerPod) {
  // Every pod matches both budgets: "wide" allows 5, "narrow" allows 1. Current semantics charges
  // every matching PDB (no break), so the second pod exhausts "narrow" and violates even though
  // "wide" still has room.
  std::vector<std::shared_ptr<const PodInfo>> sorted = {pod("p1", {{"app", "db"}, {"shard", "1"}}),
                                                        pod("p2", {{"app", "db"}, {"shard", "1"}}),
                                                        pod("p3", {{"app", "db"}, {"shard", "2"}})};
  std::vector<PodDisruptionBudget> pdbs = {pdb("wide", {{"app", "db"}}, 5),
                                           pdb("narrow", {{"shard", "1"}}, 1)};
  auto cur = split_by_pdb_violation(sorted, pdbs, Semantics::kCurrent);
  EXPECT_EQ(names(cur.violating), (Names{"p2"}));
  EXPECT_EQ(names(cur.non_violating), (Names{"p1", "p3"}));

  // p1 listed as disrupted in "narrow" only: it still consumes "wide" but skips "narrow", which
  // leaves narrow's single disruption for p2.
  pdbs[1].disrupted_pods = {"p1"};
  cur = split_by_pdb_violation(sorted, pdbs, Semantics::kCurrent);
  EXPECT_TRUE(cur.violating.empty());

  // The "wide" budget is charged by every pod, p3 included: with 2 allowed, p3 (third) violates
  // through "wide" alone.
  pdbs[0].disruptions_allowed = 2;
  cur = split_by_pdb_violation(sorted, pdbs, Semantics::kCurrent);
  EXPECT_EQ(names(cur.violating), (Names{"p3"}));

  // v1.16: any matching PDB with no budget left makes the pod violating.
  std::vector<PodDisruptionBudget> old_pdbs = {pdb("wide", {{"app", "db"}}, 3),
                                               pdb("narrow", {{"shard", "1"}}, 0)};
  auto old = split_by_pdb_violation(sorted, old_pdbs, Semantics::kV1_16);
  EXPECT_EQ(names(old.violating), (Names{"p1", "p2"}));
  EXPECT_EQ(names(old.non_violating), (Names{"p3"}));
}

TEST(PdbSplitTest, OtherNamespaceAndUnlabeledNeverViolate) {
  std::vector<std::shared_ptr<const PodInfo>> sorted = {pod("a", {{"app", "db"}}, "prod"), pod("bare", {})};
  PodDisruptionBudget everything = pdb("all", {}, 0);
  everything.selector->match_expressions = {{"app", "DoesNotExist", {}}};
  std::vector<PodDisruptionBudget> pdbs = {pdb("db", {{"app", "db"}}, 0), everything};
  auto out = split_by_pdb_violation(sorted, pdbs, Semantics::kCurrent);
  EXPECT_TRUE(out.violating.empty());
  EXPECT_EQ(out.non_violating.size(), 2u);
}

}  // namespace
}  // namespace pdb_test
}  // namespace kext::preemption
