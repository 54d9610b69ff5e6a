#include "algorithms/scores/balanced_resource_allocation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algorithms/catalogue.h"
#include "tests/support/test_builders.h"

namespace kext {
namespace balanced_resource_allocation_test {
namespace {

using testing::explicit_container;
using testing::GiB;
using testing::k8Ei;
using testing::make_best_effort_pod;
using testing::make_container;
using testing::make_node;
using testing::make_pod;
using testing::make_pod_with;
using testing::MiB;
using testing::node_info;
using testing::run_score;

struct Case {
  std::string name;
  Pod pod;
  std::vector<NodeInfo> nodes;
  std::vector<int64_t> want;
};

std::vector<Case> cases() {
  return {
      // Three nodes, v1.16 arithmetic: A [0.5, 0.375] -> 8.75 -> 8; B [0.875, 0.25] -> 3.75 -> 3; C mirrored
      // -> 3.
      {"worked combination",
       make_pod("p", 500, GiB),
       {node_info(make_node("A", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)}),
        node_info(make_node("B", 4000, 8 * GiB), {make_pod("b", 3000, GiB)}),
        node_info(make_node("C", 4000, 8 * GiB), {make_pod("c", 500, 6 * GiB)})},
       {8, 3, 3}},
      // Example 2 at the v1.16 scale: non-zero memory adds 200Mi, f = [0.5, 0.2744] -> 7.74 -> 7.
      {"example 2 uses non-zero requests",
       make_pod("p", 500, 0),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)})},
       {7}},
      {"perfectly balanced", make_pod("p", 1000, 2 * GiB), {node_info(make_node("n", 4000, 8 * GiB))}, {10}},
      {"empty pod on empty node uses the defaults",
       make_best_effort_pod("p"),
       // f = [0.1, 0.2] -> (1 - 0.1) * 10 = 9.
       {node_info(make_node("n", 1000, 1000 * MiB))},
       {9}},
      {"explicit zero requests on an empty node",
       make_pod_with("p", {explicit_container(0, 0)}),
       {node_info(make_node("n", 1000, 1000 * MiB))},
       {10}},
      // A fraction of exactly 1 means "never prefer", however balanced the other one is.
      {"full cpu scores 0",
       make_pod("p", 1000, 999 * MiB),
       {node_info(make_node("n", 1000, 1000 * MiB))},
       {0}},
      {"over-committed memory scores 0",
       make_pod("p", 100, 2 * GiB),
       {node_info(make_node("n", 1000, GiB))},
       {0}},
      {"zero allocatable counts as full",
       make_pod("p", 100, 100 * MiB),
       {node_info(make_node("n", 0, GiB))},
       {0}},
      // 0.7 - 0.3 = 0.39999999999999997 in double, so (1 - diff) * 10 = 6.000000000000001 -> 6.
      {"truncation toward zero", make_pod("p", 700, 300), {node_info(make_node("n", 1000, 1000))}, {6}},
      // f = [0.6, 0.8]: exact arithmetic gives 8, but in double (1 - 0.20000000000000007) * 10 is
      // 7.999999999999999, and Go's int64() truncates that to 7.
      {"double arithmetic matches Go, not exact math",
       make_pod("p", 3, 4),
       {node_info(make_node("n", 5, 5))},
       {7}},
  };
}

TEST(BalancedResourceAllocation, NameAndNoReduce) {
  auto s = make_balanced_resource_allocation_score();
  EXPECT_EQ(s->name(), "BalancedResourceAllocation");
  EXPECT_FALSE(s->has_reduce());
}

TEST(BalancedResourceAllocation, Table) {
  auto s = make_balanced_resource_allocation_score();
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
  }
}

// Saturating sums: an 8Ei request on top of the node's pods is a full memory (score 0), never a
// negative fraction; the wrapped sums scored 7 or 9 on full nodes, or went negative.
TEST(BalancedResourceAllocation, EightExbibyteRequestsSaturate) {
  const std::vector<Case> cases = {
      {"8Ei pod on a busy node",
       make_pod("p", 500, k8Ei),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)})},
       {0}},
      {"two 8Ei containers",
       make_pod_with("p", {make_container(500, k8Ei, "a"), make_container(500, k8Ei, "b")}),
       {node_info(make_node("n", 4000, 8 * GiB))},
       {0}},
      {"node holding two 8Ei pods",
       make_pod("p", 500, GiB),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 100, k8Ei), make_pod("b", 100, k8Ei)})},
       {0}},
      // Negative allocatable (refused by the decoder): a fraction of -2e8 must give 0, not -2e9.
      {"negative allocatable stays in range",
       make_pod("p", 500, 200 * MiB),
       {node_info(make_node("n", 4000, -1))},
       {0}},
  };
  auto s = make_balanced_resource_allocation_score();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
  }
}

