#include "algorithms/preemption/preemption.h"

#include <gtest/gtest.h>

#include <climits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/filters/pod_fits_resources.h"
#include "algorithms/preemption/select_victims.h"
#include "tests/support/test_builders.h"

namespace kext::preemption {
namespace preemption_test {
namespace {

using Names = std::vector<std::string>;

constexpr int64_t kT0 = 1767225600;  // 2026-01-01T00:00:00Z
constexpr int64_t kNow = kT0 + 86400;

Engine fit_engine() {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(make_pod_fits_resources_filter());
  return Engine(std::move(filters), {});
}

Pod pod(std::string name, int64_t cpu, int32_t priority, std::optional<int64_t> start, Labels labels = {}) {
  Pod p = testing::make_pod(std::move(name), cpu, 0);
  p.priority = priority;
  p.start_time = start;
  p.labels = std::move(labels);
  return p;
}

PodDisruptionBudget pdb(Labels match_labels, int32_t allowed, std::vector<std::string> disrupted = {}) {
  PodDisruptionBudget b;
  b.name = "db";
  b.namespace_ = "default";
  b.selector = LabelSelector{std::move(match_labels), {}};
  b.disruptions_allowed = allowed;
  b.disrupted_pods = std::move(disrupted);
  return b;
}

Names names(const std::vector<std::shared_ptr<const PodInfo>>& v) {
  Names out;
  for (const auto& p : v) out.push_back(p->pod->name);
  return out;
}

// PDB budgets consumed in victim order: 4000m node; d(200, unlabeled, t0), a(100, app=db, t1), b(100, app=db,
// t2), c(50, app=web, t-1).
NodeInfo golden_node() {
  return testing::node_info(
      testing::make_node("n", 4000, 0),
      {pod("d", 1000, 200, kT0), pod("a", 1000, 100, kT0 + 10, {{"app", "db"}}),
       pod("b", 1000, 100, kT0 + 20, {{"app", "db"}}), pod("c", 1000, 50, kT0 - 10, {{"app", "web"}})});
}

struct GoldenCase {
  std::string name;
  int64_t preemptor_cpu;
  PodDisruptionBudget budget;
  Semantics semantics;
  Names victims;
  int64_t violations;
};

TEST(SelectVictimsTest, GoldenCasesOfSection2_5) {
  const std::vector<GoldenCase> cases = {
      {"A current", 2000, pdb({{"app", "db"}}, 1), Semantics::kCurrent, {"a", "c"}, 0},
      {"A v1.16", 2000, pdb({{"app", "db"}}, 1), Semantics::kV1_16, {"b", "c"}, 0},
      {"A current, b already disrupted",
       2000,
       pdb({{"app", "db"}}, 1, {"b"}),
       Semantics::kCurrent,
       {"b", "c"},
       0},
      {"B current (final re-sort)", 3000, pdb({{"app", "db"}}, 0), Semantics::kCurrent, {"d", "b", "c"}, 1},
      {"B v1.16 (reprieve order)", 3000, pdb({{"app", "db"}}, 0), Semantics::kV1_16, {"b", "d", "c"}, 1},
      {"B current, a already disrupted",
       3000,
       pdb({{"app", "db"}}, 0, {"a"}),
       Semantics::kCurrent,
       {"d", "a", "c"},
       0},
  };
  const Engine engine = fit_engine();
  const NodeInfo node = golden_node();
  for (const auto& c : cases) {
    Pod preemptor = pod("p", c.preemptor_cpu, 300, std::nullopt);
    PodContext ctx(preemptor);
    std::vector<PodDisruptionBudget> pdbs = {c.budget};
    auto got = select_victims_on_node(ctx, node, pdbs, engine, kNow, c.semantics);
    ASSERT_TRUE(got.has_value()) << c.name;
    EXPECT_EQ(names(got->victims), c.victims) << c.name;
    EXPECT_EQ(got->num_pdb_violations, c.violations) << c.name;
  }
  EXPECT_EQ(node.pods.size(), 4u) << "the dry run must not touch the input node";
  EXPECT_EQ(node.requested.milli_cpu, 4000);
}

TEST(SelectVictimsTest, EqualPriorityIsNeverAVictim) {
  const Engine engine = fit_engine();
  NodeInfo node = testing::node_info(testing::make_node("n", 2000, 0),
                                     {pod("same", 1000, 300, kT0), pod("low", 1000, 299, kT0)});
  Pod preemptor = pod("p", 2000, 300, std::nullopt);
  PodContext ctx(preemptor);
  EXPECT_FALSE(select_victims_on_node(ctx, node, {}, engine, kNow, Semantics::kCurrent).has_value())
      << "removing only the lower-priority pod leaves 1000m: the node is not a candidate";
  Pod smaller = pod("p", 1000, 300, std::nullopt);
  PodContext ctx2(smaller);
  auto got = select_victims_on_node(ctx2, node, {}, engine, kNow, Semantics::kCurrent);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(names(got->victims), (Names{"low"}));
}

TEST(SelectVictimsTest, NilStartTimeIsEvictedFirstAmongEquals) {
  const Engine engine = fit_engine();
  // Same priority; "fresh" has no start time, so it counts as `now` — younger than "old" — and
  // goes first even though it is listed first on the node.
  NodeInfo node = testing::node_info(testing::make_node("n", 3000, 0), {pod("fresh", 1000, 100, std::nullopt),
                                                                        pod("old", 1000, 100, kNow - 5)});
  Pod preemptor = pod("p", 2000, 200, std::nullopt);
  PodContext ctx(preemptor);
  auto got = select_victims_on_node(ctx, node, {}, engine, kNow, Semantics::kCurrent);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(names(got->victims), (Names{"fresh"}));
  EXPECT_TRUE(more_important_pod(*node.pods[1]->pod, *node.pods[0]->pod, kNow));
  EXPECT_FALSE(more_important_pod(*node.pods[0]->pod, *node.pods[1]->pod, kNow));
}

TEST(SelectVictimsTest, NegativePrioritiesAreVictimsOfAZeroPriorityPod) {
  const Engine engine = fit_engine();
  NodeInfo node = testing::node_info(testing::make_node("n", 2000, 0),
                                     {pod("neg", 1000, -10, kT0), pod("min", 1000, INT32_MIN, kT0)});
  Pod preemptor = pod("p", 1000, 0, std::nullopt);
  preemptor.priority.reset();  // nil priority counts as 0, still above -10
  PodContext ctx(preemptor);
  auto got = select_victims_on_node(ctx, node, {}, engine, kNow, Semantics::kCurrent);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(names(got->victims), (Names{"min"}));
}

TEST(SelectVictimsTest, NodeWithoutEvictionsNeeded) {
  // The preemptor fits already (cluster changed since Filter). Modern code drops the node
  // ("expected at least one victim"); v1.16 returns it with no victims and picks it first.
  const Engine engine = fit_engine();
  NodeInfo node = testing::node_info(testing::make_node("n", 4000, 0), {pod("low", 1000, 1, kT0)});
  Pod preemptor = pod("p", 1000, 100, std::nullopt);
  PodContext ctx(preemptor);
  EXPECT_FALSE(select_victims_on_node(ctx, node, {}, engine, kNow, Semantics::kCurrent).has_value());
  auto old = select_victims_on_node(ctx, node, {}, engine, kNow, Semantics::kV1_16);
  ASSERT_TRUE(old.has_value());
  EXPECT_TRUE(old->victims.empty());
}

TEST(EligibilityTest, NeverAndTerminatingOnNominatedNode) {
  Pod preemptor = pod("p", 1000, 100, std::nullopt);
  EXPECT_TRUE(eligible_to_preempt(preemptor, nullptr));

  Pod never = preemptor;
  never.preemption_policy = "Never";
  EXPECT_FALSE(eligible_to_preempt(never, nullptr));

  Pod dying_low = pod("dying", 1000, 50, kT0);
  dying_low.terminating = true;
  dying_low.preemption_victim = true;
  Pod dying_high = pod("dying-high", 1000, 100, kT0);
  dying_high.terminating = true;
  dying_high.preemption_victim = true;
  NodeInfo with_low = testing::node_info(testing::make_node("nom", 4000, 0), {dying_low});
  NodeInfo with_equal = testing::node_info(testing::make_node("nom", 4000, 0), {dying_high});
  Pod nominated = preemptor;
  nominated.nominated_node_name = "nom";
  EXPECT_FALSE(eligible_to_preempt(nominated, &with_low)) << "an earlier victim is still terminating";
  EXPECT_TRUE(eligible_to_preempt(nominated, &with_equal)) << "equal priority is not one of our victims";
  EXPECT_TRUE(eligible_to_preempt(preemptor, &with_low)) << "no nomination, nothing to wait for";
}

TEST(SelectCandidatesTest, IneligiblePreemptorGetsNothing) {
  const Engine engine = fit_engine();
  NodeInfo n1 = golden_node();
  Pod dying = pod("dying", 500, 10, kT0);
  dying.terminating = true;
  dying.preemption_victim = true;
  NodeInfo nom = testing::node_info(testing::make_node("nom", 1000, 0), {dying});
  std::vector<const NodeInfo*> nodes = {&n1, &nom};

  Pod never = pod("p", 2000, 300, std::nullopt);
  never.preemption_policy = "Never";
  PodContext never_ctx(never);
  EXPECT_TRUE(select_candidates(never_ctx, nodes, {}, engine, kNow).empty());

  Pod waiting = pod("p", 2000, 300, std::nullopt);
  waiting.nominated_node_name = "nom";
  PodContext waiting_ctx(waiting);
  EXPECT_TRUE(select_candidates(waiting_ctx, nodes, {}, engine, kNow).empty());

  Pod fresh = pod("p", 2000, 300, std::nullopt);
  PodContext fresh_ctx(fresh);
  auto got = select_candidates(fresh_ctx, nodes, {}, engine, kNow);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].node_name, "n");
}

// pickOneNodeForPreemption end to end: every node has 300m, full, and the preemptor needs all 300m, so no
// victim can be reprieved and the victim lists are exactly those of the reference table.
std::vector<NodeInfo> golden_chain_nodes() {
  auto at = [](int h, int m = 0) { return kT0 + h * 3600 + m * 60; };
  auto full = [](std::string name, std::vector<Pod> pods) {
    return testing::node_info(testing::make_node(std::move(name), 300, 0), std::move(pods));
  };
  return {
      full("N1", {pod("n1a", 300, 10, at(9), {{"app", "guarded"}})}),
      full("N2", {pod("n2a", 150, 500, at(9)), pod("n2b", 150, 1, at(9))}),
      full("N3", {pod("n3a", 150, 100, at(9)), pod("n3b", 150, 100, at(9, 30))}),
      full("N4", {pod("n4a", 100, 100, at(9)), pod("n4b", 100, -50, at(9)), pod("n4c", 100, -50, at(9))}),
      full("N5", {pod("n5b", 150, 50, at(12)), pod("n5a", 150, 100, at(10))}),
      full("N6", {pod("n6b", 150, 50, at(7)), pod("n6a", 150, 100, at(11))}),
      full("N8",
           {pod("n8c", 100, INT32_MIN, at(5)), pod("n8a", 100, 100, at(8)), pod("n8b", 100, 50, at(6))}),
  };
}

TEST(SelectCandidatesTest, GoldenChainPicksN6InBothSemantics) {
  const Engine engine = fit_engine();
  auto infos = golden_chain_nodes();
  auto ptrs = testing::node_ptrs(infos);
  std::vector<PodDisruptionBudget> pdbs = {pdb({{"app", "guarded"}}, 0)};
  Pod preemptor = pod("p", 300, 1000, std::nullopt);
  PodContext ctx(preemptor);
  for (Semantics s : {Semantics::kCurrent, Semantics::kV1_16}) {
    Options opts;
    opts.semantics = s;
    opts.max_candidates = 10;
    auto got = select_candidates(ctx, ptrs, pdbs, engine, kNow, opts);
    Names order;
    for (const auto& c : got) order.push_back(c.node_name);
    EXPECT_EQ(order, (Names{"N6", "N5", "N8", "N3", "N4", "N2", "N1"}));
    ASSERT_EQ(got.size(), 7u);
    EXPECT_EQ(names(got[0].victims), (Names{"n6a", "n6b"})) << "victims most important first";
    EXPECT_EQ(got[0].decided_by, "earliest_start_time");
    EXPECT_EQ(names(got[2].victims), (Names{"n8a", "n8b", "n8c"}));
    EXPECT_EQ(got[6].num_pdb_violations, 1);
  }
}

TEST(SelectCandidatesTest, MaxCandidatesReturnsTheBestInOrder) {
  const Engine engine = fit_engine();
  auto infos = golden_chain_nodes();
  auto ptrs = testing::node_ptrs(infos);
  std::vector<PodDisruptionBudget> pdbs = {pdb({{"app", "guarded"}}, 0)};
  Pod preemptor = pod("p", 300, 1000, std::nullopt);
  PodContext ctx(preemptor);

  auto one = select_candidates(ctx, ptrs, pdbs, engine, kNow);  // default max_candidates = 1
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].node_name, "N6");

  Options opts;
  opts.max_candidates = 3;
  auto three = select_candidates(ctx, ptrs, pdbs, engine, kNow, opts);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(three[0].node_name, "N6");
  EXPECT_EQ(three[1].node_name, "N5");
  EXPECT_EQ(three[2].node_name, "N8");
  EXPECT_EQ(three[2].decided_by, "sum_of_priorities") << "what separated N8 from N3, the first one cut";
}

