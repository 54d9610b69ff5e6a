#include "algorithms/filters/inter_pod_affinity.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace filters_inter_pod_affinity_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_ptrs;
using testing::snapshot;

// The facts of kube-scheduler's pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go
// (TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes, TestPreFilterStateAddRemovePod).

LabelSelector expr(std::string key, std::string op, std::vector<std::string> values = {}) {
  LabelSelector s;
  s.match_expressions.push_back({std::move(key), std::move(op), std::move(values)});
  return s;
}

PodAffinityTerm term(LabelSelector selector, std::string topology_key,
                     std::vector<std::string> namespaces = {},
                     std::optional<LabelSelector> namespace_selector = std::nullopt) {
  PodAffinityTerm t;
  t.label_selector = std::move(selector);
  t.topology_key = std::move(topology_key);
  t.namespaces = std::move(namespaces);
  t.namespace_selector = std::move(namespace_selector);
  return t;
}

PodAffinityTerm in(std::string key, std::string topology_key, std::vector<std::string> values) {
  return term(expr(std::move(key), "In", std::move(values)), std::move(topology_key));
}
PodAffinityTerm not_in(std::string key, std::string topology_key, std::vector<std::string> values) {
  return term(expr(std::move(key), "NotIn", std::move(values)), std::move(topology_key));
}
PodAffinityTerm exists(std::string key, std::string topology_key) {
  return term(expr(std::move(key), "Exists"), std::move(topology_key));
}

// A pod in namespace `ns` on `node` ("" for the incoming pod) with required terms.
Pod pod(std::string node, std::string ns, Labels labels, std::vector<PodAffinityTerm> affinity = {},
        std::vector<PodAffinityTerm> anti_affinity = {}) {
  static int n = 0;
  Pod p = make_pod("p" + std::to_string(++n), 100, 0);
  p.node_name = std::move(node);
  p.namespace_ = std::move(ns);
  p.labels = std::move(labels);
  if (!affinity.empty() || !anti_affinity.empty()) {
    auto rules = std::make_shared<PodAffinityRules>();
    rules->required_affinity = std::move(affinity);
    rules->required_anti_affinity = std::move(anti_affinity);
    p.affinity = std::move(rules);
  }
  return p;
}

Node node(std::string name, Labels labels) {
  return testing::make_labelled_node(std::move(name), std::move(labels));
}

struct Want {
  FilterCode code = FilterCode::kSuccess;
  std::string reason;
};
const Want kFits{};
const Want kAffinity{FilterCode::kUnresolvable, std::string(kErrReasonAffinityRulesNotMatch)};
const Want kAnti{FilterCode::kUnschedulable, std::string(kErrReasonAntiAffinityRulesNotMatch)};
const Want kExisting{FilterCode::kUnschedulable, std::string(kErrReasonExistingAntiAffinityRulesNotMatch)};

struct Case {
  std::string name;
  Pod pod;
  std::vector<Pod> pods;
  std::vector<Node> nodes;
  std::vector<Want> want;  // one per node
  bool skip = false;       // PreFilter returns Skip: can_fail is false and every node fits
};

// filtering_test.go's `namespaces`.
const std::map<std::string, Labels, std::less<>> kNamespaces = {
    {"subteam1.team1", {{"team", "team1"}}},
    {"subteam2.team1", {{"team", "team1"}}},
    {"subteam1.team2", {{"team", "team2"}}},
    {"subteam2.team2", {{"team", "team2"}}},
};

