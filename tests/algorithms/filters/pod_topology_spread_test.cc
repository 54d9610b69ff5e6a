#include "algorithms/filters/pod_topology_spread.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/topology_spread.h"
#include "tests/support/test_builders.h"

// The facts of kube-scheduler's pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go
// (TestSingleConstraint, TestMultipleConstraints, TestPreFilterStateAddPod/RemovePod), in this
// project's terms.

namespace kext {
namespace filters_pod_topology_spread_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_info;
using testing::node_ptrs;

LabelSelector exists(std::string key) { return testing::exists_selector(std::move(key)); }
const LabelSelector kFoo = exists("foo");
const LabelSelector kBar = exists("bar");
const std::vector<Taint> kUnschedulableTaint = {{"node.kubernetes.io/unschedulable", "", "NoSchedule"}};

TopologySpreadConstraint tsc(int32_t max_skew, std::string key, std::string when,
                             std::optional<LabelSelector> selector, std::optional<int32_t> min_domains = {},
                             std::string affinity_policy = "", std::string taints_policy = "",
                             std::vector<std::string> match_label_keys = {}) {
  TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = std::move(key);
  c.when_unsatisfiable = std::move(when);
  c.label_selector = std::move(selector);
  c.min_domains = min_domains;
  c.node_affinity_policy = std::move(affinity_policy);
  c.node_taints_policy = std::move(taints_policy);
  c.match_label_keys = std::move(match_label_keys);
  return c;
}
TopologySpreadConstraint hard(int32_t max_skew, std::string key, std::optional<LabelSelector> selector) {
  return tsc(max_skew, std::move(key), "DoNotSchedule", std::move(selector));
}

struct NodeSpec {
  std::string name;
  Labels labels;
  std::vector<Taint> taints = {};
};

struct PodSpec {
  std::string name;
  std::string node;
  Labels labels;
  std::string ns = "default";
  bool terminating = false;
};

Pod existing(const PodSpec& s) {
  Pod p = make_pod(s.name, 100, 0);
  p.namespace_ = s.ns;
  p.labels = s.labels;
  p.terminating = s.terminating;
  return p;
}

std::vector<NodeInfo> cluster(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& pods) {
  std::vector<NodeInfo> out;
  for (const auto& n : nodes) {
    Node node = make_node(n.name, 4000, 0);
    node.labels = n.labels;
    node.taints = n.taints;
    std::vector<Pod> on_node;
    for (const auto& p : pods)
      if (p.node == n.name) on_node.push_back(existing(p));
    out.push_back(node_info(std::move(node), std::move(on_node)));
  }
  return out;
}

Pod incoming(Labels labels, std::vector<TopologySpreadConstraint> constraints) {
  Pod p = make_pod("p", 100, 0);
  p.labels = std::move(labels);
  p.topology_spread_constraints = std::move(constraints);
  return p;
}

// One letter per node, in node order: S success, U unschedulable, R unschedulable and unresolvable.
std::string codes(const FilterPlugin& f, const PodContext& ctx, const std::vector<NodeInfo>& nodes) {
  std::string out;
  for (const auto& n : nodes) {
    FilterStatus s = f.filter(ctx, n);
    switch (s.code) {
      case FilterCode::kSuccess:
        out += 'S';
        EXPECT_TRUE(s.reasons.empty());
        break;
      case FilterCode::kUnschedulable:
        out += 'U';
        EXPECT_EQ(s.reasons, std::vector<std::string>{std::string(kSpreadConstraintsNotMatch)});
        break;
      case FilterCode::kUnresolvable:
        out += 'R';
        EXPECT_EQ(s.reasons, std::vector<std::string>{std::string(kSpreadNodeLabelNotMatch)});
        break;
    }
  }
  return out;
}

// A context whose PreFilter state was computed over `nodes` (the whole cluster), as Engine::prepare does.
PodContext prepared(const FilterPlugin& f, const Pod& pod, const std::vector<NodeInfo>& nodes,
                    const ClusterView* view = nullptr) {
  PodContext ctx(pod, view);
  auto ptrs = node_ptrs(nodes);
  if (auto state = f.pre_filter(ctx, ptrs)) ctx.filter_states.emplace_back(&f, std::move(state));
  ctx.prepared = true;
  return ctx;
}

const std::vector<NodeSpec> kFourNodes = {
    {"node-a", {{"zone", "zone1"}, {"node", "node-a"}}},
    {"node-b", {{"zone", "zone1"}, {"node", "node-b"}}},
    {"node-x", {{"zone", "zone2"}, {"node", "node-x"}}},
    {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}},
};
// node-a..node-y carrying the label foo="" except node-y (nodeAffinityPolicy cases).
const std::vector<NodeSpec> kFooNodes = {
    {"node-a", {{"node", "node-a"}, {"foo", ""}}},
    {"node-b", {{"node", "node-b"}, {"foo", ""}}},
    {"node-x", {{"node", "node-x"}, {"foo", ""}}},
    {"node-y", {{"node", "node-y"}}},
};
const std::vector<PodSpec> k2103 = {
    {"p-a1", "node-a", {{"foo", ""}}}, {"p-a2", "node-a", {{"foo", ""}}}, {"p-b1", "node-b", {{"foo", ""}}},
    {"p-y1", "node-y", {{"foo", ""}}}, {"p-y2", "node-y", {{"foo", ""}}}, {"p-y3", "node-y", {{"foo", ""}}},
};
const std::vector<PodSpec> k1101 = {
    {"p-b1", "node-a", {{"foo", ""}}}, {"p-b2", "node-b", {{"foo", ""}}}, {"p-y1", "node-y", {{"foo", ""}}}};