TEST(SelectCandidatesTest, PdbViolationsOutweighEverythingElse) {
  // A PDB-protected victim with a lower priority (the case above) on node "guarded" evicts one PDB-protected
  // pod; node "plain" has to evict a higher-priority pod (250) but violates nothing, so it wins.
  const Engine engine = fit_engine();
  NodeInfo guarded = golden_node();
  NodeInfo plain = testing::node_info(testing::make_node("plain", 3000, 0), {pod("x", 3000, 250, kT0)});
  std::vector<const NodeInfo*> nodes = {&guarded, &plain};
  std::vector<PodDisruptionBudget> pdbs = {pdb({{"app", "db"}}, 0)};
  Pod preemptor = pod("p", 3000, 300, std::nullopt);
  PodContext ctx(preemptor);
  Options opts;
  opts.max_candidates = 2;
  auto got = select_candidates(ctx, nodes, pdbs, engine, kNow, opts);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].node_name, "plain");
  EXPECT_EQ(got[0].decided_by, "pdb_violations");
  EXPECT_EQ(got[1].num_pdb_violations, 1);

  // With the budget back, "guarded" keeps d and evicts a, b, c (top priority 100 < 250) and wins on step 2.
  pdbs[0].disruptions_allowed = 5;
  got = select_candidates(ctx, nodes, pdbs, engine, kNow, opts);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].node_name, "n");
  EXPECT_EQ(got[0].decided_by, "highest_victim_priority");
}