void run(const Case& c, bool with_namespaces = true, KubeVersion version = KubeVersion::newest()) {
  SCOPED_TRACE(c.name + " at " + version.str());
  auto filter = make_inter_pod_affinity_filter({}, version);
  std::vector<NodeInfo> infos = snapshot(c.nodes, c.pods);
  auto ptrs = node_ptrs(infos);
  ClusterView cluster;
  cluster.nodes = ptrs;
  if (with_namespaces) cluster.namespace_labels = &kNamespaces;
  PodContext ctx(c.pod, &cluster);
  auto state = filter->pre_filter(ctx, std::span<const NodeInfo* const>(ptrs));
  ASSERT_NE(state, nullptr);
  ctx.filter_states.emplace_back(filter.get(), std::move(state));
  ctx.prepared = true;
  EXPECT_EQ(filter->can_fail(ctx), !c.skip);
  ASSERT_EQ(c.want.size(), infos.size());
  for (size_t i = 0; i < infos.size(); ++i) {
    SCOPED_TRACE(infos[i].name());
    FilterStatus s = filter->filter(ctx, infos[i]);
    EXPECT_EQ(s.code, c.want[i].code);
    if (c.want[i].reason.empty()) {
      EXPECT_TRUE(s.reasons.empty());
    } else {
      EXPECT_EQ(s.reasons, std::vector<std::string>{c.want[i].reason});
    }
  }
}

TEST(InterPodAffinityFilter, Name) {
  EXPECT_EQ(make_inter_pod_affinity_filter({})->name(), "InterPodAffinity");
}

