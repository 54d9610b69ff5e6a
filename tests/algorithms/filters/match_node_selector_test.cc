#include "algorithms/filters/match_node_selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace match_node_selector_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_info;

NodeInfo labelled_node(std::string name, Labels labels) {
  Node n = make_node(std::move(name), 4000, 0);
  n.labels = std::move(labels);
  return node_info(std::move(n));
}

const std::vector<std::string> kReason = {"node(s) didn't match Pod's node affinity/selector"};

TEST(MatchNodeSelector, Name) { EXPECT_EQ(make_match_node_selector_filter()->name(), "MatchNodeSelector"); }

TEST(MatchNodeSelector, Example5WithNodeSelector) {
  auto f = make_match_node_selector_filter();
  Pod p = make_pod("p", 100, 0);
  p.node_selector = {{"disktype", "ssd"}};
  NodeSelectorTerm t1;
  t1.match_expressions = {{"zone", "In", {"a", "b"}}, {"gen", "Gt", {"4"}}};
  NodeSelectorTerm t2;
  t2.match_expressions = {{"disk", "DoesNotExist", {}}};
  p.node_affinity = NodeAffinity{std::vector<NodeSelectorTerm>{t1, t2}, {}};
  PodContext ctx(p);

  struct Case {
    std::string name;
    Labels labels;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"T1 matches", {{"zone", "a"}, {"gen", "5"}, {"disk", "ssd"}, {"disktype", "ssd"}}, true},
      {"gen does not parse, disk exists",
       {{"zone", "a"}, {"gen", "5x"}, {"disk", "ssd"}, {"disktype", "ssd"}},
       false},
      {"T2 matches", {{"zone", "z"}, {"disktype", "ssd"}}, true},
      {"nodeSelector fails", {{"zone", "a"}, {"gen", "5"}, {"disktype", "hdd"}}, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FilterStatus s = f->filter(ctx, labelled_node("n", c.labels));
    EXPECT_EQ(s.ok(), c.fits);
    if (!c.fits) {
      EXPECT_EQ(s.code, FilterCode::kUnresolvable);
      EXPECT_EQ(s.reasons, kReason);
    }
  }
}

TEST(MatchNodeSelector, EmptyRequiredTermsRejectEveryNode) {
  auto f = make_match_node_selector_filter();
  Pod p = make_pod("p", 100, 0);
  p.node_affinity = NodeAffinity{std::vector<NodeSelectorTerm>{}, {}};
  EXPECT_EQ(f->filter(PodContext(p), labelled_node("n", {{"zone", "a"}})).code, FilterCode::kUnresolvable);
}

TEST(MatchNodeSelector, PreferredTermsDoNotFilter) {
  auto f = make_match_node_selector_filter();
  Pod p = make_pod("p", 100, 0);
  NodeSelectorTerm pref;
  pref.match_expressions = {{"zone", "In", {"a"}}};
  p.node_affinity = NodeAffinity{std::nullopt, {{10, pref}}};
  EXPECT_TRUE(f->filter(PodContext(p), labelled_node("n", {{"zone", "b"}})).ok());
}

TEST(MatchNodeSelector, MatchFieldsPinsANode) {
  auto f = make_match_node_selector_filter();
  Pod p = make_pod("p", 100, 0);
  NodeSelectorTerm t;
  t.match_fields = {{"metadata.name", "In", {"n2"}}};
  p.node_affinity = NodeAffinity{std::vector<NodeSelectorTerm>{t}, {}};
  PodContext ctx(p);
  EXPECT_FALSE(f->filter(ctx, labelled_node("n1", {})).ok());
  EXPECT_TRUE(f->filter(ctx, labelled_node("n2", {})).ok());
}

// can_fail is false only for a pod that every node matches (NodeAffinity's PreFilter Skip): then the
// check must pass every node, whatever its labels and name.
TEST(MatchNodeSelector, CanFailOnlyWithASelectorOrRequiredTerms) {
  auto f = make_match_node_selector_filter();
  NodeSelectorTerm in_a;
  in_a.match_expressions = {{"zone", "In", {"a"}}};
  struct Case {
    std::string name;
    Labels selector;
    std::optional<NodeAffinity> affinity;
    bool can_fail;
  };
  const std::vector<Case> cases = {
      {"nothing", {}, std::nullopt, false},
      {"preferred terms only", {}, NodeAffinity{std::nullopt, {{10, in_a}}}, false},
      {"node selector", {{"zone", "a"}}, std::nullopt, true},
      {"required terms", {}, NodeAffinity{std::vector<NodeSelectorTerm>{in_a}, {}}, true},
      {"empty required terms (match nothing)", {}, NodeAffinity{std::vector<NodeSelectorTerm>{}, {}}, true},
  };
  const std::vector<NodeInfo> nodes = {labelled_node("n1", {}), labelled_node("n2", {{"zone", "a"}}),
                                       labelled_node("n3", {{"zone", "b"}, {"disk", "ssd"}})};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Pod p = make_pod("p", 100, 0);
    p.node_selector = c.selector;
    p.node_affinity = c.affinity;
    const PodContext ctx(p);
    EXPECT_EQ(f->can_fail(ctx), c.can_fail);
    if (c.can_fail) continue;
    for (const NodeInfo& n : nodes) EXPECT_TRUE(f->filter(ctx, n).ok()) << n.name();
  }
}

}  // namespace
}  // namespace match_node_selector_test
}  // namespace kext
