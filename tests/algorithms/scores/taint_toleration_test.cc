#include "algorithms/scores/taint_toleration.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace taint_toleration_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_info;
using testing::run_score;

NodeInfo tainted(std::string name, std::vector<Taint> taints) {
  Node n = make_node(std::move(name), 4000, 0);
  n.taints = std::move(taints);
  return node_info(std::move(n));
}

Taint pns(std::string key) { return {std::move(key), "", "PreferNoSchedule"}; }

TEST(TaintTolerationPriority, NameAndReduce) {
  auto s = make_taint_toleration_score();
  EXPECT_EQ(s->name(), "TaintTolerationPriority");
  EXPECT_TRUE(s->has_reduce());
}

TEST(TaintTolerationPriority, Section71Example) {
  // Counts A = 0, B = 1, C = 3 -> reversed 10 - 10*s/3: 10, 7 (10 - 3), 0.
  std::vector<NodeInfo> nodes = {tainted("A", {}), tainted("B", {pns("x")}),
                                 tainted("C", {pns("x"), pns("y"), pns("z"), {"hard", "", "NoSchedule"}})};
  auto s = make_taint_toleration_score();
  Pod p = make_pod("p", 100, 0);
  PodContext ctx(p);
  EXPECT_EQ(s->score(ctx, nullptr, nodes[2]), 3);  // the NoSchedule taint is the filter's business
  EXPECT_EQ(run_score(*s, p, nodes), (std::vector<int64_t>{10, 7, 0}));
}

TEST(TaintTolerationPriority, Table) {
  struct Case {
    std::string name;
    std::vector<Toleration> tolerations;
    std::vector<NodeInfo> nodes;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      {"no taints anywhere: all 10", {}, {tainted("A", {}), tainted("B", {})}, {10, 10}},
      // Example 4: neither toleration has an empty or PNS effect, so spot counts.
      {"example 4",
       {{"dedicated", "Equal", "gpu", "NoSchedule"}, {"", "Exists", "", "NoExecute"}},
       {tainted("A", {{"dedicated", "gpu", "NoSchedule"}, pns("spot"), {"maint", "true", "NoExecute"}}),
        tainted("B", {})},
       {0, 10}},
      {"tolerated PNS taints do not count",
       {{"spot", "Exists", "", "PreferNoSchedule"}},
       {tainted("A", {pns("spot")}), tainted("B", {pns("other")})},
       {10, 0}},
      {"wildcard toleration tolerates every PNS taint",
       {{"", "Exists", "", ""}},
       {tainted("A", {pns("a"), pns("b")}), tainted("B", {})},
       {10, 10}},
      {"a NoSchedule toleration does not help with PNS",
       {{"spot", "Exists", "", "NoSchedule"}},
       {tainted("A", {pns("spot")}), tainted("B", {})},
       {0, 10}},
      // Counts 1, 2, 4 -> 10 - 10*s/4: 10 - 2 = 8, 10 - 5 = 5, 0.
      {"integer normalisation",
       {},
       {tainted("A", {pns("a")}), tainted("B", {pns("a"), pns("b")}),
        tainted("C", {pns("a"), pns("b"), pns("c"), pns("d")})},
       {8, 5, 0}},
  };
  auto s = make_taint_toleration_score();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Pod p = make_pod("p", 100, 0);
    p.tolerations = c.tolerations;
    EXPECT_EQ(run_score(*s, p, c.nodes), c.want);
  }
}

}  // namespace
}  // namespace taint_toleration_test
}  // namespace kext