TEST(PodTopologySpreadFilter, Name) {
  EXPECT_EQ(make_pod_topology_spread_filter(TopologySpreadArgs{})->name(), "PodTopologySpread");
}

struct Case {
  std::string name;
  Pod pod;
  std::vector<NodeSpec> nodes;
  std::vector<PodSpec> pods;
  std::string want;
};

Pod with_selector(Pod p, Labels node_selector) {
  p.node_selector = std::move(node_selector);
  return p;
}
Pod with_affinity(Pod p, std::string key, std::string op, std::vector<std::string> values) {
  p.node_affinity = NodeAffinity{std::vector<NodeSelectorTerm>{NodeSelectorTerm{
                                     {{std::move(key), std::move(op), std::move(values)}}, {}}},
                                 {}};
  return p;
}

void run_cases(const std::vector<Case>& cases) {
  auto f = make_pod_topology_spread_filter(TopologySpreadArgs{SpreadDefaulting::kList, {}});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto nodes = cluster(c.nodes, c.pods);
    PodContext ctx = prepared(*f, c.pod, nodes);
    EXPECT_TRUE(f->can_fail(ctx));
    EXPECT_EQ(codes(*f, ctx, nodes), c.want);
  }
}

// filtering_test.go TestSingleConstraint.
TEST(PodTopologySpreadFilter, SingleConstraint) {
  const Labels foo = {{"foo", ""}};
  run_cases({
      {"no existing pods", incoming(foo, {hard(1, "zone", kFoo)}), kFourNodes, {}, "SSSS"},
      {"no existing pods, incoming pod doesn't match itself",
       incoming(foo, {hard(1, "zone", kBar)}),
       kFourNodes,
       {},
       "SSSS"},
      {"existing pods in a different namespace do not count",
       incoming(foo, {hard(1, "zone", kFoo)}),
       kFourNodes,
       {{"p-a1", "node-a", foo, "ns1"},
        {"p-b1", "node-a", foo, "ns2"},
        {"p-x1", "node-x", foo},
        {"p-y1", "node-y", foo}},
       "SSUU"},
      {"existing pods do not match null selector",
       incoming(foo, {hard(1, "zone", std::nullopt)}),
       kFourNodes,
       {{"p-x1", "node-x", foo}, {"p-y1", "node-y", foo}},
       "SSSS"},
      {"pods spread across zones as 3/3, all nodes fit", incoming(foo, {hard(1, "zone", kFoo)}), kFourNodes,
       k2103, "SSSS"},
      {"pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
       incoming(foo, {hard(1, "zone", kFoo)}),
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}}},
        {"node-b", {{"zon", "zone1"}, {"node", "node-b"}}},
        {"node-x", {{"zone", "zone2"}, {"node", "node-x"}}},
        {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}}},
       {{"p-a1", "node-a", foo}, {"p-b1", "node-b", foo}, {"p-x1", "node-x", foo}, {"p-y1", "node-y", foo}},
       "SRUU"},
      {"pod cannot be scheduled as all nodes don't have label 'rack'",
       incoming(foo, {hard(1, "rack", kFoo)}),
       {kFourNodes[0], kFourNodes[2]},
       {},
       "RR"},
      {"pods spread across nodes as 2/1/0/3, only node-x fits", incoming(foo, {hard(1, "node", kFoo)}),
       kFourNodes, k2103, "UUSU"},
      {"pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
       incoming(foo, {hard(2, "node", kFoo)}), kFourNodes, k2103, "USSU"},
      {"pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
       incoming({{"bar", ""}}, {hard(1, "node", kFoo)}), kFourNodes, k2103, "USSU"},
      // Only node-a and node-y count (2/~1~/~0~/3): node-b and node-x pass here, NodeAffinity fails them.
      {"incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
       with_affinity(incoming(foo, {hard(1, "node", kFoo)}), "node", "In", {"node-a", "node-y"}), kFourNodes,
       k2103, "SSSU"},
      {"terminating Pods should be excluded",
       incoming(foo, {hard(1, "node", kFoo)}),
       {{"node-a", {{"node", "node-a"}}}, {"node-b", {{"node", "node-b"}}}},
       {{"p-a", "node-a", foo, "default", true}, {"p-b", "node-b", foo}},
       "SU"},
      {"incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
       with_affinity(incoming(foo, {hard(1, "zone", kFoo)}), "node", "NotIn", {"node-b"}),
       kFourNodes,
       {{"p-b1", "node-b", foo}, {"p-b2", "node-b", foo}, {"p-y1", "node-y", foo}},
       "SSUU"},
      {"pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the "
       "third "
       "node fits",
       incoming(foo, {tsc(2, "node", "DoNotSchedule", kFoo, 4)}),
       {{"node-a", {{"node", "node-a"}}}, {"node-b", {{"node", "node-b"}}}, {"node-c", {{"node", "node-c"}}}},
       {{"p-a1", "node-a", foo},
        {"p-a2", "node-a", foo},
        {"p-b1", "node-b", foo},
        {"p-b2", "node-b", foo},
        {"p-c1", "node-c", foo}},
       "UUS"},
      {"pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the "
       "all "
       "nodes fit",
       incoming(foo, {tsc(2, "node", "DoNotSchedule", kFoo, 2)}),
       {{"node-a", {{"node", "node-a"}}}, {"node-b", {{"node", "node-b"}}}, {"node-c", {{"node", "node-c"}}}},
       {{"p-a1", "node-a", foo},
        {"p-a2", "node-a", foo},
        {"p-b1", "node-b", foo},
        {"p-b2", "node-b", foo},
        {"p-c1", "node-c", foo}},
       "SSS"},
      {"pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third "
       "and "
       "fourth nodes fit",
       incoming(foo, {tsc(2, "zone", "DoNotSchedule", kFoo, 3)}), kFourNodes, k1101, "UUSS"},
      {"pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all "
       "nodes "
       "fit",
       incoming(foo, {tsc(2, "zone", "DoNotSchedule", kFoo, 1)}), kFourNodes, k1101, "SSSS"},
      // node-y passes here (its domain is not counted); NodeAffinity fails it.
      {"NodeAffinityPolicy honored with labelSelectors",
       with_selector(incoming(foo, {hard(1, "node", kFoo)}), foo), kFooNodes, k1101, "UUSS"},
      {"NodeAffinityPolicy ignored with labelSelectors",
       with_selector(incoming(foo, {tsc(1, "node", "DoNotSchedule", kFoo, {}, "Ignore")}), foo), kFooNodes,
       k1101, "UUSU"},
      {"NodeAffinityPolicy honored with nodeAffinity",
       with_affinity(incoming(foo, {hard(1, "node", kFoo)}), "foo", "In", {""}), kFooNodes, k1101, "UUSS"},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       with_affinity(incoming(foo, {tsc(1, "node", "DoNotSchedule", kFoo, {}, "Ignore")}), "foo", "In", {""}),
       kFooNodes, k1101, "UUSU"},
      {"NodeTaintsPolicy honored",
       incoming(foo, {tsc(1, "node", "DoNotSchedule", kFoo, {}, "", "Honor")}),
       {kFooNodes[0], kFooNodes[1], kFooNodes[2], {"node-y", {{"node", "node-y"}}, kUnschedulableTaint}},
       k1101,
       "UUSS"},
      {"NodeTaintsPolicy ignored",
       incoming(foo, {hard(1, "node", kFoo)}),
       {kFooNodes[0], kFooNodes[1], kFooNodes[2], {"node-y", {{"node", "node-y"}}, kUnschedulableTaint}},
       k1101,
       "UUSU"},
  });
}

