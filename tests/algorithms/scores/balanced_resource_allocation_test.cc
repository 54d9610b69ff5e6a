#include "algorithms/scores/balanced_resource_allocation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
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

}  // namespace
}  // namespace kext
