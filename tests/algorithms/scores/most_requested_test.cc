#include "algorithms/scores/most_requested.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace most_requested_test {
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
      // Example 1: cpu 2000*10/4000 = 5; memory 2357198848*10/8589934592 = 2.74 -> 2; 7/2 = 3.
      {"example 1",
       make_pod("p", 500, 0),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)})},
       {3}},
      // The three nodes of the balanced-allocation table: A cpu 5, mem 3 -> 4; B cpu 8, mem 2 -> 5; C cpu 2,
      // mem 8 -> 5.
      {"worked combination nodes",
       make_pod("p", 500, GiB),
       {node_info(make_node("A", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)}),
        node_info(make_node("B", 4000, 8 * GiB), {make_pod("b", 3000, GiB)}),
        node_info(make_node("C", 4000, 8 * GiB), {make_pod("c", 500, 6 * GiB)})},
       {4, 5, 5}},
      {"best-effort pod scores its defaults",
       make_best_effort_pod("p"),
       // cpu 100*10/1000 = 1; memory 200Mi*10/1000Mi = 2; 3/2 = 1.
       {node_info(make_node("n", 1000, 1000 * MiB))},
       {1}},
      {"explicit zero requests take no default",
       make_pod_with("p", {explicit_container(0, 0)}),
       {node_info(make_node("n", 1000, 1000 * MiB))},
       {0}},
      {"exactly full scores 10", make_pod("p", 1000, GiB), {node_info(make_node("n", 1000, GiB))}, {10}},
      // v1.16 has no clamp: r > c is 0, which is why nodes full of request-less pods lost out.
      {"over-committed resource scores 0, no clamp",
       make_pod("p", 100, GiB),
       // cpu 100 + 10*100 = 1100 > 1000 -> 0 (MostAllocated's later clamp would give 10).
       {node_info(make_node("n", 1000, 4 * GiB),
                  {make_best_effort_pod("a"), make_best_effort_pod("b"), make_best_effort_pod("c"),
                   make_best_effort_pod("d"), make_best_effort_pod("e"), make_best_effort_pod("f"),
                   make_best_effort_pod("g"), make_best_effort_pod("h"), make_best_effort_pod("i"),
                   make_best_effort_pod("j")})},
       // memory (1024Mi + 10*200Mi)*10/4096Mi = 7.38 -> 7; (0 + 7)/2 = 3.
       {3}},
      {"zero allocatable scores 0 for that resource",
       make_pod("p", 500, GiB / 2),
       {node_info(make_node("n", 0, GiB))},
       {2}},
      {"higher utilisation wins",
       make_pod("p", 100, 100 * MiB),
       {node_info(make_node("empty", 1000, 1000 * MiB)),
        node_info(make_node("busy", 1000, 1000 * MiB), {make_pod("a", 700, 700 * MiB)})},
       {1, 8}},
  };
}

TEST(MostRequested, NameAndNoReduce) {
  auto s = make_most_requested_score();
  EXPECT_EQ(s->name(), "MostRequestedPriority");
  EXPECT_FALSE(s->has_reduce());
}

TEST(MostRequested, Table) {
  auto s = make_most_requested_score();
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
  }
}

TEST(MostRequested, HugeRequestsDoNotOverflow) {
  auto s = make_most_requested_score();
  int64_t big = std::numeric_limits<int64_t>::max() / 2;
  std::vector<NodeInfo> nodes = {node_info(make_node("n", big, big))};
  EXPECT_EQ(run_score(*s, make_pod("p", big, big), nodes), std::vector<int64_t>{10});
}

// Saturating sums: an 8Ei request on top of the node's pods is over capacity (memory scores 0), and a
// score never leaves 0..10. The wrapped sums gave negative scores or counted a full node as empty.
TEST(MostRequested, EightExbibyteRequestsSaturate) {
  const std::vector<Case> cases = {
      // cpu 2000*10/4000 = 5, memory 0 -> 2.
      {"8Ei pod on a busy node",
       make_pod("p", 500, k8Ei),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 1500, 2 * GiB)})},
       {2}},
      // cpu 700*10/4000 = 1, memory 0 -> 0 (the wrapped node total read as 1Gi - 2 bytes: 1).
      {"node holding two 8Ei pods",
       make_pod("p", 500, GiB),
       {node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 100, k8Ei), make_pod("b", 100, k8Ei)})},
       {0}},
      {"two 8Ei containers",
       make_pod_with("p", {make_container(500, k8Ei, "a"), make_container(500, k8Ei, "b")}),
       {node_info(make_node("n", 4000, 8 * GiB))},
       {1}},
  };
  auto s = make_most_requested_score();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
  }
}

// The node's pods add up to a negative amount, which only a hand-built PodInfo can carry (the decoder
// refuses negative quantities and compute_pod_requests clamps them at 0): the score stays in 0..10.
TEST(MostRequested, NegativeNodeRequestsStayInRange) {
  NodeInfo node = node_info(make_node("n", 4000, 8 * GiB));
  auto meta = std::make_shared<const PodMeta>();
  Resources negative;
  negative.memory = -k8Ei;
  node.add_pod(std::make_shared<const PodInfo>(PodInfo{meta, negative, negative}));
  // cpu 500*10/4000 = 1; memory clamps to 0.
  EXPECT_EQ(run_score(*make_most_requested_score(), make_pod("p", 500, GiB), {node}),
            std::vector<int64_t>{0});
}

}  // namespace
}  // namespace most_requested_test
}  // namespace kext
