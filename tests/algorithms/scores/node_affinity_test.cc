#include "algorithms/scores/node_affinity.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace node_affinity_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_info;
using testing::run_score;

NodeInfo labelled(std::string name, Labels labels) {
  Node n = make_node(std::move(name), 4000, 0);
  n.labels = std::move(labels);
  return node_info(std::move(n));
}

PreferredSchedulingTerm pref(int32_t weight, std::vector<SelectorRequirement> exprs,
                             std::vector<SelectorRequirement> fields = {}) {
  return {weight, NodeSelectorTerm{std::move(exprs), std::move(fields)}};
}

Pod preferring(std::vector<PreferredSchedulingTerm> terms) {
  Pod p = make_pod("p", 100, 0);
  p.node_affinity = NodeAffinity{std::nullopt, std::move(terms)};
  return p;
}

TEST(NodeAffinityPriority, NameAndReduce) {
  auto s = make_node_affinity_score();
  EXPECT_EQ(s->name(), "NodeAffinityPriority");
  EXPECT_TRUE(s->has_reduce());
}

TEST(NodeAffinityPriority, Section71Example) {
  // Raw sums A = 8, B = 3, C = 0; normalised 10*s/8: 10, 3 (3.75), 0.
  Pod p = preferring({pref(5, {{"zone", "In", {"a"}}}), pref(3, {{"disk", "Exists", {}}})});
  std::vector<NodeInfo> nodes = {labelled("A", {{"zone", "a"}, {"disk", "ssd"}}),
                                 labelled("B", {{"disk", "hdd"}}), labelled("C", {{"zone", "b"}})};
  auto s = make_node_affinity_score();
  PodContext ctx(p);
  EXPECT_EQ(s->score(ctx, nullptr, nodes[0]), 8);
  EXPECT_EQ(s->score(ctx, nullptr, nodes[1]), 3);
  EXPECT_EQ(s->score(ctx, nullptr, nodes[2]), 0);
  EXPECT_EQ(run_score(*s, p, nodes), (std::vector<int64_t>{10, 3, 0}));
}

TEST(NodeAffinityPriority, Table) {
  struct Case {
    std::string name;
    Pod pod;
    std::vector<NodeInfo> nodes;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      {"no affinity leaves everything 0",
       make_pod("p", 100, 0),
       {labelled("A", {}), labelled("B", {})},
       {0, 0}},
      {"no node matches",
       preferring({pref(7, {{"zone", "In", {"x"}}})}),
       {labelled("A", {{"zone", "a"}})},
       {0}},
      // Weight 0 is skipped; an empty preference matches nothing.
      {"weight 0 and empty preference",
       preferring({pref(0, {{"zone", "In", {"a"}}}), pref(4, {})}),
       {labelled("A", {{"zone", "a"}})},
       {0}},
      // NotIn on a missing label matches, so the node without "foo" collects the weight.
      {"NotIn on missing label",
       preferring({pref(2, {{"foo", "NotIn", {"x"}}})}),
       {labelled("A", {}), labelled("B", {{"foo", "x"}})},
       {10, 0}},
      {"matchFields preference",
       preferring({pref(6, {}, {{"metadata.name", "In", {"B"}}}), pref(2, {{"zone", "Exists", {}}})}),
       {labelled("A", {{"zone", "a"}}), labelled("B", {{"zone", "a"}}), labelled("C", {})},
       // A 2, B 8, C 0 -> 10*2/8 = 2, 10, 0.
       {2, 10, 0}},
      // An unparsable term contributes nothing but does not void the others.
      {"unparsable term ignored",
       preferring({pref(9, {{"gen", "Gt", {"x"}}}), pref(1, {{"gen", "Exists", {}}})}),
       {labelled("A", {{"gen", "5"}}), labelled("B", {})},
       {10, 0}},
      // Negative weights (the API server refuses them) must not push a score below 0.
      {"only a negative weight matches",
       preferring({pref(-5, {{"zone", "In", {"a"}}})}),
       {labelled("A", {{"zone", "a"}}), labelled("B", {})},
       {0, 0}},
      {"negative and positive weights",
       preferring({pref(-5, {{"zone", "In", {"a"}}}), pref(5, {{"disk", "Exists", {}}})}),
       {labelled("A", {{"zone", "a"}}), labelled("B", {{"disk", "ssd"}})},
       {0, 10}},
  };
  auto s = make_node_affinity_score();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
  }
}

}  // namespace
}  // namespace node_affinity_test
}  // namespace kext