TEST(InterPodAffinityFilter, RequiredAffinitySingleNode) {
  const Labels pod_label = {{"service", "securityscan"}};
  const Labels pod_label2 = {{"security", "S1"}};
  const Pod existing = pod("node1", "", pod_label);
  const std::vector<Node> node1 = {node("node1", {{"region", "r1"}, {"zone", "z11"}})};
  const LabelSelector team1 = expr("team", "In", {"team1"});
  const LabelSelector securityscan = expr("service", "In", {"securityscan", "value2"});
  LabelSelector two_exprs = expr("service", "Exists");
  two_exprs.match_expressions.push_back({"wrongkey", "DoesNotExist", {}});
  LabelSelector in_and_not_in = expr("service", "In", {"securityscan"});
  in_and_not_in.match_expressions.push_back({"service", "NotIn", {"WrongValue"}});
  LabelSelector in2_and_not_in = expr("service", "In", {"securityscan2"});
  in2_and_not_in.match_expressions.push_back({"service", "NotIn", {"WrongValue"}});

  const std::vector<Case> cases = {
      {"no required rules, no existing pods", pod("", "", {}), {}, node1, {kFits}, true},
      {"affinity In matches the existing pod",
       pod("", "", pod_label2, {in("service", "region", {"securityscan", "value2"})}),
       {existing},
       node1,
       {kFits}},
      {"affinity NotIn matches the existing pod",
       pod("", "", pod_label2, {not_in("service", "region", {"securityscan3", "value3"})}),
       {existing},
       node1,
       {kFits}},
      {"affinity fails: the existing pod is in another namespace",
       pod("", "", pod_label2, {term(securityscan, "", {"DiffNameSpace"})}),
       {pod("node1", "ns", pod_label)},
       node1,
       {kAffinity}},
      {"affinity fails: the selector does not match the existing pod",
       pod("", "", pod_label, {in("service", "", {"antivirusscan", "value2"})}),
       {existing},
       node1,
       {kAffinity}},
      {"affinity with several operators in several terms",
       pod("", "", pod_label2, {term(two_exprs, "region"), term(in_and_not_in, "region")}),
       {existing},
       node1,
       {kFits}},
      {"the requirements of a selector are ANDed",
       pod("", "", pod_label2, {term(two_exprs, "region"), term(in2_and_not_in, "region")}),
       {existing},
       node1,
       {kAffinity}},
      {"affinity and anti-affinity both satisfied",
       pod("", "", pod_label2, {in("service", "region", {"securityscan", "value2"})},
           {in("service", "node", {"antivirusscan", "value2"})}),
       {existing},
       node1,
       {kFits}},
      {"affinity, anti-affinity and the existing pod's anti-affinity satisfied",
       pod("", "", pod_label2, {in("service", "region", {"securityscan", "value2"})},
           {in("service", "node", {"antivirusscan", "value2"})}),
       {pod("node1", "", pod_label, {}, {in("service", "node", {"antivirusscan", "value2"})})},
       node1,
       {kFits}},
      {"affinity satisfied, anti-affinity not",
       pod("", "", pod_label2, {in("service", "region", {"securityscan", "value2"})},
           {in("service", "zone", {"securityscan", "value2"})}),
       {existing},
       node1,
       {kAnti}},
      {"the existing pod's anti-affinity is not satisfied",
       pod("", "", pod_label, {in("service", "region", {"securityscan", "value2"})},
           {in("service", "node", {"antivirusscan", "value2"})}),
       {pod("node1", "", pod_label, {}, {in("service", "zone", {"securityscan", "value2"})})},
       node1,
       {kExisting}},
      {"the pod does not match its own affinity and the matching pod is on no node",
       pod("", "", pod_label, {not_in("service", "region", {"securityscan", "value2"})}),
       {pod("node2", "", pod_label)},
       node1,
       {kAffinity}},
      {"a pod without rules still meets the existing pod's anti-affinity",
       pod("", "", pod_label),
       {pod("node1", "", pod_label, {}, {in("service", "zone", {"securityscan", "value2"})})},
       node1,
       {kExisting}},
      {"the existing pod's anti-affinity does not match: Skip",
       pod("", "", pod_label),
       {pod("node1", "", pod_label, {}, {not_in("service", "zone", {"securityscan", "value2"})})},
       node1,
       {kFits},
       true},
      {"the pod's anti-affinity is checked before the existing pod's",
       pod("", "", pod_label, {}, {exists("service", "region"), exists("security", "region")}),
       {pod("node1", "", pod_label2, {}, {exists("security", "zone")})},
       node1,
       {kAnti}},
      {"symmetry a1: partial match on both sides",
       pod("", "", pod_label, {}, {exists("service", "zone"), exists("security", "zone")}),
       {pod("node1", "", pod_label2, {}, {exists("security", "zone")})},
       node1,
       {kAnti}},
      {"symmetry a2: only the existing pod's term matches",
       pod("", "", pod_label2, {}, {exists("security", "zone")}),
       {pod("node1", "", pod_label, {}, {exists("service", "zone"), exists("security", "zone")})},
       node1,
       {kExisting}},
      {"symmetry b1",
       pod("", "", {{"abc", ""}, {"xyz", ""}}, {}, {exists("abc", "zone"), exists("def", "zone")}),
       {pod("node1", "", {{"def", ""}, {"xyz", ""}}, {}, {exists("abc", "zone"), exists("def", "zone")})},
       node1,
       {kAnti}},
      {"symmetry b2",
       pod("", "", {{"def", ""}, {"xyz", ""}}, {}, {exists("abc", "zone"), exists("def", "zone")}),
       {pod("node1", "", {{"abc", ""}, {"xyz", ""}}, {}, {exists("abc", "zone"), exists("def", "zone")})},
       node1,
       {kAnti}},
      {"affinity with a namespaceSelector",
       pod("", "", pod_label2, {term(securityscan, "region", {}, team1)}),
       {pod("node1", "subteam1.team1", pod_label)},
       node1,
       {kFits}},
      {"affinity with a non-matching namespaceSelector",
       pod("", "", pod_label2, {term(securityscan, "region", {}, team1)}),
       {pod("node1", "subteam1.team2", pod_label)},
       node1,
       {kAffinity}},
      {"anti-affinity with a matching namespaceSelector",
       pod("", "subteam1.team1", pod_label2, {}, {term(securityscan, "zone", {}, team1)}),
       {pod("node1", "subteam2.team1", pod_label)},
       node1,
       {kAnti}},
      {"anti-affinity with an empty namespaceSelector: every namespace",
       pod("", "subteam1.team1", pod_label2, {}, {term(securityscan, "zone", {}, LabelSelector{})}),
       {pod("node1", "subteam2.team1", pod_label)},
       node1,
       {kAnti}},
      {"anti-affinity with a non-matching namespaceSelector",
       pod("", "subteam1.team1", pod_label2, {}, {term(securityscan, "zone", {}, team1)}),
       {pod("node1", "subteam1.team2", pod_label)},
       node1,
       {kFits}},
      // Not in filtering_test.go: an existing pod's namespaceSelector reads the incoming pod's
      // namespace's labels (GetNamespaceLabelsSnapshot).
      {"the existing pod's anti-affinity selects the incoming pod's namespace",
       pod("", "subteam2.team1", pod_label),
       {pod("node1", "subteam1.team2", pod_label2, {}, {term(securityscan, "zone", {}, team1)})},
       node1,
       {kExisting}},
      {"the existing pod's anti-affinity does not select the incoming pod's namespace",
       pod("", "subteam2.team2", pod_label),
       {pod("node1", "subteam1.team2", pod_label2, {}, {term(securityscan, "zone", {}, team1)})},
       node1,
       {kFits},
       true},
  };
  for (const auto& c : cases) run(c);
}