// What changed by minor (kube_version.h since::): each change at the minor that brought it and at the
// minor before.
TEST(PodTopologySpreadFilter, ByMinor) {
  const Labels foo = {{"foo", ""}};
  const Labels v1 = {{"foo", ""}, {"rev", "v1"}};
  const Labels v2 = {{"foo", ""}, {"rev", "v2"}};
  const Pod same_rev = incoming(v1, {tsc(1, "node", "DoNotSchedule", kFoo, {}, "", "", {"rev"})});
  const std::vector<PodSpec> revs = {{"p-a1", "node-a", v2}, {"p-a2", "node-a", v2}, {"p-b1", "node-b", v1}};
  const Pod empty_selector = incoming(foo, {hard(1, "node", LabelSelector{})});
  const std::vector<PodSpec> unrelated = {{"p-a1", "node-a", {{"other", "x"}}}};
  const Pod four_domains = incoming(foo, {tsc(2, "node", "DoNotSchedule", kFoo, 4)});
  const std::vector<NodeSpec> abc = {
      {"node-a", {{"node", "node-a"}}}, {"node-b", {{"node", "node-b"}}}, {"node-c", {{"node", "node-c"}}}};
  const std::vector<PodSpec> pods_221 = {{"p-a1", "node-a", foo},
                                         {"p-a2", "node-a", foo},
                                         {"p-b1", "node-b", foo},
                                         {"p-b2", "node-b", foo},
                                         {"p-c1", "node-c", foo}};
  struct MinorCase {
    std::string name;
    int minor;
    Pod pod;
    std::vector<NodeSpec> nodes;
    std::vector<PodSpec> pods;
    std::string want;
  };
  const std::vector<NodeSpec> ab = {kFourNodes[0], kFourNodes[1]};
  const std::vector<MinorCase> cases = {
      {"matchLabelKeys: only rev=v1 pods count, 0/1", 27, same_rev, ab, revs, "SU"},
      {"matchLabelKeys ignored (alpha, off): every foo pod counts, 2/1", 26, same_rev, ab, revs, "US"},
      {"labelSelector {} counts no existing pod", 27, empty_selector, kFourNodes, unrelated, "SSSS"},
      {"labelSelector {} counts none still at 1.36 (v1.36.3 predates #141340)", 36, empty_selector,
       kFourNodes, unrelated, "SSSS"},
      {"labelSelector {} counts every pod", 26, empty_selector, kFourNodes, unrelated, "USSS"},
      {"minDomains 4 with 3 domains: the global minimum is 0", 27, four_domains, abc, pods_221, "UUS"},
      {"minDomains not read (beta, off): the global minimum is 1", 26, four_domains, abc, pods_221, "SSS"},
  };
  for (const MinorCase& c : cases) {
    SCOPED_TRACE(c.name + " at 1." + std::to_string(c.minor));
    auto f = make_pod_topology_spread_filter(TopologySpreadArgs{SpreadDefaulting::kList, {}},
                                             KubeVersion{c.minor});
    auto nodes = cluster(c.nodes, c.pods);
    EXPECT_EQ(codes(*f, prepared(*f, c.pod, nodes), nodes), c.want);
  }
}

