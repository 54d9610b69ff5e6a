// "How many more of this pod fit?" under kube-scheduler's default profile, each answer worked out by
// hand from the nodes' room: copies placed one by one, per node, and the next copy's FitError. Each
// answer comes out the same whether the nodes are filled alone or every copy takes a whole cycle.
#include "sim/capacity/how_many_fit.h"

#include <gtest/gtest.h>

#include "policy/config.h"
#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::sim::capacity {
namespace how_many_fit_test {
namespace {

using kext::testing::GiB;
using kext::testing::make_node;
using sim::testing::kEpoch;
using sim::testing::sim_pod;

struct NodeSpec {
  std::string name{};
  int64_t cpu_milli = 4000;
  int64_t pods = 110;
  std::vector<int64_t> running_cpu{};  // one running pod per entry, priority 0
  Labels labels{};
  std::vector<Taint> taints{};
};

struct Case {
  std::string name{};
  std::vector<NodeSpec> nodes{};
  int64_t pod_cpu = 1000;
  int32_t pod_priority = 0;
  Labels pod_node_selector{};
  bool one_per_host = false;  // required anti-affinity against its own copies, per hostname
  // The answer, by hand.
  size_t fit = 0;
  std::vector<NodeCount> per_node{};
  std::string message{};
};

SimCluster cluster_of(const Case& c) {
  SimCluster cluster;
  for (const NodeSpec& n : c.nodes) {
    Node node = make_node(n.name, n.cpu_milli, 16 * GiB, n.pods);
    node.labels = n.labels;
    node.labels[std::string(kHostnameLabel)] = n.name;
    node.taints = n.taints;
    cluster.add_node(std::move(node));
    for (size_t i = 0; i < n.running_cpu.size(); ++i)
      cluster.add_pod(
          sim_pod(n.name + "-run-" + std::to_string(i), n.running_cpu[i], 0, n.name, kEpoch - 60));
  }
  return cluster;
}

Pod pod_of(const Case& c) {
  Pod pod = sim_pod("web", c.pod_cpu, c.pod_priority);
  pod.node_selector = c.pod_node_selector;
  pod.labels = Labels{{"app", "web"}};
  if (c.one_per_host) {
    PodAffinityRules rules;
    PodAffinityTerm term;
    term.label_selector = LabelSelector{{{"app", "web"}}, {}};
    term.topology_key = std::string(kHostnameLabel);
    rules.required_anti_affinity.push_back(term);
    pod.affinity = std::make_shared<const PodAffinityRules>(std::move(rules));
  }
  return pod;
}

// The answer on kube-scheduler's default profile (as extender-sim capacity without --config).
CapacityAnswer answer(const Case& c, size_t max_pods) {
  const simtool::SimConfig config = simtool::load_sim_config("");
  SimulatorOptions options;
  simtool::apply(config, options);
  options.epoch_unix_seconds = kEpoch;
  return how_many_fit(cluster_of(c), *config.engine, options, pod_of(c), max_pods);
}

TEST(HowManyFit, CountsCopiesPerNodeAndTheNextOnesReasons) {
  const Taint gpu{"dedicated", "gpu", "NoSchedule"};
  const std::vector<Case> cases = {
      {.name = "cpu: 4 on the empty node, 1 beside 2.5 CPU; the tainted node takes none",
       .nodes = {{.name = "n1"}, {.name = "n2", .running_cpu = {2500}}, {.name = "n3", .taints = {gpu}}},
       .fit = 5,
       .per_node = {{"n1", 4}, {"n2", 1}},
       .message = "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, "
                  "2 Insufficient cpu."},
      {.name = "the pod count: 3 allowed, 1 running, so 2 more",
       .nodes = {{.name = "n1", .pods = 3, .running_cpu = {100}}},
       .pod_cpu = 100,
       .fit = 2,
       .per_node = {{"n1", 2}},
       .message = "0/1 nodes are available: 1 Too many pods."},
      {.name = "a nodeSelector: only zone a's node counts",
       .nodes = {{.name = "a1", .labels = {{"zone", "a"}}}, {.name = "b1", .labels = {{"zone", "b"}}}},
       .pod_node_selector = {{"zone", "a"}},
       .fit = 4,
       .per_node = {{"a1", 4}},
       .message = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node "
                  "affinity/selector."},
      {.name = "no room at all",
       .nodes = {{.name = "n1", .cpu_milli = 500}},
       .message = "0/1 nodes are available: 1 Insufficient cpu."},
      {.name = "anti-affinity to its own copies per host: one a node, though each has room for four",
       .nodes = {{.name = "n1"}, {.name = "n2"}, {.name = "n3", .running_cpu = {3500}}},
       .one_per_host = true,
       .fit = 2,
       .per_node = {{"n1", 1}, {"n2", 1}},
       .message = "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match pod anti-affinity "
                  "rules."},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const CapacityAnswer filled = answer(c, 0);
    EXPECT_EQ(filled.pod, "default/web");
    EXPECT_EQ(filled.fit, c.fit);
    EXPECT_EQ(filled.per_node, c.per_node);
    EXPECT_FALSE(filled.stopped_at_max);
    EXPECT_EQ(filled.message, c.message);
    EXPECT_EQ(filled.cycles, c.one_per_host ? c.fit + 1 : 1u) << "one cycle after the nodes are filled";
    // Every copy through a whole cycle, under a limit it never reaches: the same answer.
    const CapacityAnswer cycled = answer(c, 1000);
    EXPECT_EQ(cycled.cycles, c.fit + 1);
    EXPECT_EQ(cycled.filled, 0u);
    EXPECT_EQ(cycled.fit, filled.fit);
    EXPECT_EQ(cycled.per_node, filled.per_node);
    EXPECT_EQ(cycled.message, filled.message);
  }
}

TEST(HowManyFit, ALimitStopsEarlyWithNoReason) {
  const Case c{.name = "two empty nodes", .nodes = {{.name = "n1"}, {.name = "n2"}}};
  const CapacityAnswer a = answer(c, 3);
  EXPECT_EQ(a.fit, 3u);
  EXPECT_TRUE(a.stopped_at_max);
  EXPECT_EQ(a.message, "");
  EXPECT_EQ(a.cycles, 3u);
  size_t placed = 0;
  for (const auto& n : a.per_node) placed += n.pods;
  EXPECT_EQ(placed, 3u);
}

// The extender's endpoint bounds each question: the answer stops where the budget ran out, says which,
// and is a lower bound with nothing known of the next copy.
TEST(HowManyFit, ABudgetStopsTheQuestionAndSaysWhich) {
  const Case c{.name = "three empty nodes", .nodes = {{.name = "n1"}, {.name = "n2"}, {.name = "n3"}}};
  const simtool::SimConfig config = simtool::load_sim_config("");
  SimulatorOptions options;
  simtool::apply(config, options);
  options.epoch_unix_seconds = kEpoch;
  // Filled alone: one check per copy tried, so 6 checks place 4 on n1 (its fifth try fails), 1 on n2.
  Budget nodes;
  nodes.max_node_checks = 6;
  CapacityAnswer a = how_many_fit(cluster_of(c), *config.engine, options, pod_of(c), 0, nodes);
  EXPECT_EQ(a.stopped_by_budget, "nodes");
  EXPECT_EQ(a.node_checks, 6u);
  EXPECT_EQ(a.fit, 5u);
  EXPECT_EQ(a.per_node, (std::vector<NodeCount>{{"n1", 4}, {"n2", 1}}));
  EXPECT_EQ(a.message, "");
  // Whole cycles: three checks a cycle, so 7 checks are two cycles.
  nodes.max_node_checks = 7;
  a = how_many_fit(cluster_of(c), *config.engine, options, pod_of(c), 100, nodes);
  EXPECT_EQ(a.stopped_by_budget, "nodes");
  EXPECT_EQ(a.fit, 2u);
  EXPECT_EQ(a.node_checks, 6u);
  EXPECT_FALSE(a.stopped_at_max);
  // A deadline already passed: nothing is tried.
  Budget late;
  late.deadline = std::chrono::steady_clock::now();
  a = how_many_fit(cluster_of(c), *config.engine, options, pod_of(c), 0, late);
  EXPECT_EQ(a.stopped_by_budget, "time");
  EXPECT_EQ(a.fit, 0u);
  // Unbounded, the same question: 12 copies, and every check counted.
  a = how_many_fit(cluster_of(c), *config.engine, options, pod_of(c));
  EXPECT_EQ(a.stopped_by_budget, "");
  EXPECT_EQ(a.fit, 12u);
  EXPECT_EQ(a.node_checks, 12u + 3u + 3u) << "each node's 4 copies and its fifth try, then one cycle";
}

// Capacity is room that is free: a copy of a high-priority pod never evicts the low-priority pods that
// fill the nodes, as a pending pod of that priority would.
TEST(HowManyFit, CopiesNeverPreempt) {
  const Case c{.name = "full of priority 0",
               .nodes = {{.name = "n1", .running_cpu = {2000, 2000}}},
               .pod_priority = 1000};
  for (size_t max_pods : {0, 10}) {
    const CapacityAnswer a = answer(c, max_pods);
    EXPECT_EQ(a.fit, 0u);
    EXPECT_EQ(a.message, "0/1 nodes are available: 1 Insufficient cpu.");
  }
}

TEST(HowManyFit, OnlyCopiesThatCountOtherNodesTakeACycleEach) {
  const simtool::SimConfig config = simtool::load_sim_config("");
  const Case plain{.name = "plain", .nodes = {{.name = "n1"}}};
  Case spread = plain;
  spread.one_per_host = true;
  EXPECT_TRUE(copies_fill_nodes_alone(*config.engine, nullptr, cluster_of(plain), pod_of(plain)));
  EXPECT_FALSE(copies_fill_nodes_alone(*config.engine, nullptr, cluster_of(spread), pod_of(spread)));
  Pod member = pod_of(plain);
  member.scheduling_group = "train";
  EXPECT_FALSE(copies_fill_nodes_alone(*config.engine, nullptr, cluster_of(plain), member));
  Pod skewed = pod_of(plain);
  TopologySpreadConstraint hard;
  hard.topology_key = std::string(kHostnameLabel);
  hard.label_selector = LabelSelector{{{"app", "web"}}, {}};
  skewed.topology_spread_constraints.push_back(hard);
  EXPECT_FALSE(copies_fill_nodes_alone(*config.engine, nullptr, cluster_of(plain), skewed));

  // An extender in process beside the profile: its filters are checked too. One across HTTP: whether
  // its filters count other nodes is unknown, so every copy takes a cycle.
  const simtool::SimConfig with_extender = simtool::sim_config_of_text(
      std::string(default_config_json()), "the embedded configuration", KubeVersion::newest());
  ASSERT_NE(with_extender.extender, nullptr);
  EXPECT_TRUE(copies_fill_nodes_alone(*with_extender.engine, with_extender.extender.get(), cluster_of(plain),
                                      pod_of(plain)));
  struct AcrossHttp final : CycleBackend {
    std::vector<FilterStatus> filter(const SimCluster&, const Pod&,
                                     std::span<const NodeInfo* const>) override {
      return {};
    }
    std::vector<int64_t> score(const SimCluster&, const Pod&, std::span<const NodeInfo* const>) override {
      return {};
    }
    std::vector<preemption::Candidate> preempt(const SimCluster&, const Pod&,
                                               std::vector<preemption::Candidate> c) override {
      return c;
    }
  } remote;
  EXPECT_FALSE(copies_fill_nodes_alone(*config.engine, &remote, cluster_of(plain), pod_of(plain)));
}

TEST(HowManyFit, CopiesAreNamedAsClusterCapacityNamesThem) {
  Pod p = sim_pod("web", 100, 5);
  p.preemption_policy = "PreemptLowerPriority";
  const Pod copy = copy_of(p, 3);
  EXPECT_EQ(copy.name, "web-3");
  EXPECT_EQ(copy.namespace_, "default");
  EXPECT_NE(copy.uid, p.uid);
  EXPECT_EQ(copy.preemption_policy, "Never");
  EXPECT_EQ(copy.priority, 5);
  EXPECT_TRUE(copy.node_name.empty());
}

}  // namespace
}  // namespace how_many_fit_test
}  // namespace kext::sim::capacity
