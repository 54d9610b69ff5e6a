// "Would nodes of this shape help the pending pods?", each answer worked out by hand: how few nodes
// place them all, what each lets bind, the pods that fit already, a pod no such node can take, a gang
// that needs its room in one rack, and a limit on the nodes added.
#include "sim/capacity/add_node.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::sim::capacity {
namespace add_node_test {
namespace {

using kext::testing::GiB;
using kext::testing::make_node;
using sim::testing::kEpoch;
using sim::testing::sim_pod;

constexpr const char* kRack = "example.com/rack";

struct Case {
  std::string name{};
  int64_t free_cpu = 0;         // one node of the cluster (rack r1), this much of its 4 CPUs free
  std::vector<int64_t> pods{};  // pending pods' CPU (millicores), named p0, p1, ...
  size_t gang = 0;              // the first `gang` pods are a PodGroup of that minMember
  bool gang_in_one_rack = false;
  std::string template_rack = "r2";  // "" for a template without the rack label
  size_t max_nodes = 0;
  // The answer, by hand.
  size_t needed = 0;
  std::vector<size_t> per_node{};  // pods each added node lets bind, in order
  size_t fit_already = 0;
  size_t still_pending = 0;
  bool stopped_at_max = false;
};

SimCluster cluster_of(const Case& c) {
  SimCluster cluster;
  Node node = make_node("r1-n1", 4000, 16 * GiB);
  node.labels[kRack] = "r1";
  cluster.add_node(std::move(node));
  if (c.free_cpu < 4000) cluster.add_pod(sim_pod("running", 4000 - c.free_cpu, 0, "r1-n1"));
  return cluster;
}

std::vector<Pod> pending_of(const Case& c) {
  std::vector<Pod> pods;
  for (size_t i = 0; i < c.pods.size(); ++i) {
    Pod p = sim_pod("p" + std::to_string(i), c.pods[i], 0);
    if (i < c.gang) p.labels = SharedLabels(Labels{{std::string(gang::kPodGroupLabel), "train"}});
    pods.push_back(std::move(p));
  }
  return pods;
}

gang::GroupMap groups_of(const Case& c) {
  gang::GroupMap groups;
  if (c.gang == 0) return groups;
  gang::PodGroupSpec g;
  g.namespace_ = "default";
  g.name = "train";
  g.min_member = static_cast<int32_t>(c.gang);
  g.creation_unix_seconds = kEpoch;
  if (c.gang_in_one_rack) g.topology.required = kRack;
  groups.emplace(g.key(), g);
  return groups;
}

Node template_of(const Case& c) {
  Node n = make_node("big", 4000, 16 * GiB);
  if (!c.template_rack.empty()) n.labels[kRack] = c.template_rack;
  return n;
}

TEST(AddNode, NodesWorkedOutByHand) {
  const std::vector<Case> cases = {
      {.name = "three pods of 3 CPU on nodes of 4: one node each",
       .pods = {3000, 3000, 3000},
       .needed = 3,
       .per_node = {1, 1, 1}},
      {.name = "six pods of 1 CPU: two nodes, three each (the scores spread them)",
       .pods = {1000, 1000, 1000, 1000, 1000, 1000},
       .needed = 2,
       .per_node = {3, 3}},
      {.name = "one of three fits the 3 CPUs free already; two nodes for the others",
       .free_cpu = 3000,
       .pods = {3000, 3000, 3000},
       .needed = 2,
       .per_node = {1, 1},
       .fit_already = 1},
      {.name = "16 CPU: no node of 4 takes it, whatever their number",
       .pods = {16000},
       .needed = 0,
       .still_pending = 1},
      {.name = "a gang of 4 × 2 CPU with 2 CPUs free in rack r1: two new nodes, none of r1's room",
       .free_cpu = 2000,
       .pods = {2000, 2000, 2000, 2000},
       .gang = 4,
       .gang_in_one_rack = true,
       .needed = 2,
       .per_node = {2, 2}},
      {.name = "the same gang, its template without a rack: no node lets it bind",
       .free_cpu = 2000,
       .pods = {2000, 2000, 2000, 2000},
       .gang = 4,
       .gang_in_one_rack = true,
       .template_rack = "",
       .needed = 0,
       .still_pending = 4},
      {.name = "at most two nodes for five pods of 3 CPU: three stay pending, more nodes would help",
       .pods = {3000, 3000, 3000, 3000, 3000},
       .max_nodes = 2,
       .needed = 2,
       .per_node = {1, 1},
       .still_pending = 3,
       .stopped_at_max = true},
  };
  const simtool::SimConfig config = simtool::load_sim_config("");
  SimulatorOptions options;
  simtool::apply(config, options);
  options.epoch_unix_seconds = kEpoch;
  options.topology_levels = {kRack};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const AddNodeAnswer a = add_nodes(cluster_of(c), *config.engine, options, groups_of(c), pending_of(c),
                                      template_of(c), c.max_nodes);
    EXPECT_EQ(a.template_node, "big");
    EXPECT_EQ(a.pending, c.pods.size());
    EXPECT_EQ(a.needed, c.needed);
    std::vector<size_t> per_node;
    for (const AddedNode& n : a.added) per_node.push_back(n.pods.size());
    EXPECT_EQ(per_node, c.per_node);
    for (size_t i = 0; i < a.added.size(); ++i)
      EXPECT_EQ(a.added[i].node, "big-new-" + std::to_string(i + 1));
    EXPECT_EQ(a.fit_already.size(), c.fit_already);
    EXPECT_EQ(a.still_pending.size(), c.still_pending);
    EXPECT_TRUE(a.elsewhere.empty());
    EXPECT_TRUE(a.preempted.empty());
    EXPECT_EQ(a.stopped_at_max, c.stopped_at_max);
    for (const StillPending& p : a.still_pending) EXPECT_NE(p.reason, "") << p.pod;
  }
}

TEST(AddNode, AStillPendingPodSaysWhyWithTheNodesAdded) {
  const Case c{.pods = {16000}};
  const simtool::SimConfig config = simtool::load_sim_config("");
  SimulatorOptions options;
  simtool::apply(config, options);
  const AddNodeAnswer a =
      add_nodes(cluster_of(c), *config.engine, options, {}, pending_of(c), template_of(c), 3);
  ASSERT_EQ(a.still_pending.size(), 1u);
  EXPECT_EQ(a.still_pending[0].pod, "default/p0");
  EXPECT_EQ(a.still_pending[0].reason, "0/4 nodes are available: 4 Insufficient cpu.");
  EXPECT_FALSE(a.stopped_at_max) << "none of the three took a pod";
}

TEST(AddNode, ACopyOfTheTemplateHasItsOwnNameAndHostname) {
  Node t = make_node("gpu", 8000, 64 * GiB);
  t.labels["kubernetes.io/hostname"] = "gpu";
  t.labels[kRack] = "r9";
  const Node copy = added_node(t, 3);
  EXPECT_EQ(copy.name, "gpu-new-3");
  EXPECT_EQ(copy.labels.at("kubernetes.io/hostname"), "gpu-new-3");
  EXPECT_EQ(copy.labels.at(kRack), "r9");
  EXPECT_EQ(copy.allocatable.milli_cpu, 8000);
}

}  // namespace
}  // namespace add_node_test
}  // namespace kext::sim::capacity