TEST(SelectCandidatesTest, V1_16ReadsUnsortedFirstVictim) {
  // Case B on node "n": v1.16 leaves [b(100), d(200), c(50)], so Pods[0] reads 100 and "n" beats a
  // node whose only victim has priority 150; the current re-sort makes it 200 and the other node wins.
  const Engine engine = fit_engine();
  NodeInfo caseb = golden_node();
  NodeInfo other =
      testing::node_info(testing::make_node("other", 3000, 0), {pod("y", 3000, 150, kT0, {{"app", "db"}})});
  std::vector<const NodeInfo*> nodes = {&other, &caseb};
  // A zero budget makes both nodes violate exactly once, so step 2 decides.
  std::vector<PodDisruptionBudget> pdbs = {pdb({{"app", "db"}}, 0)};
  Pod preemptor = pod("p", 3000, 300, std::nullopt);
  PodContext ctx(preemptor);
  Options old;
  old.semantics = Semantics::kV1_16;
  auto got_old = select_candidates(ctx, nodes, pdbs, engine, kNow, old);
  auto got_cur = select_candidates(ctx, nodes, pdbs, engine, kNow, {});
  ASSERT_EQ(got_old.size(), 1u);
  ASSERT_EQ(got_cur.size(), 1u);
  EXPECT_EQ(got_old[0].node_name, "n");
  EXPECT_EQ(got_cur[0].node_name, "other");
}