// NodeResourcesBalancedAllocation (balanced_allocation.go) by minor, through the catalogue as a profile
// builds it, on kube-scheduler's 0..100: each row at the minor a change starts and at the one before.
TEST(NodeResourcesBalancedAllocation, ByMinor) {
  // 4000m / 10000 bytes holding 1140m / 4100: fractions 0.285 and 0.41 without the pod.
  const NodeInfo busy = node_info(make_node("n", 4000, 10000), {make_pod("a", 1140, 4100)});
  // Perfectly balanced without the pod: 0.5 and 0.5.
  const NodeInfo balanced = node_info(make_node("n", 4000, 10000), {make_pod("a", 2000, 5000)});
  const NodeInfo empty = node_info(make_node("n", 4000, 10000));
  Pod with_storage = make_pod("p", 500, 1000);
  with_storage.containers[0].requests.ephemeral_storage = 3;
  Node storage_node = make_node("n", 4000, 10000);
  storage_node.allocatable.ephemeral_storage = 10;
  const std::vector<ResourceWeight> cpu_mem = {{"cpu", 1}, {"memory", 1}};
  const std::vector<ResourceWeight> with_ephemeral = {{"cpu", 1}, {"memory", 1}, {"ephemeral-storage", 1}};
  struct Case {
    std::string name;
    int minor;
    std::vector<ResourceWeight> resources;
    Pod pod;
    NodeInfo node;
    int64_t want;
  };
  const std::vector<Case> cases = {
      // 1.33 (kubernetes PR #130260): a best-effort pod is skipped. Before, the node's own fractions:
      // std = |0.285 - 0.41| / 2 = 0.0625, int64(93.75) = 93.
      {"best-effort pod", 32, cpu_mem, make_best_effort_pod("p"), busy, 93},
      {"best-effort pod", 33, cpu_mem, make_best_effort_pod("p"), busy, 0},
      {"best-effort pod", 36, cpu_mem, make_best_effort_pod("p"), busy, 0},
      // Explicit zeros are best-effort too (actual requests, not the scoring defaults).
      {"explicit zero requests", 32, cpu_mem, make_pod_with("p", {explicit_container(0, 0)}), busy, 93},
      {"explicit zero requests", 33, cpu_mem, make_pod_with("p", {explicit_container(0, 0)}), busy, 0},
      // 1.36 (kubernetes PR #135573): 50 + (50 + with - without) / 2. With the pod 0.41 and 0.51: 95;
      // without: 93; 50 + 52 / 2 = 76.
      {"pod improves a busy node", 35, cpu_mem, make_pod("p", 500, 1000), busy, 95},
      {"pod improves a busy node", 36, cpu_mem, make_pod("p", 500, 1000), busy, 76},
      // With 0.75 and 0.5: 87; without: 100; 50 + 37 / 2 = 68 (integer halving).
      {"pod unbalances a balanced node", 35, cpu_mem, make_pod("p", 1000, 0), balanced, 87},
      {"pod unbalances a balanced node", 36, cpu_mem, make_pod("p", 1000, 0), balanced, 68},
      // An empty node is balanced without the pod: with 0.125 and 0.1: 98; 50 + 48 / 2 = 74.
      {"empty node", 35, cpu_mem, make_pod("p", 500, 1000), empty, 98},
      {"empty node", 36, cpu_mem, make_pod("p", 500, 1000), empty, 74},
      // Three resources, population std: with 0.41, 0.51, 0.3: 91; without 0.285, 0.41, 0: 82;
      // 50 + 59 / 2 = 79.
      {"three resources", 35, with_ephemeral, with_storage,
       node_info(storage_node, {make_pod("a", 1140, 4100)}), 91},
      {"three resources", 36, with_ephemeral, with_storage,
       node_info(storage_node, {make_pod("a", 1140, 4100)}), 79},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name + " at 1." + std::to_string(c.minor));
    PluginArgs args;
    args.balanced.resources = c.resources;
    args.version = KubeVersion{c.minor};
    auto plugin = make_plugin_score("NodeResourcesBalancedAllocation", args);
    ASSERT_NE(plugin, nullptr);
    EXPECT_EQ(run_score(plugin->on_scheduler_scale(), c.pod, {c.node}), std::vector<int64_t>{c.want});
    EXPECT_EQ(run_score(*plugin, c.pod, {c.node}), std::vector<int64_t>{c.want / kWireDivisor});
  }
}

// Scalars the pod does not ask for stay out of both balances of the 1.36 formula, as out of the one
// before: a GPU node and a plain one score the same.
TEST(NodeResourcesBalancedAllocation, UnrequestedScalarOutOfBothBalances) {
  Node gpu = make_node("gpu", 4000, 10000);
  gpu.allocatable.set_scalar("nvidia.com/gpu", 8);
  const std::vector<NodeInfo> nodes = {
      node_info(gpu, {make_pod("a", 1140, 4100)}),
      node_info(make_node("plain", 4000, 10000), {make_pod("a", 1140, 4100)})};
  const BalancedAllocationArgs args{{{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}}};
  EXPECT_EQ(run_score(*make_node_resources_balanced_allocation_score(args, KubeVersion{36}),
                      make_pod("p", 500, 1000), nodes),
            (std::vector<int64_t>{76, 76}));
}

}  // namespace
}  // namespace balanced_resource_allocation_test
}  // namespace kext