// From 1.27 a `labelSelector: {}` counts no existing pod in PreFilter, while preemption's AddPod /
// RemovePod still match every pod (updateWithPod reads Selector.Matches): a dry run's removal takes its
// domain below 0, and the other domains then fail the skew.
TEST(PodTopologySpreadFilter, EmptySelectorStateFollowsPreemption) {
  auto f = make_pod_topology_spread_filter(TopologySpreadArgs{SpreadDefaulting::kList, {}}, KubeVersion{27});
  auto nodes = cluster({kFourNodes[0], kFourNodes[1]},
                       {{"p-a1", "node-a", {{"other", "x"}}}, {"p-b1", "node-b", {{"other", "y"}}}});
  Pod p = incoming({{"foo", ""}}, {hard(1, "node", LabelSelector{})});
  PodContext ctx = prepared(*f, p, nodes);
  EXPECT_EQ(codes(*f, ctx, nodes), "SS");
  PodContext dry = ctx.with_cloned_states();
  dry.remove_pod(*nodes[0].pods[0], nodes[0]);
  // node-a -1, node-b 0: node-b 0 + 1 - (-1) > 1.
  EXPECT_EQ(codes(*f, dry, nodes), "SU");
}

// filtering_test.go TestMultipleConstraints.
TEST(PodTopologySpreadFilter, MultipleConstraints) {
  const Labels foo = {{"foo", ""}};
  const Labels bar = {{"bar", ""}};
  const Labels foobar = {{"foo", ""}, {"bar", ""}};
  run_cases({
      {"two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
       incoming(foo, {hard(1, "zone", kFoo), hard(1, "node", kFoo)}), kFourNodes, k2103, "UUSU"},
      {"two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
       incoming(foo, {hard(1, "zone", kFoo), hard(1, "node", kFoo)}),
       kFourNodes,
       {{"p-a1", "node-a", foo},
        {"p-a2", "node-a", foo},
        {"p-b1", "node-b", foo},
        {"p-y1", "node-y", foo},
        {"p-y2", "node-y", foo},
        {"p-y3", "node-y", foo},
        {"p-y4", "node-y", foo}},
       "UUUU"},
      {"Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
       incoming(foobar, {hard(1, "zone", kFoo), hard(1, "node", kBar)}),
       kFourNodes,
       {{"p-a1", "node-a", foo}, {"p-y1", "node-y", bar}},
       "UUSU"},
      {"Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
       incoming(foobar, {hard(1, "zone", kFoo), hard(1, "node", kBar)}),
       kFourNodes,
       {{"p-a1", "node-a", foo}, {"p-x1", "node-x", bar}, {"p-y1", "node-y", bar}},
       "UUUU"},
      {"Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
       incoming(foobar, {hard(1, "zone", kFoo), hard(1, "node", kBar)}),
       kFourNodes,
       {{"p-a1", "node-a", foo},
        {"p-a2", "node-a", foobar},
        {"p-y1", "node-y", foo},
        {"p-y2", "node-y", foobar},
        {"p-y3", "node-y", foo}},
       "USUU"},
      {"Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
       incoming(bar, {hard(1, "zone", kFoo), hard(1, "node", kBar)}),
       kFourNodes,
       {{"p-a1", "node-a", foo}, {"p-x1", "node-x", bar}, {"p-y1", "node-y", bar}},
       "SSUU"},
      {"two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
       incoming(foo, {hard(1, "zone", kFoo), hard(1, "node", kFoo)}),
       {kFourNodes[0], kFourNodes[1], {"node-x", {{"zone", "zone2"}}}, kFourNodes[3]},
       {{"p-a1", "node-a", foo}, {"p-y3", "node-y", foo}},
       "USRU"},
      {"two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
       with_selector(
           incoming(foo, {hard(1, "zone", kFoo), tsc(1, "node", "DoNotSchedule", kFoo, {}, "Ignore")}), foo),
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}}},
       {{"p-a1", "node-a", foo}, {"p-b1", "node-b", foo}, {"p-y1", "node-y", foo}},
       "UUSU"},
      {"two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
       incoming(foo, {tsc(1, "zone", "DoNotSchedule", kFoo, {}, "", "Honor"), hard(1, "node", kFoo)}),
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}}},
        {"node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"zone", "zone2"}, {"node", "node-y"}}, kUnschedulableTaint}},
       {{"p-a1", "node-a", foo}, {"p-b1", "node-b", foo}, {"p-y1", "node-y", foo}},
       "UUSU"},
      {"two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
       with_selector(incoming(foo, {hard(1, "zone", kFoo), hard(1, "node", kFoo)}), foo),
       {{"node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}},
        {"node-b", {{"zone", "zone1"}, {"node", "node-b"}}},
        {"node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}},
        {"node-y", {{"zone", "zone2"}, {"node", "node-y"}, {"foo", ""}}, kUnschedulableTaint}},
       {{"p-a1", "node-a", foo}, {"p-b1", "node-b", foo}, {"p-y1", "node-y", foo}},
       "USSU"},
  });
}

