#include "algorithms/scores/requested_to_capacity_ratio.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace requested_to_capacity_ratio_test {
namespace {

using testing::explicit_container;
using testing::GiB;
using testing::k8Ei;
using testing::make_container;
using testing::make_node;
using testing::make_pod;
using testing::make_pod_with;
using testing::MiB;
using testing::node_info;
using testing::run_score;

using Shape = std::vector<UtilizationShapePoint>;

const Shape kLinearUp = {{0, 0}, {100, 10}};
const Shape kThreePoint = {{0, 0}, {50, 2}, {100, 10}};
const Shape kLegacyDefault = {{0, 10}, {100, 0}};  // the pre-v1.17 default: favour empty nodes

TEST(BrokenLinear, InterpolatesWithIntegerDivision) {
  // A 3-point shape on the 0..10 scale: f(27) = 2*27/50 = 1 (1.08), f(50) = 2,
  // f(80) = 2 + 8*30/50 = 6 (6.8). (On kube-scheduler's 0..100 scale: 10, 20, 68.)
  EXPECT_EQ(broken_linear(kThreePoint, 27), 1);
  EXPECT_EQ(broken_linear(kThreePoint, 50), 2);
  EXPECT_EQ(broken_linear(kThreePoint, 80), 6);
  EXPECT_EQ(broken_linear(kThreePoint, 100), 10);
  EXPECT_EQ(broken_linear(kThreePoint, 0), 0);
}

TEST(BrokenLinear, EdgesAndDecreasingShapes) {
  const Shape offset = {{10, 3}, {90, 7}};
  EXPECT_EQ(broken_linear(offset, 5), 3);   // before the first point: its score
  EXPECT_EQ(broken_linear(offset, 95), 7);  // past the last point: the last score
  EXPECT_EQ(broken_linear(offset, 50), 5);  // 3 + 4*40/80
  // Go truncates toward zero, so a falling line rounds up: 10 + (-10*27)/100 = 10 - 2 = 8.
  EXPECT_EQ(broken_linear(kLegacyDefault, 27), 8);
  EXPECT_EQ(broken_linear(kLegacyDefault, 50), 5);
  EXPECT_EQ(broken_linear(Shape{}, 50), 0);
}

// Example 1: allocatable 4000m / 8Gi, non-zero requested 1500m / 2Gi, pod 500m and no memory
// request (200Mi default): cpu util 2000*100/4000 = 50, memory util 2357198848*100/8Gi = 27.
std::vector<NodeInfo> example1_nodes() {
  return {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)})};
}
Pod example1_pod() { return make_pod("p", 500, 0); }

struct Case {
  std::string name;
  RequestedToCapacityRatioArgs args;
  Pod pod;
  std::vector<NodeInfo> nodes;
  std::vector<int64_t> want;
};

Pod with_gpu(Pod p, int64_t n) {
  p.containers.at(0).requests.set_scalar("nvidia.com/gpu", n);
  return p;
}

Node gpu_node(std::string name, int64_t gpus) {
  Node n = make_node(std::move(name), 4000, 8 * GiB);
  n.allocatable.set_scalar("nvidia.com/gpu", gpus);
  return n;
}