// Victims re-sorted by importance when PDB-violating and other victims mix (PR #128307) from 1.29 (its
// November 2024 patch releases, as 1.30's and 1.31's; 1.32.0): before, case B keeps [b(100), d(200), c(50)]
// and pickOneNodeForPreemption reads 100 as "n"'s highest priority.
TEST(SelectCandidatesTest, VictimsResortedByMinor) {
  const Engine engine = fit_engine();
  NodeInfo caseb = golden_node();
  NodeInfo other =
      testing::node_info(testing::make_node("other", 3000, 0), {pod("y", 3000, 150, kT0, {{"app", "db"}})});
  std::vector<const NodeInfo*> nodes = {&other, &caseb};
  std::vector<PodDisruptionBudget> pdbs = {pdb({{"app", "db"}}, 0)};
  Pod preemptor = pod("p", 3000, 300, std::nullopt);
  PodContext ctx(preemptor);
  struct Case {
    int minor;
    Names victims_on_n;
    std::string chosen;
  };
  for (const Case& c : {Case{29, {"d", "b", "c"}, "other"}, Case{28, {"b", "d", "c"}, "n"}}) {
    SCOPED_TRACE(c.minor);
    auto got = select_victims_on_node(ctx, caseb, pdbs, engine, kNow,
                                      DryRunRules(Semantics::kCurrent, KubeVersion{c.minor}));
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(names(got->victims), c.victims_on_n);
    Options opts;
    opts.version = KubeVersion{c.minor};
    auto chosen = select_candidates(ctx, nodes, pdbs, engine, kNow, opts);
    ASSERT_EQ(chosen.size(), 1u);
    EXPECT_EQ(chosen[0].node_name, c.chosen);
  }
}