// matchLabelKeys: the pod's value of each listed key joins the selector, so only pods of the same
// revision count (common.go filterTopologySpreadConstraints / mergeLabelSetWithSelector).
TEST(PodTopologySpreadFilter, MatchLabelKeys) {
  auto f = make_pod_topology_spread_filter(TopologySpreadArgs{SpreadDefaulting::kList, {}});
  const Labels v1 = {{"foo", ""}, {"rev", "v1"}};
  const Labels v2 = {{"foo", ""}, {"rev", "v2"}};
  // node-a holds two v2 pods, node-b one v1 pod.
  auto nodes = cluster({kFourNodes[0], kFourNodes[1]},
                       {{"p-a1", "node-a", v2}, {"p-a2", "node-a", v2}, {"p-b1", "node-b", v1}});
  {
    SCOPED_TRACE("without matchLabelKeys every foo pod counts: 2/1");
    Pod p = incoming(v1, {hard(1, "node", kFoo)});
    EXPECT_EQ(codes(*f, prepared(*f, p, nodes), nodes), "US");
  }
  {
    SCOPED_TRACE("rev=v1 pods only: 0/1");
    Pod p = incoming(v1, {tsc(1, "node", "DoNotSchedule", kFoo, {}, "", "", {"rev"})});
    EXPECT_EQ(codes(*f, prepared(*f, p, nodes), nodes), "SU");
  }
  {
    SCOPED_TRACE("a key the pod does not carry adds nothing");
    Pod p = incoming(v1, {tsc(1, "node", "DoNotSchedule", kFoo, {}, "", "", {"missing"})});
    EXPECT_EQ(codes(*f, prepared(*f, p, nodes), nodes), "US");
  }
  {
    SCOPED_TRACE("a nil selector stays nil: nothing counts, and the pod does not match itself");
    Pod p = incoming(v1, {tsc(1, "node", "DoNotSchedule", std::nullopt, {}, "", "", {"rev"})});
    EXPECT_EQ(codes(*f, prepared(*f, p, nodes), nodes), "SS");
  }
}