std::vector<Case> cases() {
  return {
      // cpu f(50) = 5, memory f(27) = 10*27/100 = 2 (the broken line divides in integers before the
      // mean); (5 + 2) / 2 = 3.5, rounded half away from zero = 4. Integer division would say 3.
      {"example 1, linear up", {kLinearUp, {}}, example1_pod(), example1_nodes(), {4}},
      // Weights cpu 3, memory 1: (15 + 2) / 4 = 4.25 -> 4.
      {"example 1, weighted",
       {kLinearUp, {{"cpu", 3}, {"memory", 1}}},
       example1_pod(),
       example1_nodes(),
       {4}},
      // 3-point shape: cpu f(50) = 2, memory f(27) = 1; 1.5 -> 2.
      {"example 1, three points", {kThreePoint, {}}, example1_pod(), example1_nodes(), {2}},
      // Legacy default shape: cpu f(50) = 5, memory f(27) = 8; 6.5 -> 7.
      {"example 1, legacy default shape", {kLegacyDefault, {}}, example1_pod(), example1_nodes(), {7}},
      // Weight 0 is read as 1 (legacy policy loader), so this equals the unweighted case.
      {"weight 0 means 1", {kLinearUp, {{"cpu", 0}, {"memory", 0}}}, example1_pod(), example1_nodes(), {4}},
      {"cpu only", {kLinearUp, {{"cpu", 1}}}, example1_pod(), example1_nodes(), {5}},
      // cpu util 100*100/4000 = 2 -> f = 0 and leaves the mean; memory 4Gi+200Mi of 8Gi = 52 -> 5.
      // Averaging the zero in would have given 2.5 -> 3.
      {"zero-score resource leaves the weight sum",
       {kLinearUp, {}},
       make_pod("p", 100, 0),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod_with("a", {explicit_container(0, 4 * GiB)})})},
       {5}},
      {"every resource scores zero",
       {kLinearUp, {}},
       make_pod_with("p", {explicit_container(0, 0)}),
       {node_info(make_node("n", 4000, 8 * GiB))},
       {0}},
      // Over capacity scores f(100), not 0: the falling shape gives 0, the rising one 10.
      {"over capacity, rising",
       {kLinearUp, {{"cpu", 1}}},
       make_pod("p", 5000, 0),
       {node_info(make_node("n", 4000, 8 * GiB))},
       {10}},
      {"over capacity, falling",
       {kLegacyDefault, {{"cpu", 1}}},
       make_pod("p", 5000, 0),
       {node_info(make_node("n", 4000, 8 * GiB))},
       {0}},
      // Allocatable cpu 0 is skipped entirely: only memory (27 -> 2) is averaged.
      {"zero allocatable skipped",
       {kLinearUp, {}},
       example1_pod(),
       {node_info(make_node("n", 0, 8 * GiB), {make_pod("a", 1500, 2 * GiB)})},
       {2}},
      // Pod: cpu 500, memory 1Gi, gpu 1; on the node, pod a (defaults 100m / 200Mi) holds 1 gpu.
      // cpu util 600*100/4000 = 15 -> 1; memory util (1Gi+200Mi)*100/8Gi = 14 -> 1; gpu 50 -> 5.
      // (1 + 1 + 5*2) / 4 = 3.
      {"extended resource with weight",
       {kLinearUp, {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 2}}},
       with_gpu(make_pod("p", 500, GiB), 1),
       {node_info(gpu_node("n", 4), {with_gpu(make_pod("a", 0, 0), 1)})},
       {3}},
      // A pod that does not ask for the gpu skips that resource, so a gpu node is not penalised or
      // favoured for it: (1 + 1) / 2 = 1 on both nodes.
      {"unrequested extended resource skipped",
       {kLinearUp, {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 2}}},
       make_pod("p", 500, GiB),
       {node_info(gpu_node("gpu", 4), {with_gpu(make_pod("a", 0, 0), 4)}),
        node_info(make_node("plain", 4000, 8 * GiB), {make_pod("a", 0, 0)})},
       {1, 1}},
      // Requested on a node without that resource: allocatable 0, skipped.
      {"extended resource missing on node",
       {kLinearUp, {{"nvidia.com/gpu", 1}}},
       with_gpu(make_pod("p", 500, GiB), 1),
       {node_info(make_node("n", 4000, 8 * GiB))},
       {0}},
      {"ephemeral storage uses actual requests",
       {kLinearUp, {{"ephemeral-storage", 1}}},
       [] {
         Pod p = make_pod("p", 500, GiB);
         p.containers.at(0).requests.ephemeral_storage = 30 * GiB;
         return p;
       }(),
       [] {
         Node n = make_node("n", 4000, 8 * GiB);
         n.allocatable.ephemeral_storage = 100 * GiB;
         return std::vector<NodeInfo>{node_info(n)};
       }(),
       {3}},
      // The rising shape packs: the busier node scores higher.
      {"packing order",
       {kLinearUp, {}},
       make_pod("p", 1000, 2 * GiB),
       {node_info(make_node("idle", 4000, 8 * GiB)),
        node_info(make_node("busy", 4000, 8 * GiB), {make_pod("a", 2000, 4 * GiB)})},
       // idle: cpu 25 -> 2, memory 25 -> 2 -> 2; busy: 75 -> 7, 75 -> 7 -> 7.
       {2, 7}},
  };
}

