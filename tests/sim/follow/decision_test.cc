// --follow's decision agreement (sim/follow/decision.h): production's node judged on the
// cluster it decided in, every node filtered and scored; ties agree; from 100 nodes up, a node
// agrees when some numFeasibleNodesToFind-sample could have had it best.
#include "sim/follow/decision.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "tests/sim/core/sim_fixtures.h"

namespace kext::simtool::follow {
namespace decision_test {
namespace {

using kext::sim::testing::least_requested_engine;
using kext::sim::testing::sim_pod;

// `nodes` nodes of 4 CPU; node i runs a pod of (i % levels) x 100m, so that `levels` groups of
// equal nodes score apart.
struct Cluster {
  std::unique_ptr<Engine> engine = least_requested_engine();
  sim::SimCluster cluster;
  sim::CycleConfig config;
  Cluster(int nodes, int levels, int32_t percentage) {
    config.engine = engine.get();
    config.percentage_of_nodes_to_score = percentage;
    for (int i = 0; i < nodes; ++i) {
      const std::string name = "n" + std::to_string(i);
      cluster.add_node(kext::testing::make_node(name, 4000, 16 * kext::testing::GiB));
      if (i % levels != 0) cluster.add_pod(sim_pod("r" + std::to_string(i), (i % levels) * 100, 0, name));
    }
  }
  DecisionVerdict judge(const std::string& node, int64_t cpu = 200) const {
    const Pod pod = sim_pod("p", cpu, 0);
    return judge_decision(config, sim::evaluate_every_node(config, cluster, pod, node), node,
                          config.percentage_of_nodes_to_score);
  }
};

struct Case {
  const char* name;
  int nodes;
  int32_t percentage;
  const char* production;
  DecisionVerdict::Kind kind;
  size_t rank;  // 0: not checked
};

class DecisionCases : public ::testing::TestWithParam<Case> {};

TEST_P(DecisionCases, Judged) {
  const Case& c = GetParam();
  const Cluster k(c.nodes, 10, c.percentage);
  const DecisionVerdict v = k.judge(c.production);
  EXPECT_EQ(kind_name(v.kind), kind_name(c.kind)) << c.name;
  if (c.rank != 0) {
    EXPECT_EQ(v.rank, c.rank);
  }
  EXPECT_EQ(v.production_node, c.production);
  if (v.kind == DecisionVerdict::Kind::kOutscored) {
    EXPECT_GT(v.gap, 0);
    ASSERT_FALSE(v.terms.empty());
    EXPECT_EQ(v.terms.front().plugin, "LeastRequestedPriority");
  }
  if (v.kind == DecisionVerdict::Kind::kAgreed) {
    EXPECT_LE(v.rank, v.feasible);
  }
}

// Ten nodes: n0 and n10-style nodes (i % 10 == 0) are empty, the best; n9 runs 900m.
INSTANTIATE_TEST_SUITE_P(
    Cases, DecisionCases,
    ::testing::Values(Case{"BestNode", 10, 0, "n0", DecisionVerdict::Kind::kAgreed, 1},
                      Case{"TieAmongTheBest", 20, 0, "n10", DecisionVerdict::Kind::kAgreed, 1},
                      Case{"Outscored", 10, 0, "n5", DecisionVerdict::Kind::kOutscored, 0},
                      Case{"WorstNode", 10, 0, "n9", DecisionVerdict::Kind::kOutscored, 0},
                      Case{"UnknownNode", 10, 0, "elsewhere", DecisionVerdict::Kind::kUnjudged, 0}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(Decision, ANodeTheFiltersRejectIsAHardDisagreement) {
  const Cluster k(10, 10, 0);
  const DecisionVerdict v = k.judge("n9", 3200);  // n9 has 3100m free
  EXPECT_EQ(v.kind, DecisionVerdict::Kind::kRejected);
  EXPECT_EQ(v.rejected, std::vector<std::string>{"Insufficient cpu"});
  EXPECT_EQ(v.rank, 0u);
  EXPECT_EQ(v.choice, "n0");
}

TEST(Decision, TheOnlyFeasibleNodeAgrees) {
  const Cluster k(10, 10, 0);
  const DecisionVerdict v = k.judge("n0", 3950);  // only the empty node has room
  EXPECT_EQ(v.kind, DecisionVerdict::Kind::kAgreed);
  EXPECT_EQ(v.feasible, 1u);
}

// 1,200 nodes in 40 levels: kube-scheduler scores a sample of numFeasibleNodesToFind (adaptive
// 50 % - 1200/125 = 41 % in integer arithmetic: 492) of the feasible nodes, so a node agrees when at most F -
// 492 score above it. Every node's verdict follows that rule, some agree that are not the best, and scoring
// every node (percentageOfNodesToScore 100) leaves only the best.
TEST(Decision, AtAThousandNodesJudgesAgainstWhatTheSampleCouldHaveChosen) {
  const Cluster sampled(1200, 40, 0), full(1200, 40, 100);
  const Pod pod = sim_pod("p", 200, 0);
  const sim::NodeEvaluation e = sim::evaluate_every_node(sampled.config, sampled.cluster, pod);
  const size_t f = e.feasible.size();
  const size_t k = sim::num_feasible_nodes_to_find(1200, 0);
  ASSERT_EQ(k, 492u);
  ASSERT_GT(f, k);
  size_t lenient = 0, outscored = 0;
  for (size_t j = 0; j < f; ++j) {
    const std::string node = e.nodes[e.feasible[j]]->name();
    size_t above = 0;
    for (int64_t t : e.priorities.totals) above += t > e.priorities.totals[j];
    const DecisionVerdict v = judge_decision(sampled.config, e, node, 0);
    ASSERT_EQ(v.agreed(), above <= f - k) << node << " with " << above << " above";
    EXPECT_EQ(v.rank, above + 1);
    EXPECT_EQ(v.sample, k);
    if (v.agreed() && above > 0) {
      ++lenient;
      EXPECT_FALSE(full.judge(node).agreed()) << node << ": every node scored, only the best agree";
    }
    outscored += !v.agreed();
  }
  EXPECT_GT(lenient, 0u);
  EXPECT_GT(outscored, 0u);
}

TEST(Decision, OneLogLinePerVerdict) {
  const Cluster k(10, 10, 0);
  rapidjson::Document d;
  const std::string outscored = verdict_json("pack \"x\"", 1.5, "ns/p", k.judge("n5"));
  d.Parse(outscored.c_str());
  ASSERT_TRUE(d.IsObject()) << outscored;
  EXPECT_STREQ(d["policy"].GetString(), "pack \"x\"");
  const auto& v = d["decision"];
  EXPECT_DOUBLE_EQ(v["time"].GetDouble(), 1.5);
  EXPECT_STREQ(v["pod"].GetString(), "ns/p");
  EXPECT_STREQ(v["production"].GetString(), "n5");
  EXPECT_STREQ(v["verdict"].GetString(), "outscored");
  EXPECT_STREQ(v["choice"].GetString(), "n0");
  EXPECT_EQ(v["feasible"].GetUint64(), 10u);
  EXPECT_GT(v["rank"].GetUint64(), 1u);
  EXPECT_GT(v["gap"].GetInt64(), 0);
  EXPECT_GT(v["terms"]["LeastRequestedPriority"].GetInt64(), 0);
  const std::string rejected = verdict_json("p", 0, "ns/p", k.judge("n9", 3200));
  d.Parse(rejected.c_str());
  ASSERT_TRUE(d.IsObject()) << rejected;
  EXPECT_STREQ(d["decision"]["verdict"].GetString(), "rejected");
  EXPECT_STREQ(d["decision"]["rejected"][0].GetString(), "Insufficient cpu");
}

}  // namespace
}  // namespace decision_test
}  // namespace kext::simtool::follow