TEST(PodTopologySpreadFilter, SkipsPodsWithoutHardConstraints) {
  auto f = make_pod_topology_spread_filter(TopologySpreadArgs{});
  auto nodes = cluster(kFourNodes, k2103);
  const Labels foo = {{"foo", ""}};
  for (const Pod& p : {incoming(foo, {}), incoming(foo, {tsc(1, "node", "ScheduleAnyway", kFoo)})}) {
    PodContext ctx = prepared(*f, p, nodes);
    EXPECT_FALSE(f->can_fail(ctx));
    EXPECT_FALSE(f->can_fail(PodContext(p)));
    EXPECT_EQ(codes(*f, ctx, nodes), "SSSS");
  }
  // A node missing the key still fails only when there is a hard constraint on it.
  Pod hard_pod = incoming(foo, {hard(1, "rack", kFoo)});
  EXPECT_TRUE(f->can_fail(PodContext(hard_pod)));
}

// Defaults (plugin.go, common.go buildDefaultConstraints): a pod without constraints gets the
// DoNotSchedule defaults of a List configuration when a Service selects it; the system defaults are all
// ScheduleAnyway, so the filter never applies them.
TEST(PodTopologySpreadFilter, DefaultConstraints) {
  const Labels web = {{"app", "web"}};
  auto nodes = cluster(kFourNodes, {{"w1", "node-a", web}, {"w2", "node-b", {{"app", "db"}}}});
  auto ptrs = node_ptrs(nodes);
  const std::vector<WorkloadSelector> services = {{"default", "web", LabelSelector{web, {}}},
                                                  {"other", "web", LabelSelector{{{"app", "db"}}, {}}}};
  ClusterView view;
  view.nodes = ptrs;
  view.services = services;
  Pod p = incoming(web, {});

  TopologySpreadArgs list{SpreadDefaulting::kList, {tsc(1, "zone", "DoNotSchedule", std::nullopt)}};
  auto f = make_pod_topology_spread_filter(list);
  {
    SCOPED_TRACE("a Service selects the pod: zones 1/0");
    PodContext ctx = prepared(*f, p, nodes, &view);
    EXPECT_TRUE(f->can_fail(ctx));
    EXPECT_EQ(codes(*f, ctx, nodes), "UUSS");
  }
  {
    SCOPED_TRACE("no Service in the pod's namespace selects it");
    Pod lonely = incoming({{"app", "db"}}, {});
    PodContext ctx = prepared(*f, lonely, nodes, &view);
    EXPECT_FALSE(f->can_fail(ctx));
    EXPECT_EQ(codes(*f, ctx, nodes), "SSSS");
  }
  {
    SCOPED_TRACE("no cluster view: no defaults");
    PodContext ctx = prepared(*f, p, nodes);
    EXPECT_FALSE(f->can_fail(ctx));
  }
  {
    SCOPED_TRACE("system defaulting: ScheduleAnyway only");
    auto sys = make_pod_topology_spread_filter(
        TopologySpreadArgs{SpreadDefaulting::kSystem, list.default_constraints});
    PodContext ctx = prepared(*sys, p, nodes, &view);
    EXPECT_FALSE(sys->can_fail(ctx));
    EXPECT_EQ(codes(*sys, ctx, nodes), "SSSS");
  }
}

