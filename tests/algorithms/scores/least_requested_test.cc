#include "algorithms/scores/least_requested.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace least_requested_test {
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
      // Example 1: cpu (4000-2000)*10/4000 = 5; memory 8Gi-(2Gi+200Mi) -> 7.256 -> 7; (5+7)/2 = 6.
      {"example 1",
       make_pod("p", 500, 0),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)})},
       {6}},
      // The three nodes of the balanced-allocation table, v1.16 arithmetic: A 5 / B 4 / C 4.
      {"worked combination",
       make_pod("p", 500, GiB),
       {node_info(make_node("A", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)}),
        node_info(make_node("B", 4000, 8 * GiB), {make_pod("b", 3000, GiB)}),
        node_info(make_node("C", 4000, 8 * GiB), {make_pod("c", 500, 6 * GiB)})},
       {5, 4, 4}},
      {"empty node, empty pod request scores the defaults",
       make_best_effort_pod("p"),
       // cpu (1000-100)*10/1000 = 9; memory (1000Mi-200Mi)*10/1000Mi = 8; (9+8)/2 = 8.
       {node_info(make_node("n", 1000, 1000 * MiB))},
       {8}},
      {"explicit zero requests take no default",
       make_pod_with("p", {explicit_container(0, 0)}),
       {node_info(make_node("n", 1000, 1000 * MiB))},
       {10}},
      // Request-less pods on the node still count 100m / 200Mi each.
      {"node's best-effort pods count their defaults",
       make_pod("p", 100, 100 * MiB),
       // cpu 1000 - (5*100 + 100) = 400 -> 4; memory 2000Mi - (1000Mi + 100Mi) = 900Mi -> 4.
       {node_info(make_node("n", 1000, 2000 * MiB),
                  {make_best_effort_pod("a"), make_best_effort_pod("b"), make_best_effort_pod("c"),
                   make_best_effort_pod("d"), make_best_effort_pod("e")})},
       {4}},
      {"exactly full scores 0", make_pod("p", 1000, GiB), {node_info(make_node("n", 1000, GiB))}, {0}},
      {"over-committed resource scores 0, the other still counts",
       make_pod("p", 2000, GiB / 2),
       // cpu r > c -> 0; memory (1Gi - 0.5Gi)*10/1Gi = 5; (0+5)/2 = 2.
       {node_info(make_node("n", 1000, GiB))},
       {2}},
      {"zero allocatable scores 0 for that resource",
       make_pod("p", 500, GiB / 2),
       // cpu c == 0 -> 0; memory 5; (0 + 5)/2 = 2.
       {node_info(make_node("n", 0, GiB))},
       {2}},
      {"integer division per resource then for the average",
       make_pod("p", 1, 1),
       // cpu 999*10/1000 = 9.99 -> 9; memory 9; 9.
       {node_info(make_node("n", 1000, 1000))},
       {9}},
  };
}

TEST(LeastRequested, NameAndNoReduce) {
  auto s = make_least_requested_score();
  EXPECT_EQ(s->name(), "LeastRequestedPriority");
  EXPECT_FALSE(s->has_reduce());
}

TEST(LeastRequested, Table) {
  auto s = make_least_requested_score();
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
  }
}

TEST(LeastRequested, HugeAllocatableDoesNotOverflow) {
  auto s = make_least_requested_score();
  int64_t big = std::numeric_limits<int64_t>::max() / 2;
  std::vector<NodeInfo> nodes = {node_info(make_node("n", big, big))};
  EXPECT_EQ(run_score(*s, make_pod("p", 1, 1), nodes), std::vector<int64_t>{9});
}

// Saturating sums: an 8Ei request on top of the node's pods is over capacity (memory scores 0), and a
// score never leaves 0..10. The wrapped sums gave 8 or 2147483650.
TEST(LeastRequested, EightExbibyteRequestsSaturate) {
  const std::vector<Case> cases = {
      // cpu (4000-2000)*10/4000 = 5, memory 0 -> 2.
      {"8Ei pod on a busy node",
       make_pod("p", 500, k8Ei),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)})},
       {2}},
      // cpu (4000-1000)*10/4000 = 7, memory 0 -> 3 (the wrapped -2 bytes scored memory 10).
      {"two 8Ei containers",
       make_pod_with("p", {make_container(500, k8Ei, "a"), make_container(500, k8Ei, "b")}),
       {node_info(make_node("n", 4000, 8 * GiB))},
       {3}},
      // cpu (4000-700)*10/4000 = 8, memory 0 -> 4.
      {"node holding two 8Ei pods",
       make_pod("p", 500, GiB),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 100, k8Ei), make_pod("b", 100, k8Ei)})},
       {4}},
  };
  auto s = make_least_requested_score();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
  }
}

// The node's pods add up to a negative amount, which only a hand-built PodInfo can carry (the decoder
// refuses negative quantities and compute_pod_requests clamps them at 0): the score stays in 0..10.
TEST(LeastRequested, NegativeNodeRequestsStayInRange) {
  NodeInfo node = node_info(make_node("n", 4000, 8 * GiB));
  auto meta = std::make_shared<const PodMeta>();
  Resources negative;
  negative.memory = -k8Ei;
  node.add_pod(std::make_shared<const PodInfo>(PodInfo{meta, negative, negative}));
  // cpu (4000-500)*10/4000 = 8; memory clamps to 10.
  EXPECT_EQ(run_score(*make_least_requested_score(), make_pod("p", 500, GiB), {node}),
            std::vector<int64_t>{9});
}

}  // namespace
}  // namespace least_requested_test
}  // namespace kext