// From 1.27 a terminating pod on the nominated node holds a retry back only when the scheduler preempted it
// (its DisruptionTarget condition, podTerminatingByPreemption); at 1.26 any terminating lower-priority pod.
TEST(EligibilityTest, TerminatingPodsByMinor) {
  Pod preemptor = pod("p", 1000, 100, std::nullopt);
  preemptor.nominated_node_name = "nom";
  Pod deleted = pod("deleted", 1000, 50, kT0);
  deleted.terminating = true;
  Pod victim = deleted;
  victim.name = "victim";
  victim.preemption_victim = true;
  const NodeInfo with_deleted = testing::node_info(testing::make_node("nom", 4000, 0), {deleted});
  const NodeInfo with_victim = testing::node_info(testing::make_node("nom", 4000, 0), {victim});
  struct Case {
    int minor;
    bool after_a_deletion;
    bool after_a_preemption;
  };
  for (const Case& c : {Case{27, true, false}, Case{36, true, false}, Case{26, false, false}}) {
    SCOPED_TRACE(c.minor);
    const KubeVersion v{c.minor};
    EXPECT_EQ(eligible_to_preempt(preemptor, &with_deleted, v), c.after_a_deletion);
    EXPECT_EQ(eligible_to_preempt(preemptor, &with_victim, v), c.after_a_preemption);
    // select_candidates reads the same rule from its options.
    const Engine engine = fit_engine();
    std::vector<const NodeInfo*> nodes = {&with_deleted};
    Pod big = preemptor;
    big.containers = testing::make_pod("big", 4000, 0).containers;
    PodContext ctx(big);
    Options opts;
    opts.version = v;
    EXPECT_EQ(select_candidates(ctx, nodes, {}, engine, kNow, opts).size(), c.after_a_deletion ? 1u : 0u);
  }
}

TEST(SelectCandidatesTest, ParallelMatchesSerial) {
  const Engine engine = fit_engine();
  std::vector<NodeInfo> infos;
  for (int i = 0; i < 200; ++i) {
    std::vector<Pod> pods;
    for (int k = 0; k < 8; ++k) {
      pods.push_back(pod("p" + std::to_string(i) + "-" + std::to_string(k), 500, (i * 7 + k * 13) % 90,
                         kT0 + (i * 31 + k) % 1000, {{"app", k % 2 ? "db" : "web"}}));
    }
    infos.push_back(
        testing::node_info(testing::make_node("node-" + std::to_string(1000 + i), 4000, 0), pods));
  }
  auto ptrs = testing::node_ptrs(infos);
  std::vector<PodDisruptionBudget> pdbs = {pdb({{"app", "db"}}, 2)};
  Pod preemptor = pod("p", 1800, 100, std::nullopt);
  PodContext ctx(preemptor);
  Options serial;
  serial.max_candidates = 50;
  serial.parallel = {SIZE_MAX, 0};
  Options parallel = serial;
  parallel.parallel = {0, 0};
  auto a = select_candidates(ctx, ptrs, pdbs, engine, kNow, serial);
  auto b = select_candidates(ctx, ptrs, pdbs, engine, kNow, parallel);
  ASSERT_EQ(a.size(), 50u);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].node_name, b[i].node_name);
    EXPECT_EQ(names(a[i].victims), names(b[i].victims));
    EXPECT_EQ(a[i].decided_by, b[i].decided_by);
  }
}