// helper/spread.go DefaultSelector.
TEST(PodTopologySpread, DefaultSelector) {
  Pod p = incoming({{"app", "web"}, {"tier", "fe"}}, {});
  std::vector<WorkloadSelector> services = {{"default", "s1", LabelSelector{{{"app", "web"}}, {}}},
                                            {"default", "s2", LabelSelector{{{"tier", "fe"}}, {}}},
                                            {"default", "s3", LabelSelector{{{"app", "db"}}, {}}},
                                            {"other", "s4", LabelSelector{{{"app", "web"}, {"x", "y"}}, {}}}};
  std::vector<WorkloadSelector> rss = {
      {"default", "rs1", LabelSelector{{{"app", "web"}}, {{"pod-template-hash", "Exists", {}}}}}};
  std::vector<WorkloadSelector> rcs = {{"default", "rc1", LabelSelector{{{"rc", "1"}}, {}}}};
  ClusterView view;
  view.services = services;
  view.replica_sets = rss;
  view.replication_controllers = rcs;

  EXPECT_FALSE(default_spread_selector(p, nullptr).has_value());
  EXPECT_EQ(default_spread_selector(p, &view), (LabelSelector{{{"app", "web"}, {"tier", "fe"}}, {}}));
  p.controller_kind = "ReplicaSet";
  p.controller_name = "rs1";
  EXPECT_EQ(default_spread_selector(p, &view),
            (LabelSelector{{{"app", "web"}, {"tier", "fe"}},
                           {{"app", "In", {"web"}}, {"pod-template-hash", "Exists", {}}}}));
  p.controller_name = "missing";
  EXPECT_EQ(default_spread_selector(p, &view), (LabelSelector{{{"app", "web"}, {"tier", "fe"}}, {}}));
  // The RC that controls the pod is read by name; its selector is merged as labels.
  p.controller_kind = "ReplicationController";
  p.controller_name = "rc1";
  EXPECT_EQ(default_spread_selector(p, &view),
            (LabelSelector{{{"app", "web"}, {"rc", "1"}, {"tier", "fe"}}, {}}));
  Pod nobody = incoming({{"app", "other"}}, {});
  EXPECT_FALSE(default_spread_selector(nobody, &view).has_value());
}

std::shared_ptr<const PodInfo> pod_info(const PodSpec& s) {
  Pod p = existing(s);
  p.node_name = s.node;
  return std::make_shared<const PodInfo>(make_pod_info(std::make_shared<const Pod>(std::move(p))));
}