TEST(InterPodAffinityFilter, RequiredAffinityMultipleNodes) {
  const Labels china = {{"region", "China"}};
  const Labels china_az1 = {{"region", "China"}, {"az", "az1"}};
  const Labels india = {{"region", "India"}};
  auto rz = [](std::string name, std::string zone) {
    return node(name, {{"region", "r1"}, {"zone", std::move(zone)}, {"hostname", name}});
  };
  const std::vector<Case> cases = {
      {"every node sharing the topology value of a matching pod",
       pod("", "", {}, {in("foo", "region", {"bar"})}),
       {pod("node1", "", {{"foo", "bar"}})},
       {node("node1", china), node("node2", china_az1), node("node3", india)},
       {kFits, kFits, kAffinity}},
      {"the first pod of a self-affine collection goes anywhere",
       pod("", "", {{"foo", "bar"}, {"service", "securityscan"}},
           {in("foo", "zone", {"bar"}), in("service", "zone", {"securityscan"})}),
       {pod("nodeA", "", {{"foo", "bar"}})},
       {node("nodeA", {{"zone", "az1"}, {"hostname", "h1"}}),
        node("nodeB", {{"zone", "az2"}, {"hostname", "h2"}})},
       {kFits, kFits}},
      {"the first pod of a collection only on nodes with the topology keys",
       pod("", "", {{"foo", "bar"}, {"service", "securityscan"}},
           {in("foo", "zone", {"bar"}), in("service", "zone", {"securityscan"})}),
       {pod("nodeA", "", {{"foo", "bar"}})},
       {node("nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}),
        node("nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}})},
       {kAffinity, kAffinity}},
      {"anti-affinity reaches every node of the region",
       pod("", "", {}, {}, {in("foo", "region", {"abc"})}),
       {pod("nodeA", "", {{"foo", "abc"}})},
       {rz("nodeA", "z1"), rz("nodeB", "z1")},
       {kAnti, kAnti}},
      {"anti-affinity holds when any term matches",
       pod("", "", {}, {}, {in("foo", "region", {"abc"}), in("service", "zone", {"securityscan"})}),
       {pod("nodeA", "", {{"foo", "abc"}, {"service", "securityscan"}})},
       {rz("nodeA", "z1"), rz("nodeB", "z2")},
       {kAnti, kAnti}},
      {"anti-affinity spares another region",
       pod("", "", {}, {}, {in("foo", "region", {"abc"})}),
       {pod("nodeA", "", {{"foo", "abc"}})},
       {node("nodeA", china), node("nodeB", china_az1), node("nodeC", india)},
       {kAnti, kAnti, kFits}},
      {"the existing pod's anti-affinity is in another namespace",
       pod("", "NS1", {{"foo", "123"}}, {}, {in("foo", "region", {"bar"})}),
       {pod("nodeA", "NS1", {{"foo", "bar"}}), pod("nodeC", "NS2", {}, {}, {in("foo", "region", {"123"})})},
       {node("nodeA", china), node("nodeB", china_az1), node("nodeC", india)},
       {kAnti, kAnti, kFits}},
      {"an existing pod's term whose topology key no node has: Skip",
       pod("", "", {{"foo", ""}}),
       {pod("nodeA", "", {}, {}, {exists("foo", "invalid-node-label")})},
       {rz("nodeA", "z1"), rz("nodeB", "z1")},
       {kFits, kFits},
       true},
      {"the incoming pod's term whose topology key no node has",
       pod("", "", {}, {}, {exists("foo", "invalid-node-label")}),
       {pod("nodeA", "", {{"foo", ""}})},
       {rz("nodeA", "z1"), rz("nodeB", "z1")},
       {kFits, kFits}},
      {"the existing pods' terms on every node",
       pod("", "", {{"foo", ""}, {"bar", ""}}),
       {pod("nodeA", "", {}, {}, {exists("foo", "zone")}),
        pod("nodeA", "", {}, {}, {exists("bar", "region")})},
       {rz("nodeA", "z1"), rz("nodeB", "z2")},
       {kExisting, kExisting}},
      {"the incoming pod violates one term on each node",
       pod("", "", {}, {}, {exists("foo", "zone"), exists("bar", "region")}),
       {pod("nodeA", "", {{"foo", ""}}), pod("nodeB", "", {{"bar", ""}})},
       {rz("nodeA", "z1"), rz("nodeB", "z2")},
       {kAnti, kAnti}},
      {"an existing pod's term with a topology key no node has does not count",
       pod("", "", {{"foo", ""}, {"bar", ""}}),
       {pod("nodeA", "", {}, {}, {exists("foo", "invalid-node-label"), exists("bar", "zone")})},
       {rz("nodeA", "z1"), rz("nodeB", "z2")},
       {kExisting, kFits}},
      {"the incoming pod's term with a topology key no node has does not count",
       pod("", "", {}, {}, {exists("foo", "invalid-node-label"), exists("bar", "zone")}),
       {pod("nodeA", "", {{"foo", ""}, {"bar", ""}})},
       {rz("nodeA", "z1"), rz("nodeB", "z2")},
       {kAnti, kFits}},
      {"the existing pod's terms, all topology keys valid",
       pod("", "", {{"foo", ""}, {"bar", ""}}),
       {pod("nodeA", "", {}, {}, {exists("foo", "region"), exists("bar", "zone")})},
       {rz("nodeA", "z1"), rz("nodeB", "z2")},
       {kExisting, kExisting}},
      {"the incoming pod's terms, all topology keys valid",
       pod("", "", {}, {}, {exists("foo", "region"), exists("bar", "zone")}),
       {pod("nodeA", "", {{"foo", ""}, {"bar", ""}})},
       {rz("nodeA", "z1"), rz("nodeB", "z2")},
       {kAnti, kAnti}},
      {"existing pods on nodeA and nodeB leave nodeC",
       pod("", "", {{"foo", ""}, {"bar", ""}}),
       {pod("nodeA", "", {}, {}, {exists("foo", "zone"), exists("labelA", "zone")}),
        pod("nodeB", "", {}, {}, {exists("bar", "zone"), exists("labelB", "zone")})},
       {rz("nodeA", "z1"), rz("nodeB", "z2"), rz("nodeC", "z3")},
       {kExisting, kExisting, kFits}},
      {"affinity: one pod matches every term, then the topology keys",
       pod("", "", {}, {exists("foo", "region"), exists("bar", "zone")}),
       {pod("nodeA", "", {{"foo", ""}, {"bar", ""}})},
       {rz("nodeA", "z1"), rz("nodeB", "z1")},
       {kFits, kFits}},
      {"affinity: the terms must be matched by one and the same pod",
       pod("", "", {}, {exists("foo", "region"), exists("bar", "zone")}),
       {pod("nodeA", "", {{"foo", ""}}), pod("nodeB", "", {{"bar", ""}})},
       {rz("nodeA", "z1"), rz("nodeB", "z2")},
       {kAffinity, kAffinity}},
  };
  for (const auto& c : cases) run(c);
}

TEST(InterPodAffinityFilter, NamespaceSelectorWithoutNamespaceLabels) {
  // ClusterView without namespace labels: a non-empty namespaceSelector selects nothing, an empty one
  // every namespace.
  const Labels pod_label = {{"service", "securityscan"}};
  const LabelSelector securityscan = expr("service", "In", {"securityscan"});
  const LabelSelector team1 = expr("team", "In", {"team1"});
  const std::vector<Node> node1 = {node("node1", {{"zone", "z1"}})};
  run({"non-empty selector, incoming pod's term",
       pod("", "subteam1.team1", {}, {}, {term(securityscan, "zone", {}, team1)}),
       {pod("node1", "subteam2.team1", pod_label)},
       node1,
       {kFits}},
      false);
  run({"empty selector, incoming pod's term",
       pod("", "subteam1.team1", {}, {}, {term(securityscan, "zone", {}, LabelSelector{})}),
       {pod("node1", "subteam2.team1", pod_label)},
       node1,
       {kAnti}},
      false);
  run({"non-empty selector, existing pod's term",
       pod("", "subteam1.team1", pod_label),
       {pod("node1", "subteam2.team1", {}, {}, {term(securityscan, "zone", {}, team1)})},
       node1,
       {kFits},
       true},
      false);
  run({"empty selector, existing pod's term",
       pod("", "subteam1.team1", pod_label),
       {pod("node1", "subteam2.team1", {}, {}, {term(securityscan, "zone", {}, LabelSelector{})})},
       node1,
       {kExisting}},
      false);
  run({"namespaces list and selector together",
       pod("", "x", {}, {}, {term(securityscan, "zone", {"subteam2.team1"}, team1)}),
       {pod("node1", "subteam2.team1", pod_label)},
       node1,
       {kAnti}},
      false);
}

// matchLabelKeys / mismatchLabelKeys add In / NotIn of the term owner's values to its selector from 1.31
// (the API server merges them); at 1.30 they are dropped and the terms' own selectors alone match.
TEST(InterPodAffinityFilter, MatchLabelKeysFrom1_31) {
  PodAffinityTerm same_app = exists("tier", "zone");
  same_app.match_label_keys = {"app"};
  PodAffinityTerm other_app = exists("tier", "zone");
  other_app.mismatch_label_keys = {"app"};
  const std::vector<Node> nodes = {node("nodeA", {{"zone", "z1"}}), node("nodeB", {{"zone", "z2"}})};
  const std::vector<Pod> pods = {pod("nodeA", "", {{"tier", "y"}, {"app", "b"}}),
                                 pod("nodeB", "", {{"tier", "y"}, {"app", "a"}})};
  struct MinorCase {
    Case at_1_31;
    std::vector<Want> at_1_30;
  };
  const std::vector<MinorCase> cases = {
      {{"affinity to the pods of the same app",
        pod("", "", {{"app", "a"}}, {same_app}),
        pods,
        nodes,
        {kAffinity, kFits}},
       {kFits, kFits}},
      {{"anti-affinity to the pods of other apps",
        pod("", "", {{"app", "a"}}, {}, {other_app}),
        pods,
        nodes,
        {kAnti, kFits}},
       {kAnti, kAnti}},
      {{"a key the owner lacks adds nothing", pod("", "", {}, {same_app}), pods, nodes, {kFits, kFits}},
       {kFits, kFits}},
      // An existing pod's term reads the existing pod's labels.
      {{"the existing pod's anti-affinity to its own app",
        pod("", "", {{"tier", "x"}, {"app", "b"}}),
        {pod("nodeA", "", {{"app", "b"}}, {}, {same_app}), pod("nodeB", "", {{"app", "c"}}, {}, {same_app})},
        nodes,
        {kExisting, kFits}},
       {kExisting, kExisting}},
  };
  for (const MinorCase& c : cases) {
    run(c.at_1_31, true, KubeVersion{31});
    Case before = c.at_1_31;
    before.want = c.at_1_30;
    run(before, true, KubeVersion{30});
  }
}

// Preemption's AddPod reads an added pod's anti-affinity terms under the same rule.
TEST(InterPodAffinityFilter, MatchLabelKeysInAddedPods) {
  PodAffinityTerm same_app = exists("tier", "zone");
  same_app.match_label_keys = {"app"};
  const std::vector<Node> nodes = {node("nodeA", {{"zone", "z1"}})};
  std::vector<NodeInfo> infos = snapshot(nodes, {});
  auto ptrs = node_ptrs(infos);
  // The pending pod has a required term so that PreFilter does not Skip.
  const Pod pending = pod("", "", {{"tier", "x"}, {"app", "b"}}, {}, {exists("nothing", "zone")});
  const PodInfo added =
      make_pod_info(std::make_shared<const Pod>(pod("nodeA", "", {{"app", "c"}}, {}, {same_app})));
  for (const auto& [minor, want] : std::vector<std::pair<int, FilterCode>>{
           {31, FilterCode::kSuccess}, {30, FilterCode::kUnschedulable}}) {
    SCOPED_TRACE(minor);
    auto filter = make_inter_pod_affinity_filter({}, KubeVersion{minor});
    PodContext ctx(pending);
    ctx.filter_states.emplace_back(filter.get(),
                                   filter->pre_filter(ctx, std::span<const NodeInfo* const>(ptrs)));
    ctx.prepared = true;
    EXPECT_TRUE(filter->filter(ctx, infos[0]).ok());
    ctx.add_pod(added, infos[0]);
    EXPECT_EQ(filter->filter(ctx, infos[0]).code, want);
  }
}

TEST(InterPodAffinityFilter, WithoutPrepareReadsTheClusterOrTheNode) {
  auto filter = make_inter_pod_affinity_filter({});
  std::vector<NodeInfo> infos =
      snapshot({node("nodeA", {{"region", "r1"}}), node("nodeB", {{"region", "r1"}})},
               {pod("nodeA", "", {{"foo", "bar"}})});
  Pod incoming = pod("", "", {}, {}, {in("foo", "region", {"bar"})});
  auto ptrs = node_ptrs(infos);
  ClusterView cluster;
  cluster.nodes = ptrs;
  // With a cluster, nodeB sees nodeA's pod in its region.
  EXPECT_EQ(filter->filter(PodContext(incoming, &cluster), infos[1]).code, FilterCode::kUnschedulable);
  // Without one, only the node itself.
  EXPECT_EQ(filter->filter(PodContext(incoming), infos[0]).code, FilterCode::kUnschedulable);
  EXPECT_TRUE(filter->filter(PodContext(incoming), infos[1]).ok());
  EXPECT_TRUE(filter->can_fail(PodContext(incoming)));
}

// TestPreFilterStateAddRemovePod's facts, read through check(): preemption removes and re-adds pods.
TEST(InterPodAffinityFilter, StateAddAndRemovePod) {
  const Labels foo_bar = {{"foo", "bar"}};
  const PodAffinityTerm anti_foo_bar = in("foo", "region", {"bar"});
  const std::vector<Node> nodes = {node("nodeA", {{"region", "r1"}, {"zone", "z11"}}),
                                   node("nodeB", {{"region", "r1"}, {"zone", "z12"}}),
                                   node("nodeC", {{"region", "r2"}, {"zone", "z21"}})};
  const Pod pending = pod("", "", foo_bar, {}, {anti_foo_bar});
  std::vector<NodeInfo> infos =
      snapshot(nodes, {pod("nodeA", "", foo_bar), pod("nodeC", "", {}, {}, {anti_foo_bar})});
  auto ptrs = node_ptrs(infos);
  auto filter = make_inter_pod_affinity_filter({});
  PodContext ctx(pending);
  ctx.filter_states.emplace_back(filter.get(),
                                 filter->pre_filter(ctx, std::span<const NodeInfo* const>(ptrs)));
  ctx.prepared = true;
  auto codes = [&](const PodContext& c) {
    std::vector<FilterCode> out;
    for (const auto& n : infos) out.push_back(filter->filter(c, n).code);
    return out;
  };
  auto reasons = [&](const PodContext& c, size_t i) { return filter->filter(c, infos[i]).reasons; };
  using enum FilterCode;
  EXPECT_EQ(codes(ctx), (std::vector<FilterCode>{kUnschedulable, kUnschedulable, kUnschedulable}));
  EXPECT_EQ(reasons(ctx, 0), std::vector<std::string>{std::string(kErrReasonAntiAffinityRulesNotMatch)});
  EXPECT_EQ(reasons(ctx, 2),
            std::vector<std::string>{std::string(kErrReasonExistingAntiAffinityRulesNotMatch)});

  // Removing the foo=bar pod from nodeA frees region r1; the clone leaves the original alone.
  PodContext dry = ctx.with_cloned_states();
  dry.remove_pod(*infos[0].pods[0], infos[0]);
  EXPECT_EQ(codes(dry), (std::vector<FilterCode>{kSuccess, kSuccess, kUnschedulable}));
  EXPECT_EQ(codes(ctx), (std::vector<FilterCode>{kUnschedulable, kUnschedulable, kUnschedulable}));
  // Removing nodeC's pod and its anti-affinity term frees nodeC.
  dry.remove_pod(*infos[2].pods[0], infos[2]);
  EXPECT_EQ(codes(dry), (std::vector<FilterCode>{kSuccess, kSuccess, kSuccess}));

  // Adding a foo=bar pod with the same anti-affinity on nodeB: r1 is taken by both maps.
  const PodInfo added =
      make_pod_info(std::make_shared<const Pod>(pod("nodeB", "", foo_bar, {}, {anti_foo_bar})));
  dry.add_pod(added, infos[1]);
  EXPECT_EQ(codes(dry), (std::vector<FilterCode>{kUnschedulable, kUnschedulable, kSuccess}));
  EXPECT_EQ(reasons(dry, 0), std::vector<std::string>{std::string(kErrReasonAntiAffinityRulesNotMatch)});
  dry.remove_pod(added, infos[1]);
  EXPECT_EQ(codes(dry), (std::vector<FilterCode>{kSuccess, kSuccess, kSuccess}));
}

TEST(InterPodAffinityFilter, StateAddPodForAffinity) {
  // affinityCounts follow added pods: the pending pod needs a foo=bar pod in its zone.
  const std::vector<Node> nodes = {node("nodeA", {{"zone", "z1"}}), node("nodeB", {{"zone", "z2"}})};
  const Pod pending = pod("", "", {}, {in("foo", "zone", {"bar"})});
  std::vector<NodeInfo> infos = snapshot(nodes, {pod("nodeA", "", {{"foo", "bar"}})});
  auto ptrs = node_ptrs(infos);
  auto filter = make_inter_pod_affinity_filter({});
  PodContext ctx(pending);
  ctx.filter_states.emplace_back(filter.get(),
                                 filter->pre_filter(ctx, std::span<const NodeInfo* const>(ptrs)));
  ctx.prepared = true;
  EXPECT_TRUE(filter->filter(ctx, infos[0]).ok());
  EXPECT_EQ(filter->filter(ctx, infos[1]).code, FilterCode::kUnresolvable);
  const PodInfo added = make_pod_info(std::make_shared<const Pod>(pod("nodeB", "", {{"foo", "bar"}})));
  ctx.add_pod(added, infos[1]);
  EXPECT_TRUE(filter->filter(ctx, infos[1]).ok());
  ctx.remove_pod(*infos[0].pods[0], infos[0]);
  EXPECT_EQ(filter->filter(ctx, infos[0]).code, FilterCode::kUnresolvable);
  EXPECT_TRUE(filter->filter(ctx, infos[1]).ok());
}

TEST(InterPodAffinityFilter, SkippedStateIgnoresAddedPods) {
  // A skipped PreFilter skips AddPod too (RunPreFilterExtensionAddPod): the filter stays out.
  const std::vector<Node> nodes = {node("nodeA", {{"zone", "z1"}})};
  const Pod pending = pod("", "", {{"foo", "bar"}});
  std::vector<NodeInfo> infos = snapshot(nodes, {});
  auto ptrs = node_ptrs(infos);
  auto filter = make_inter_pod_affinity_filter({});
  PodContext ctx(pending);
  ctx.filter_states.emplace_back(filter.get(),
                                 filter->pre_filter(ctx, std::span<const NodeInfo* const>(ptrs)));
  ctx.prepared = true;
  EXPECT_FALSE(filter->can_fail(ctx));
  const PodInfo added =
      make_pod_info(std::make_shared<const Pod>(pod("nodeA", "", {}, {}, {exists("foo", "zone")})));
  ctx.add_pod(added, infos[0]);
  EXPECT_FALSE(filter->can_fail(ctx));
  EXPECT_TRUE(filter->filter(ctx, infos[0]).ok());
}

}  // namespace
}  // namespace filters_inter_pod_affinity_test
}  // namespace kext
