// "What if these nodes go?": a drain's evictions, replacements, pending pods and budgets, each answer
// worked out by hand from the nodes' room, under kube-scheduler's default profile.
#include "sim/capacity/drain.h"

#include <gtest/gtest.h>

#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::sim::capacity {
namespace drain_test {
namespace {

using kext::testing::GiB;
using kext::testing::make_node;
using sim::testing::kEpoch;
using sim::testing::sim_pod;

// A running pod of `cpu` millicores on `node`, of a ReplicaSet when `owner` names one ("" for none;
// "DaemonSet" for a DaemonSet's).
Pod running(const std::string& name, int64_t cpu, const std::string& node, const std::string& owner,
            int32_t priority = 0) {
  Pod p = sim_pod(name, cpu, priority, node, kEpoch - 600);
  if (owner == "DaemonSet") {
    p.controller_kind = "DaemonSet";
    p.controller_name = "agent";
  } else if (!owner.empty()) {
    p.controller_kind = "ReplicaSet";
    p.controller_name = owner;
    p.labels = Labels{{"app", owner}};
  }
  return p;
}

// n1: two web pods (1 CPU each), a pod of no controller (1 CPU) and a DaemonSet's (100m); n2: 2 CPU
// requested; n3: 3.5 CPU. The web budget allows one disruption.
SimCluster cluster() {
  SimCluster c;
  for (const char* n : {"n1", "n2", "n3"}) {
    Node node = make_node(n, 4000, 16 * GiB);
    node.labels = {{"pool", std::string(n) == "n3" ? "b" : "a"}};
    c.add_node(std::move(node));
  }
  c.add_pod(running("web-0", 1000, "n1", "web"));
  c.add_pod(running("web-1", 1000, "n1", "web"));
  c.add_pod(running("bare", 1000, "n1", ""));
  c.add_pod(running("agent-n1", 100, "n1", "DaemonSet"));
  c.add_pod(running("db", 2000, "n2", "db"));
  c.add_pod(running("cache", 3500, "n3", "cache"));
  c.add_pdb(PodDisruptionBudget{"web", "default", LabelSelector{{{"app", "web"}}, {}}, 1, {}});
  return c;
}

DrainAnswer drained(SimCluster c, const std::string& nodes) {
  const simtool::SimConfig config = simtool::load_sim_config("");
  SimulatorOptions options;
  simtool::apply(config, options);
  options.epoch_unix_seconds = kEpoch;
  const std::vector<std::string> names = nodes_to_drain(c, nodes);
  return drain(std::move(c), *config.engine, options, names);
}

// n1 drained: both web replacements fit on n2 (2 CPU free); the bare pod has nothing to bring it back,
// so the drain is not safe; the web budget, 2 evictions for 1 allowed, makes the drain wait for the
// first replacement but does not block it.
TEST(Drain, ReplacementsLandWhereThereIsRoomAndBarePodsAreLost) {
  const DrainAnswer a = drained(cluster(), "n1");
  EXPECT_EQ(a.nodes, (std::vector<std::string>{"n1"}));
  EXPECT_EQ(a.placed, (std::vector<EvictedPod>{{"default/web-0", "n1", 0, "n2", ""},
                                               {"default/web-1", "n1", 0, "n2", ""}}));
  EXPECT_TRUE(a.pending.empty());
  EXPECT_EQ(a.unreplaced, (std::vector<std::string>{"default/bare"}));
  EXPECT_EQ(a.daemon_pods, (std::vector<std::string>{"default/agent-n1"}));
  EXPECT_TRUE(a.preempted.empty());
  EXPECT_EQ(a.budgets, (std::vector<BudgetVerdict>{{"default/web", 2, 1, true, false}}));
  EXPECT_FALSE(a.safe);
}

// n1 and n2 drained (by their label): n3 has 0.5 CPU free, so no web replacement and no db
// replacement fits; the web budget blocks the drain, since the second eviction waits for a replacement
// that never runs.
TEST(Drain, ReplacementsThatFitNowhereStayPendingAndTheBudgetBlocks) {
  const DrainAnswer a = drained(cluster(), "pool=a");
  EXPECT_EQ(a.nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_TRUE(a.placed.empty());
  ASSERT_EQ(a.pending.size(), 3u);
  EXPECT_EQ(a.pending[0].pod, "default/web-0");
  EXPECT_EQ(a.pending[2].pod, "default/db");
  EXPECT_EQ(a.pending[2].from, "n2");
  EXPECT_TRUE(a.pending[0].reason.starts_with(
      "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) were unschedulable."))
      << a.pending[0].reason;
  EXPECT_EQ(a.budgets, (std::vector<BudgetVerdict>{{"default/web", 2, 1, true, true}}));
  EXPECT_FALSE(a.safe);
}

// A replacement of a higher priority than what runs elsewhere preempts it, as the scheduler would:
// the drain then disrupts a pod it did not evict.
TEST(Drain, AHigherPriorityReplacementPreemptsAndTheDrainIsNotSafe) {
  SimCluster c;
  c.add_node(make_node("n1", 4000, 16 * GiB));
  c.add_node(make_node("n2", 4000, 16 * GiB));
  c.add_pod(running("critical", 3000, "n1", "critical", 1000));
  c.add_pod(running("batch", 3000, "n2", "batch", 0));
  const DrainAnswer a = drained(std::move(c), "n1");
  EXPECT_EQ(a.placed, (std::vector<EvictedPod>{{"default/critical", "n1", 1000, "n2", ""}}));
  EXPECT_EQ(a.preempted, (std::vector<std::string>{"default/batch"}));
  EXPECT_FALSE(a.safe);
}

TEST(Drain, AnEmptyNodeDrainsSafely) {
  SimCluster c = cluster();
  c.add_node(make_node("spare", 4000, 16 * GiB));
  const DrainAnswer a = drained(std::move(c), "spare");
  EXPECT_TRUE(a.placed.empty());
  EXPECT_TRUE(a.budgets.empty());
  EXPECT_TRUE(a.safe);
}

TEST(Drain, NodesToDrainByNameOrLabelsInTheClustersOrder) {
  const SimCluster c = cluster();
  EXPECT_EQ(nodes_to_drain(c, "n3, n1"), (std::vector<std::string>{"n1", "n3"}));
  EXPECT_EQ(nodes_to_drain(c, "pool=b"), (std::vector<std::string>{"n3"}));
  auto error = [&](const std::string& arg) {
    try {
      nodes_to_drain(c, arg);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("n1,n9"), "--drain: no node \"n9\" in the cluster");
  EXPECT_EQ(error("pool=z"), "--drain pool=z: no node has those labels");
  EXPECT_EQ(error("n1,pool=a"), "--drain n1,pool=a: node names or key=value labels, not both");
  EXPECT_EQ(error(" , "), "--drain: names no node");
}

}  // namespace
}  // namespace drain_test
}  // namespace kext::sim::capacity