TEST(SelectCandidatesTest, NodesThatCannotHelpAreDropped) {
  const Engine engine = fit_engine();
  NodeInfo too_small = testing::node_info(testing::make_node("small", 1000, 0), {pod("low", 1000, 1, kT0)});
  NodeInfo only_higher =
      testing::node_info(testing::make_node("higher", 4000, 0), {pod("hi", 4000, 500, kT0)});
  std::vector<const NodeInfo*> nodes = {&too_small, &only_higher};
  Pod preemptor = pod("p", 2000, 300, std::nullopt);
  PodContext ctx(preemptor);
  for (Semantics s : {Semantics::kCurrent, Semantics::kV1_16}) {
    Options o;
    o.semantics = s;
    EXPECT_TRUE(select_candidates(ctx, nodes, {}, engine, kNow, o).empty());
  }
}

TEST(SelectCandidatesTest, V1_16PrefersANodeNeedingNoEviction) {
  const Engine engine = fit_engine();
  NodeInfo busy = golden_node();
  NodeInfo roomy = testing::node_info(testing::make_node("roomy", 4000, 0), {pod("low", 1000, 1, kT0)});
  std::vector<const NodeInfo*> nodes = {&busy, &roomy};
  Pod preemptor = pod("p", 2000, 300, std::nullopt);
  PodContext ctx(preemptor);
  Options old;
  old.semantics = Semantics::kV1_16;
  auto got = select_candidates(ctx, nodes, {}, engine, kNow, old);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].node_name, "roomy");
  EXPECT_TRUE(got[0].victims.empty());
  auto cur = select_candidates(ctx, nodes, {}, engine, kNow);
  ASSERT_EQ(cur.size(), 1u);
  EXPECT_EQ(cur[0].node_name, "n") << "modern code never makes a zero-victim node a candidate";
}

// The dry run adds and removes pods on a copy of the node: with 8Ei pods the node's memory sum must
// saturate (not wrap) and removing a pod must restore the exact remainder (not subtract from the
// clamped sum).
TEST(SelectVictimsTest, EightExbibytePodsSaturate) {
  auto mem_pod = [](std::string name, int32_t priority, int64_t start, int64_t mem) {
    Pod p = testing::make_pod(std::move(name), 100, mem);
    p.priority = priority;
    p.start_time = start;
    return p;
  };
  struct Case {
    std::string name;
    std::vector<Pod> pods;
    std::optional<Names> current, v1_16;  // nullopt = no candidate
  };
  const std::vector<Case> cases = {
      // Two unevictable 8Ei pods fill the node; the wrapped sum (-2) made it fit without evictions.
      {"two higher-priority 8Ei pods",
       {mem_pod("h1", 500, kT0, testing::k8Ei), mem_pod("h2", 500, kT0, testing::k8Ei),
        mem_pod("l", 1, kT0, testing::GiB)},
       std::nullopt,
       std::nullopt},
      // Both 8Ei pods must go: the wrapped sums let each be reprieved in turn.
      {"two lower-priority 8Ei pods",
       {mem_pod("l1", 1, kT0, testing::k8Ei), mem_pod("l2", 1, kT0 + 10, testing::k8Ei),
        mem_pod("h", 500, kT0, testing::GiB)},
       Names{"l1", "l2"},
       Names{"l1", "l2"}},
      // Removing both lower pods leaves the higher 8Ei one: subtracting them from a clamped sum
      // would have read 0 and found room.
      {"one higher and two lower 8Ei pods",
       {mem_pod("h", 500, kT0, testing::k8Ei), mem_pod("l1", 1, kT0, testing::k8Ei),
        mem_pod("l2", 1, kT0 + 10, testing::k8Ei)},
       std::nullopt,
       std::nullopt},
  };
  const Engine engine = fit_engine();
  Pod preemptor = testing::make_pod("p", 100, testing::GiB);
  preemptor.priority = 100;
  PodContext ctx(preemptor);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    NodeInfo node = testing::node_info(testing::make_node("n", 4000, 16 * testing::GiB), c.pods);
    for (auto [semantics, want] :
         {std::pair{Semantics::kCurrent, c.current}, std::pair{Semantics::kV1_16, c.v1_16}}) {
      auto got = select_victims_on_node(ctx, node, {}, engine, kNow, semantics);
      ASSERT_EQ(got.has_value(), want.has_value());
      if (got) {
        EXPECT_EQ(names(got->victims), *want);
      }
    }
  }
}

}  // namespace
}  // namespace preemption_test
}  // namespace kext::preemption