// filtering_test.go TestPreFilterStateAddPod / TestPreFilterStateRemovePod, observed through Filter.
TEST(PodTopologySpreadFilter, StateAddPod) {
  auto f = make_pod_topology_spread_filter(TopologySpreadArgs{SpreadDefaulting::kList, {}});
  const Labels foo = {{"foo", ""}};
  const std::vector<NodeSpec> specs = {kFourNodes[0], kFourNodes[1], kFourNodes[2]};
  auto nodes = cluster(specs, {{"p-a1", "node-a", foo}});
  Pod p = incoming(foo, {hard(1, "zone", kFoo), hard(1, "node", kFoo)});
  PodContext ctx = prepared(*f, p, nodes);
  // zones 1/0, nodes 1/0/0.
  EXPECT_EQ(codes(*f, ctx, nodes), "UUS");

  PodContext preempting = ctx.with_cloned_states();
  preempting.add_pod(*pod_info({"p-x1", "node-x", foo}), nodes[2]);
  // zones 1/1, nodes 1/0/1: node-b is the only one left.
  EXPECT_EQ(codes(*f, preempting, nodes), "USU");
  EXPECT_EQ(codes(*f, ctx, nodes), "UUS") << "the clone is independent";

  // A pod of another namespace, or one the selector does not match, changes nothing.
  PodContext other = ctx.with_cloned_states();
  other.add_pod(*pod_info({"q", "node-x", foo, "ns1"}), nodes[2]);
  other.add_pod(*pod_info({"r", "node-x", {{"bar", ""}}}), nodes[2]);
  EXPECT_EQ(codes(*f, other, nodes), "UUS");

  // A node without all the keys is not counted.
  auto keyless = cluster({{"node-z", {{"zone", "zone2"}}}}, {});
  PodContext missing = ctx.with_cloned_states();
  missing.add_pod(*pod_info({"s", "node-z", foo}), keyless[0]);
  EXPECT_EQ(codes(*f, missing, nodes), "UUS");
}

TEST(PodTopologySpreadFilter, StateRemovePod) {
  auto f = make_pod_topology_spread_filter(TopologySpreadArgs{SpreadDefaulting::kList, {}});
  const Labels foo = {{"foo", ""}};
  // "remove a pod when scheduling node affinity matched pod": zones 1/2 before, 1/1 after.
  auto nodes = cluster({{"node-a", {{"zone", "zone1"}, {"node", "node-a"}}},
                        {"node-b", {{"zone", "zone2"}, {"node", "node-b"}}}},
                       {{"p-a1", "node-a", foo}, {"p-b1", "node-b", foo}, {"p-b2", "node-b", foo}});
  Pod p = incoming(foo, {hard(1, "zone", kFoo)});
  PodContext ctx = prepared(*f, p, nodes);
  EXPECT_EQ(codes(*f, ctx, nodes), "SU");
  PodContext preempting = ctx.with_cloned_states();
  preempting.remove_pod(*nodes[1].pods[0], nodes[1]);
  EXPECT_EQ(codes(*f, preempting, nodes), "SS");
  preempting.remove_pod(*nodes[1].pods[1], nodes[1]);
  // zone2 now 0: node-a 1 + 1 - 0 > 1.
  EXPECT_EQ(codes(*f, preempting, nodes), "US");
  preempting.add_pod(*nodes[1].pods[1], nodes[1]);
  EXPECT_EQ(codes(*f, preempting, nodes), "SS");
}

// Preemption's dry run updates the two critical paths as updateWithPod does: raising the minimum
// domain hands the minimum to the second path.
TEST(PodTopologySpreadFilter, StateCriticalPaths) {
  auto f = make_pod_topology_spread_filter(TopologySpreadArgs{SpreadDefaulting::kList, {}});
  const Labels foo = {{"foo", ""}};
  std::vector<NodeSpec> specs;
  for (std::string n : {"n1", "n2", "n3"}) specs.push_back({n, {{"node", n}}});
  // n1 1, n2 3, n3 5 pods.
  std::vector<PodSpec> pods;
  for (int i = 0; i < 1; ++i) pods.push_back({"a" + std::to_string(i), "n1", foo});
  for (int i = 0; i < 3; ++i) pods.push_back({"b" + std::to_string(i), "n2", foo});
  for (int i = 0; i < 5; ++i) pods.push_back({"c" + std::to_string(i), "n3", foo});
  auto nodes = cluster(specs, pods);
  Pod p = incoming(foo, {hard(3, "node", kFoo)});
  PodContext ctx = prepared(*f, p, nodes);
  // min 1: n1 1+1-1, n2 3+1-1, n3 5+1-1 = 5 > 3.
  EXPECT_EQ(codes(*f, ctx, nodes), "SSU");
  PodContext c = ctx.with_cloned_states();
  for (int i = 0; i < 3; ++i) c.add_pod(*pod_info({"x" + std::to_string(i), "n1", foo}), nodes[0]);
  // n1 4, n2 3, n3 5: min 3 (the second path).
  EXPECT_EQ(codes(*f, c, nodes), "SSS");
}

}  // namespace
}  // namespace filters_pod_topology_spread_test
}  // namespace kext