TEST(RequestedToCapacityRatio, NameAndNoReduce) {
  auto s = make_requested_to_capacity_ratio_score({kLinearUp, {}});
  EXPECT_EQ(s->name(), "RequestedToCapacityRatioPriority");
  EXPECT_FALSE(s->has_reduce());
}

TEST(RequestedToCapacityRatio, Table) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    auto s = make_requested_to_capacity_ratio_score(c.args);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
  }
}

TEST(RequestedToCapacityRatio, HugeQuantitiesDoNotOverflow) {
  int64_t big = std::numeric_limits<int64_t>::max() / 4;
  auto s = make_requested_to_capacity_ratio_score({kLinearUp, {}});
  std::vector<NodeInfo> nodes = {node_info(make_node("n", 2 * big, 2 * big))};
  EXPECT_EQ(run_score(*s, make_pod("p", big, big), nodes), std::vector<int64_t>{5});
}

TEST(BrokenLinear, ExtremeShapesDoNotOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // 0 + 10 * (0 - min) / (max - min) = 5.000...: the differences alone overflow int64.
  EXPECT_EQ(broken_linear(Shape{{kMin, 0}, {kMax, 10}}, 0), 5);
  // min + (max - min) * 50 / 100 = -1.
  EXPECT_EQ(broken_linear(Shape{{0, kMin}, {100, kMax}}, 50), -1);
}

// Saturating sums: an 8Ei request on top of the node's pods is over capacity and scores f(100); the
// wrapped sums gave a negative utilization that scored f(0) and dropped out of the mean.
TEST(RequestedToCapacityRatio, EightExbibyteRequestsSaturate) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  Pod two_8ei_storage = make_pod_with("p", {make_container(500, GiB, "a"), make_container(500, GiB, "b")});
  for (auto& c : two_8ei_storage.containers) c.requests.ephemeral_storage = k8Ei;
  Node storage_node = make_node("n", 4000, 8 * GiB);
  storage_node.allocatable.ephemeral_storage = 100 * GiB;
  const std::vector<Case> cases = {
      // cpu f(50) = 5, memory f(100) = 10: 7.5 -> 8.
      {"8Ei pod on a busy node", {kLinearUp, {}}, make_pod("p", 500, k8Ei), example1_nodes(), {8}},
      // cpu (200+500)*100/4000 = 17 -> 1, memory over capacity -> 10: 5.5 -> 6.
      {"node holding two 8Ei pods",
       {kLinearUp, {}},
       make_pod("p", 500, GiB),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 100, k8Ei), make_pod("b", 100, k8Ei)})},
       {6}},
      {"node holding two 8Ei gpu pods",
       {kLinearUp, {{"nvidia.com/gpu", 1}}},
       with_gpu(make_pod("p", 500, GiB), 1),
       {node_info(gpu_node("n", 4),
                  {with_gpu(make_pod("a", 0, 0), k8Ei), with_gpu(make_pod("b", 0, 0), k8Ei)})},
       {10}},
      {"two 8Ei ephemeral-storage containers",
       {kLinearUp, {{"ephemeral-storage", 1}}},
       two_8ei_storage,
       {node_info(storage_node)},
       {10}},
      // The weighted mean is exact: (5 max + 2 max) / 2 max = 3.5 -> 4.
      {"int64 max weights",
       {kLinearUp, {{"cpu", kMax}, {"memory", kMax}}},
       example1_pod(),
       example1_nodes(),
       {4}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto s = make_requested_to_capacity_ratio_score(c.args);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
  }
}

}  // namespace
}  // namespace requested_to_capacity_ratio_test
}  // namespace kext
