#include "algorithms/node_selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kext {
namespace node_selector_test {
namespace {

Node labelled(Labels labels, std::string name = "node-1") {
  Node n;
  n.name = std::move(name);
  n.labels = std::move(labels);
  return n;
}

SelectorRequirement req(std::string key, std::string op, std::vector<std::string> values = {}) {
  return {std::move(key), std::move(op), std::move(values)};
}

struct RequirementCase {
  std::string name;
  SelectorRequirement r;
  Labels labels;
  bool want;
};

TEST(NodeSelectorRequirement, OperatorTable) {
  // Every operator of NodeSelectorRequirement (component-helpers nodeaffinity.go, via
  // apimachinery labels.Requirement.Matches), plus the parse-time failures.
  const std::vector<RequirementCase> cases = {
      {"In present and listed", req("zone", "In", {"a", "b"}), {{"zone", "b"}}, true},
      {"In present not listed", req("zone", "In", {"a", "b"}), {{"zone", "c"}}, false},
      {"In missing", req("zone", "In", {"a"}), {}, false},
      {"In without values is a parse error", req("zone", "In", {}), {{"zone", ""}}, false},
      {"NotIn missing label matches", req("foo", "NotIn", {"x"}), {{"zone", "a"}}, true},
      {"NotIn present not listed", req("foo", "NotIn", {"x"}), {{"foo", "y"}}, true},
      {"NotIn present listed", req("foo", "NotIn", {"x"}), {{"foo", "x"}}, false},
      {"NotIn without values is a parse error", req("foo", "NotIn", {}), {}, false},
      {"Exists present (empty value)", req("gpu", "Exists"), {{"gpu", ""}}, true},
      {"Exists missing", req("gpu", "Exists"), {}, false},
      {"Exists with values is a parse error", req("gpu", "Exists", {"x"}), {{"gpu", "x"}}, false},
      {"DoesNotExist missing", req("gpu", "DoesNotExist"), {}, true},
      {"DoesNotExist present", req("gpu", "DoesNotExist"), {{"gpu", "1"}}, false},
      {"DoesNotExist with values is a parse error", req("gpu", "DoesNotExist", {"x"}), {}, false},
      {"Gt greater", req("gen", "Gt", {"4"}), {{"gen", "5"}}, true},
      {"Gt equal is not greater", req("gen", "Gt", {"5"}), {{"gen", "5"}}, false},
      {"Gt non-integer label", req("gen", "Gt", {"4"}), {{"gen", "5x"}}, false},
      {"Gt missing label", req("gen", "Gt", {"4"}), {}, false},
      {"Gt non-integer value", req("gen", "Gt", {"four"}), {{"gen", "5"}}, false},
      {"Gt two values", req("gen", "Gt", {"1", "2"}), {{"gen", "5"}}, false},
      {"Gt no value", req("gen", "Gt", {}), {{"gen", "5"}}, false},
      {"Gt negative numbers", req("t", "Gt", {"-10"}), {{"t", "-3"}}, true},
      {"Gt accepts a leading plus like strconv", req("gen", "Gt", {"+4"}), {{"gen", "+5"}}, true},
      {"Gt rejects a plus-minus sign", req("gen", "Gt", {"4"}), {{"gen", "+-5"}}, false},
      {"Gt rejects whitespace", req("gen", "Gt", {"4"}), {{"gen", " 5"}}, false},
      {"Gt rejects int64 overflow", req("gen", "Gt", {"4"}), {{"gen", "9223372036854775808"}}, false},
      {"Gt at int64 max", req("gen", "Gt", {"9223372036854775806"}), {{"gen", "9223372036854775807"}}, true},
      {"Lt less", req("gen", "Lt", {"4"}), {{"gen", "3"}}, true},
      {"Lt not less", req("gen", "Lt", {"4"}), {{"gen", "4"}}, false},
      {"Lt leading zeros parse", req("gen", "Lt", {"010"}), {{"gen", "09"}}, true},
      {"Lt empty label value", req("gen", "Lt", {"4"}), {{"gen", ""}}, false},
      {"unknown operator", req("zone", "Equals", {"a"}), {{"zone", "a"}}, false},
      {"operators are case sensitive", req("zone", "in", {"a"}), {{"zone", "a"}}, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(match_node_selector_requirement(c.r, labelled(c.labels)), c.want);
  }
}

TEST(NodeFieldRequirement, OnlyMetadataNameWithOneValue) {
  Node n = labelled({}, "node-1");
  EXPECT_TRUE(match_node_field_requirement(req("metadata.name", "In", {"node-1"}), n));
  EXPECT_FALSE(match_node_field_requirement(req("metadata.name", "In", {"node-2"}), n));
  EXPECT_TRUE(match_node_field_requirement(req("metadata.name", "NotIn", {"node-2"}), n));
  EXPECT_FALSE(match_node_field_requirement(req("metadata.name", "NotIn", {"node-1"}), n));
  // Kubernetes requires exactly one value for fields, even for In.
  EXPECT_FALSE(match_node_field_requirement(req("metadata.name", "In", {"node-1", "node-2"}), n));
  EXPECT_FALSE(match_node_field_requirement(req("metadata.name", "In", {}), n));
  EXPECT_FALSE(match_node_field_requirement(req("metadata.name", "Exists"), n));
  EXPECT_FALSE(match_node_field_requirement(req("metadata.labels", "NotIn", {"x"}), n));
}

TEST(NodeSelectorTerm, EmptyTermMatchesNothing) {
  EXPECT_FALSE(match_node_selector_term(NodeSelectorTerm{}, labelled({{"zone", "a"}})));
}

TEST(NodeSelectorTerm, ExpressionsAndFieldsAreAnded) {
  NodeSelectorTerm t;
  t.match_expressions = {req("zone", "In", {"a"}), req("gen", "Gt", {"4"})};
  t.match_fields = {req("metadata.name", "In", {"node-1"})};
  EXPECT_TRUE(match_node_selector_term(t, labelled({{"zone", "a"}, {"gen", "5"}}, "node-1")));
  EXPECT_FALSE(match_node_selector_term(t, labelled({{"zone", "a"}, {"gen", "5"}}, "node-2")));
  EXPECT_FALSE(match_node_selector_term(t, labelled({{"zone", "a"}, {"gen", "4"}}, "node-1")));
  EXPECT_FALSE(match_node_selector_term(t, labelled({{"zone", "b"}, {"gen", "5"}}, "node-1")));
}

TEST(NodeSelectorTerm, FieldsOnlyTerm) {
  NodeSelectorTerm t;
  t.match_fields = {req("metadata.name", "NotIn", {"node-1"})};
  EXPECT_FALSE(match_node_selector_term(t, labelled({}, "node-1")));
  EXPECT_TRUE(match_node_selector_term(t, labelled({}, "node-2")));
}

TEST(NodeSelectorTerm, UnparsableRequirementFailsTheTermEvenIfOthersHold) {
  // LazyErrorNodeSelector: a bad requirement makes the whole term not match; NotIn on a missing
  // label would otherwise have matched.
  NodeSelectorTerm t;
  t.match_expressions = {req("foo", "NotIn", {"x"}), req("gen", "Gt", {"x"})};
  EXPECT_FALSE(match_node_selector_term(t, labelled({{"gen", "5"}})));
}

// Terms are ORed, expressions ANDed: T1 = {zone In [a,b], gen Gt 4}, T2 = {disk DoesNotExist}.
Pod example5_pod() {
  Pod p;
  NodeSelectorTerm t1;
  t1.match_expressions = {req("zone", "In", {"a", "b"}), req("gen", "Gt", {"4"})};
  NodeSelectorTerm t2;
  t2.match_expressions = {req("disk", "DoesNotExist")};
  p.node_affinity = NodeAffinity{std::vector<NodeSelectorTerm>{t1, t2}, {}};
  return p;
}

TEST(RequiredAffinity, Example5) {
  Pod p = example5_pod();
  EXPECT_TRUE(match_required_affinity(p, labelled({{"zone", "a"}, {"gen", "5"}, {"disk", "ssd"}})));
  // gen "5x" does not parse: T1 fails, and T2 fails because disk exists.
  EXPECT_FALSE(match_required_affinity(p, labelled({{"zone", "a"}, {"gen", "5x"}, {"disk", "ssd"}})));
  // Terms are ORed: T2 alone lets a node without disk through.
  EXPECT_TRUE(match_required_affinity(p, labelled({{"zone", "c"}})));
}

TEST(RequiredAffinity, NilVersusEmptyRequired) {
  Pod p;
  Node n = labelled({{"zone", "a"}});
  EXPECT_TRUE(match_required_affinity(p, n));  // no affinity at all
  p.node_affinity = NodeAffinity{};
  EXPECT_TRUE(match_required_affinity(p, n));  // affinity with nil required
  p.node_affinity->required = std::vector<NodeSelectorTerm>{};
  EXPECT_FALSE(match_required_affinity(p, n));  // empty term list matches nothing
  p.node_affinity->required = std::vector<NodeSelectorTerm>{NodeSelectorTerm{}, NodeSelectorTerm{}};
  EXPECT_FALSE(match_required_affinity(p, n));  // only empty terms: all dropped
}

TEST(RequiredAffinity, NodeSelectorAndAffinityMustBothHold) {
  Pod p = example5_pod();
  p.node_selector = {{"disktype", "ssd"}};
  // Affinity holds through T2, but the nodeSelector label is missing.
  EXPECT_FALSE(match_required_affinity(p, labelled({{"zone", "c"}})));
  EXPECT_TRUE(match_required_affinity(p, labelled({{"zone", "c"}, {"disktype", "ssd"}})));
  // nodeSelector holds, affinity does not (T1 wants zone a/b, T2 wants no disk label).
  EXPECT_FALSE(match_required_affinity(p, labelled({{"zone", "c"}, {"disktype", "ssd"}, {"disk", "x"}})));
}

TEST(NodeSelectorLabels, EveryPairMustExistWithThatValue) {
  Node n = labelled({{"a", "1"}, {"b", ""}});
  EXPECT_TRUE(match_node_selector_labels({}, n));
  EXPECT_TRUE(match_node_selector_labels({{"a", "1"}, {"b", ""}}, n));
  EXPECT_FALSE(match_node_selector_labels({{"a", "2"}}, n));
  // An empty value still needs the key to exist.
  EXPECT_FALSE(match_node_selector_labels({{"c", ""}}, n));
}

}  // namespace
}  // namespace node_selector_test
}  // namespace kext
