#include "algorithms/scores/pod_topology_spread.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/support/test_builders.h"

// The facts of kube-scheduler's pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go
// (TestPodTopologySpreadScore), in this project's terms.

namespace kext {
namespace scores_pod_topology_spread_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_info;
using testing::node_ptrs;

LabelSelector exists(std::string key) { return testing::exists_selector(std::move(key)); }
const LabelSelector kFoo = exists("foo");
const LabelSelector kBar = exists("bar");
const std::string kHost(kHostnameLabel);
const std::vector<Taint> kUnschedulableTaint = {{"node.kubernetes.io/unschedulable", "", "NoSchedule"}};

TopologySpreadConstraint soft(int32_t max_skew, std::string key, std::optional<LabelSelector> selector,
                              std::optional<int32_t> min_domains = {}, std::string affinity_policy = "",
                              std::string taints_policy = "",
                              std::vector<std::string> match_label_keys = {}) {
  TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = std::move(key);
  c.when_unsatisfiable = "ScheduleAnyway";
  c.label_selector = std::move(selector);
  c.min_domains = min_domains;
  c.node_affinity_policy = std::move(affinity_policy);
  c.node_taints_policy = std::move(taints_policy);
  c.match_label_keys = std::move(match_label_keys);
  return c;
}

struct NodeSpec {
  std::string name;
  Labels labels;
  bool candidate = true;  // false: failed the filters, in the cluster but not scored
  std::vector<Taint> taints = {};
};

struct PodSpec {
  std::string name;
  std::string node;
  Labels labels;
  std::string ns = "default";
  bool terminating = false;
};

// Host-labelled nodes, candidates unless listed in `failed`.
std::vector<NodeSpec> hosts(std::vector<std::string> names, std::vector<std::string> failed = {}) {
  std::vector<NodeSpec> out;
  for (auto& n : names) {
    bool cand = std::find(failed.begin(), failed.end(), n) == failed.end();
    out.push_back({n, {{kHost, n}}, cand});
  }
  return out;
}

std::vector<NodeInfo> cluster(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& pods) {
  std::vector<NodeInfo> out;
  for (const auto& n : nodes) {
    Node node = make_node(n.name, 4000, 0);
    node.labels = n.labels;
    node.taints = n.taints;
    std::vector<Pod> on_node;
    for (const auto& s : pods) {
      if (s.node != n.name) continue;
      Pod p = make_pod(s.name, 100, 0);
      p.namespace_ = s.ns;
      p.labels = s.labels;
      p.terminating = s.terminating;
      on_node.push_back(std::move(p));
    }
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

// PreScore over the whole cluster, Score and NormalizeScore over the candidates, as the engine runs a score
// plugin; also checks that score() by node agrees with the engine's score_at.
std::vector<int64_t> run(const ScorePlugin& s, const Pod& pod, const std::vector<NodeSpec>& specs,
                         const std::vector<PodSpec>& pods, std::span<const WorkloadSelector> services = {}) {
  auto all = cluster(specs, pods);
  auto all_ptrs = node_ptrs(all);
  std::vector<const NodeInfo*> scored;
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].candidate) scored.push_back(&all[i]);
  ClusterView view;
  view.nodes = all_ptrs;
  view.services = services;
  PodContext ctx(pod, &view);
  auto prepared = s.prepare(ctx, scored);
  std::vector<int64_t> out;
  for (size_t i = 0; i < scored.size(); ++i) {
    out.push_back(s.score_at(ctx, prepared.get(), scored, i));
    EXPECT_EQ(out.back(), s.score(ctx, prepared.get(), *scored[i])) << scored[i]->name();
  }
  if (s.has_reduce()) s.reduce(out);
  return out;
}

struct Case {
  std::string name;
  Pod pod;
  std::vector<NodeSpec> nodes;
  std::vector<PodSpec> pods;
  std::vector<int64_t> want;
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

TEST(PodTopologySpreadScore, NameAndReduce) {
  auto s = make_pod_topology_spread_score(TopologySpreadArgs{});
  EXPECT_EQ(s->name(), "PodTopologySpread");
  EXPECT_TRUE(s->has_reduce());
}

// scoring_test.go TestPodTopologySpreadScore.
TEST(PodTopologySpreadScore, Table) {
  const Labels foo = {{"foo", ""}};
  const Labels bar = {{"bar", ""}};
  const Labels foobar = {{"foo", ""}, {"bar", ""}};
  auto pods_2103 = [&](std::string d) {
    return std::vector<PodSpec>{{"p-a1", "node-a", foo}, {"p-a2", "node-a", foo}, {"p-b1", "node-b", foo},
                                {"p-d1", d, foo},        {"p-d2", d, foo},        {"p-d3", d, foo}};
  };
  const std::vector<PodSpec> pods_4321 = {
      {"p-a1", "node-a", foo}, {"p-a2", "node-a", foo}, {"p-a3", "node-a", foo}, {"p-a4", "node-a", foo},
      {"p-b1", "node-b", foo}, {"p-b2", "node-b", foo}, {"p-b3", "node-b", foo}, {"p-c1", "node-c", foo},
      {"p-c2", "node-c", foo}, {"p-d1", "node-d", foo}};
  const std::vector<PodSpec> pods_4213 = {
      {"p-a1", "node-a", foo}, {"p-a2", "node-a", foo}, {"p-a3", "node-a", foo}, {"p-a4", "node-a", foo},
      {"p-b1", "node-b", foo}, {"p-b2", "node-b", foo}, {"p-x1", "node-x", foo}, {"p-y1", "node-y", foo},
      {"p-y2", "node-y", foo}, {"p-y3", "node-y", foo}};
  auto zoned = [&](std::vector<std::string> failed = {}) {
    std::vector<NodeSpec> out;
    for (auto [n, z] : std::vector<std::pair<std::string, std::string>>{
             {"node-a", "zone1"}, {"node-b", "zone1"}, {"node-x", "zone2"}, {"node-y", "zone2"}}) {
      bool cand = std::find(failed.begin(), failed.end(), n) == failed.end();
      out.push_back({n, {{"zone", z}, {kHost, n}}, cand});
    }
    return out;
  };
  const std::vector<PodSpec> pods_abc = {
      {"p-a1", "node-a", foo}, {"p-a2", "node-a", foo}, {"p-b1", "node-b", foo}, {"p-c1", "node-c", foo}};
  const std::vector<NodeSpec> foo_nodes = {{"node-a", {{"node", "node-a"}, {"foo", ""}}},
                                           {"node-b", {{"node", "node-b"}, {"foo", ""}}},
                                           {"node-c", {{"node", "node-c"}}}};
  const std::vector<NodeSpec> tainted_nodes = {{"node-a", {{"node", "node-a"}}},
                                               {"node-b", {{"node", "node-b"}}},
                                               {"node-c", {{"node", "node-c"}}, true, kUnschedulableTaint}};
  const std::vector<NodeSpec> abcd_zoned = {{"node-a", {{"zone", "zone1"}, {kHost, "node-a"}}},
                                            {"node-b", {{"zone", "zone1"}, {kHost, "node-b"}}},
                                            {"node-c", {{"zone", "zone2"}, {kHost, "node-c"}}},
                                            {"node-d", {{"zone", "zone2"}, {kHost, "node-d"}}}};
  const std::vector<PodSpec> abcd_pods = {
      {"p-a1", "node-a", foo}, {"p-b1", "node-b", foobar}, {"p-y1", "node-c", foo}, {"p-y2", "node-c", bar}};

  const std::vector<Case> cases = {
      {"one constraint on node, no existing pods",
       incoming(foo, {soft(1, kHost, kFoo)}),
       hosts({"node-a", "node-b"}),
       {},
       {100, 100}},
      {"one constraint on node, only one node is candidate",
       incoming(foo, {soft(1, kHost, kFoo)}),
       hosts({"node-a", "node-b"}, {"node-b"}),
       {{"p-a1", "node-a", foo}, {"p-a2", "node-a", foo}, {"p-b1", "node-b", foo}},
       {100}},
      {"one constraint on node, all nodes have the same number of matching pods",
       incoming(foo, {soft(1, kHost, kFoo)}),
       hosts({"node-a", "node-b"}),
       {{"p-a1", "node-a", foo}, {"p-b1", "node-b", foo}},
       {100, 100}},
      {"one constraint on node, all 4 nodes are candidates",
       incoming(foo, {soft(1, kHost, kFoo)}),
       hosts({"node-a", "node-b", "node-c", "node-d"}),
       pods_2103("node-d"),
       {20, 60, 100, 0}},
      {"one constraint on node, null selector",
       incoming(foo, {soft(1, kHost, std::nullopt)}),
       hosts({"node-a", "node-b", "node-c", "node-d"}),
       pods_2103("node-d"),
       {100, 100, 100, 100}},
      {"one constraint on node, all 4 nodes are candidates, maxSkew=2",
       incoming(foo, {soft(2, kHost, kFoo)}),
       hosts({"node-a", "node-b", "node-c", "node-d"}),
       pods_2103("node-d"),
       {33, 66, 100, 16}},
      {"one constraint on node, all 4 nodes are candidates, maxSkew=3",
       incoming(foo, {soft(3, kHost, kFoo)}),
       hosts({"node-a", "node-b", "node-c", "node-d"}),
       pods_4321,
       {44, 66, 77, 100}},
      {"one constraint on node, 3 out of 4 nodes are candidates",
       incoming(foo, {soft(1, kHost, kFoo)}),
       hosts({"node-a", "node-b", "node-x", "node-y"}, {"node-y"}),
       pods_4213,
       {33, 83, 100}},
      {"one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
       incoming(foo, {soft(1, kHost, kFoo)}),
       {{"node-a", {{kHost, "node-a"}}},
        {"node-b", {{"n", "node-b"}}},
        {"node-x", {{kHost, "node-x"}}},
        {"node-y", {{kHost, "node-y"}}, false}},
       pods_4213,
       {16, 0, 100}},
      {"one constraint on zone, 3 out of 4 nodes are candidates",
       incoming(foo, {soft(1, "zone", kFoo)}),
       zoned({"node-y"}),
       pods_4213,
       {75, 75, 100}},
      {"two Constraints on zone and node, 2 out of 4 nodes are candidates",
       incoming(foo, {soft(1, "zone", kFoo), soft(1, kHost, kFoo)}),
       zoned({"node-b", "node-y"}),
       {{"p-a1", "node-a", foo},
        {"p-a2", "node-a", foo},
        {"p-b1", "node-b", foo},
        {"p-x1", "node-x", foo},
        {"p-x2", "node-x", foo},
        {"p-y1", "node-y", foo},
        {"p-y2", "node-y", foo},
        {"p-y3", "node-y", foo},
        {"p-y4", "node-y", foo}},
       {100, 63}},
      {"two Constraints on zone and node, with different labelSelectors",
       incoming(foobar, {soft(1, "zone", kFoo), soft(1, kHost, kBar)}),
       zoned(),
       {{"p-a1", "node-a", foo},
        {"p-b1", "node-b", foobar},
        {"p-y1", "node-y", foo},
        {"p-y2", "node-y", bar}},
       {60, 20, 100, 60}},
      {"two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
       incoming(foobar, {soft(1, "zone", kFoo), soft(1, kHost, kBar)}),
       zoned(),
       {{"p-b1", "node-b", bar}, {"p-x1", "node-x", foo}, {"p-y1", "node-y", foobar}},
       {100, 60, 40, 0}},
      {"two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
       incoming(foobar, {soft(1, "zone", kFoo), soft(1, kHost, kBar)}),
       zoned({"node-y"}),
       {{"p-a1", "node-a", foo},
        {"p-b1", "node-b", foobar},
        {"p-y1", "node-y", foo},
        {"p-y2", "node-y", bar}},
       {50, 25, 100}},
      {"existing pods in a different namespace do not count",
       incoming(foo, {soft(1, kHost, kFoo)}),
       hosts({"node-a", "node-b"}),
       {{"p-a1", "node-a", foo, "ns1"},
        {"p-a2", "node-a", foo},
        {"p-b1", "node-b", foo},
        {"p-b2", "node-b", foo}},
       {100, 33}},
      {"terminating Pods should be excluded",
       incoming(foo, {soft(1, kHost, kFoo)}),
       hosts({"node-a", "node-b"}),
       {{"p-a", "node-a", foo, "default", true}, {"p-b", "node-b", foo}},
       {100, 0}},
      {"minDomains has no effect when ScheduleAnyway",
       incoming(foo, {soft(2, "node", kFoo, 10)}),
       {{"node-a", {{"node", "node-a"}}}, {"node-b", {{"node", "node-b"}}}, {"node-c", {{"node", "node-c"}}}},
       {{"p-a1", "node-a", foo},
        {"p-a2", "node-a", foo},
        {"p-b1", "node-b", foo},
        {"p-b2", "node-b", foo},
        {"p-c1", "node-c", foo}},
       {75, 75, 100}},
      {"NodeAffinityPolicy honored with labelSelectors",
       with_selector(incoming(foo, {soft(1, "node", kFoo)}), foo),
       foo_nodes,
       pods_abc,
       {0, 33, 100}},
      {"NodeAffinityPolicy ignored with labelSelectors",
       with_selector(incoming(foo, {soft(1, "node", kFoo, {}, "Ignore")}), foo),
       foo_nodes,
       pods_abc,
       {66, 100, 100}},
      {"NodeAffinityPolicy honored with nodeAffinity",
       with_affinity(incoming(foo, {soft(1, "node", kFoo)}), "foo", "In", {""}),
       foo_nodes,
       pods_abc,
       {0, 33, 100}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       with_affinity(incoming(foo, {soft(1, "node", kFoo, {}, "Ignore")}), "foo", "In", {""}),
       foo_nodes,
       pods_abc,
       {66, 100, 100}},
      {"NodeTaintsPolicy honored",
       incoming(foo, {soft(1, "node", kFoo, {}, "", "Honor")}),
       tainted_nodes,
       pods_abc,
       {0, 33, 100}},
      {"NodeTaintsPolicy ignored",
       incoming(foo, {soft(1, "node", kFoo)}),
       tainted_nodes,
       pods_abc,
       {66, 100, 100}},
      {"matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
       incoming(foobar, {soft(1, "zone", LabelSelector{}, {}, "", "", {"foo"}),
                         soft(1, kHost, LabelSelector{}, {}, "", "", {"bar"})}),
       abcd_zoned,
       abcd_pods,
       {60, 20, 60, 100}},
      {"matchLabelKeys ANDed with LabelSelector",
       incoming({{"foo", ""}, {"bar", ""}, {"baz", "1"}},
                {soft(1, "zone", kFoo, {}, "", "", {"baz"}), soft(1, kHost, kBar, {}, "", "", {"baz"})}),
       abcd_zoned,
       {{"p-a1", "node-a", {{"foo", ""}, {"baz", "1"}}},
        {"p-b1", "node-b", {{"foo", ""}, {"bar", ""}, {"baz", "2"}}},
        {"p-y1", "node-c", {{"foo", ""}, {"baz", "1"}}},
        {"p-y2", "node-c", {{"bar", ""}, {"baz", "1"}}}},
       // zone counts 1/1 (p-b1 is another revision), host counts 0/0/1/0.
       {100, 100, 33, 100}},
      {"no ScheduleAnyway constraint: every node 0",
       incoming(foo, {TopologySpreadConstraint{1, "zone", "DoNotSchedule", kFoo, {}, "", "", {}}}),
       zoned(),
       pods_4213,
       {0, 0, 0, 0}},
  };
  auto s = make_pod_topology_spread_score(TopologySpreadArgs{SpreadDefaulting::kList, {}});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run(*s, c.pod, c.nodes, c.pods), c.want);
  }
}

// What changed by minor (kube_version.h since::): each change at the minor that brought it and at the
// minor before. Two hosts: log(4) per matching pod, reduced as 100 * (max + min - s) / max.
TEST(PodTopologySpreadScore, ByMinor) {
  const Labels v1 = {{"foo", ""}, {"rev", "v1"}};
  const Labels v2 = {{"foo", ""}, {"rev", "v2"}};
  const Pod same_rev = incoming(v1, {soft(1, kHost, kFoo, {}, "", "", {"rev"})});
  const std::vector<PodSpec> revs = {{"p-a1", "node-a", v2}, {"p-a2", "node-a", v2}, {"p-b1", "node-b", v1}};
  const Pod empty_host = incoming(v1, {soft(1, kHost, LabelSelector{})});
  const Pod empty_zone = incoming(v1, {soft(1, "zone", LabelSelector{})});
  const std::vector<PodSpec> unrelated = {{"p-a1", "node-a", {{"other", "x"}}},
                                          {"p-a2", "node-a", {{"other", "y"}}}};
  const std::vector<NodeSpec> zones = {{"node-a", {{kHost, "node-a"}, {"zone", "z1"}}},
                                       {"node-b", {{kHost, "node-b"}, {"zone", "z2"}}}};
  struct MinorCase {
    std::string name;
    int minor;
    Pod pod;
    std::vector<PodSpec> pods;
    std::vector<int64_t> want;
  };
  const std::vector<MinorCase> cases = {
      {"matchLabelKeys: only rev=v1 pods count, 0/1", 27, same_rev, revs, {100, 0}},
      {"matchLabelKeys ignored (alpha, off): 2/1", 26, same_rev, revs, {33, 100}},
      {"labelSelector {} counts no pod (hostname)", 27, empty_host, unrelated, {100, 100}},
      {"labelSelector {} counts no pod (zone)", 27, empty_zone, unrelated, {100, 100}},
      {"labelSelector {} counts none still at 1.36", 36, empty_zone, unrelated, {100, 100}},
      {"labelSelector {} counts every pod (hostname)", 26, empty_host, unrelated, {0, 100}},
      {"labelSelector {} counts every pod (zone)", 26, empty_zone, unrelated, {0, 100}},
  };
  for (const MinorCase& c : cases) {
    SCOPED_TRACE(c.name + " at 1." + std::to_string(c.minor));
    auto s =
        make_pod_topology_spread_score(TopologySpreadArgs{SpreadDefaulting::kList, {}}, KubeVersion{c.minor});
    EXPECT_EQ(run(*s, c.pod, zones, c.pods), c.want);
  }
}

// scoring_test.go "system defaulting, nodes don't have zone, pods match service": the system defaults
// apply to a pod a Service selects; nodes without a zone label keep the hostname spreading.
TEST(PodTopologySpreadScore, SystemDefaults) {
  const Labels foo = {{"foo", ""}};
  const std::vector<PodSpec> pods_4321 = {
      {"p-a1", "node-a", foo}, {"p-a2", "node-a", foo}, {"p-a3", "node-a", foo}, {"p-a4", "node-a", foo},
      {"p-b1", "node-b", foo}, {"p-b2", "node-b", foo}, {"p-b3", "node-b", foo}, {"p-c1", "node-c", foo},
      {"p-c2", "node-c", foo}, {"p-d1", "node-d", foo}};
  const std::vector<WorkloadSelector> services = {{"default", "svc", LabelSelector{foo, {}}}};
  auto nodes = hosts({"node-a", "node-b", "node-c", "node-d"});
  Pod p = incoming(foo, {});

  auto sys = make_pod_topology_spread_score(TopologySpreadArgs{});
  EXPECT_EQ(run(*sys, p, nodes, pods_4321, services), (std::vector<int64_t>{44, 66, 77, 100}));
  // No Service selects the pod: PreScore skips, every node 0.
  EXPECT_EQ(run(*sys, p, nodes, pods_4321), (std::vector<int64_t>{0, 0, 0, 0}));

  // The same constraints as a List require every key: no node has a zone, all are ignored.
  auto list = make_pod_topology_spread_score(
      TopologySpreadArgs{SpreadDefaulting::kList, system_default_spread_constraints()});
  EXPECT_EQ(run(*list, p, nodes, pods_4321, services), (std::vector<int64_t>{0, 0, 0, 0}));
  // A List with the hostname constraint alone scores as the system defaults did here.
  auto host_only = make_pod_topology_spread_score(
      TopologySpreadArgs{SpreadDefaulting::kList, {system_default_spread_constraints()[1]}});
  EXPECT_EQ(run(*host_only, p, nodes, pods_4321, services), (std::vector<int64_t>{44, 66, 77, 100}));
  // The pod's own constraints win over the defaults.
  Pod own = incoming(foo, {soft(1, kHost, kFoo)});
  EXPECT_EQ(run(*sys, own, nodes, pods_4321, services), (std::vector<int64_t>{28, 57, 71, 100}));
}

// The hostname constraint counts the scored node's own pods; other keys count the domain over the whole
// cluster, including nodes that failed the filters.
TEST(PodTopologySpreadScore, CountsDomainsOverTheCluster) {
  const Labels foo = {{"foo", ""}};
  auto s = make_pod_topology_spread_score(TopologySpreadArgs{SpreadDefaulting::kList, {}});
  std::vector<NodeSpec> nodes = {{"node-a", {{"zone", "zone1"}, {kHost, "node-a"}}},
                                 {"node-b", {{"zone", "zone1"}, {kHost, "node-b"}}, false},
                                 {"node-x", {{"zone", "zone2"}, {kHost, "node-x"}}}};
  std::vector<PodSpec> pods = {{"b1", "node-b", foo}, {"b2", "node-b", foo}};
  // zone1 has 2 pods through node-b: weight log(4); a = round(2.77) = 3, x = 0 -> 0, 100.
  EXPECT_EQ(run(*s, incoming(foo, {soft(1, "zone", kFoo)}), nodes, pods), (std::vector<int64_t>{0, 100}));
  // By hostname, node-b's pods do not count for node-a: both 0 -> 100, 100.
  EXPECT_EQ(run(*s, incoming(foo, {soft(1, kHost, kFoo)}), nodes, pods), (std::vector<int64_t>{100, 100}));
}

TEST(PodTopologySpreadScore, ReduceOfIgnoredAndEmpty) {
  auto s = make_pod_topology_spread_score(TopologySpreadArgs{});
  std::vector<int64_t> none;
  s->reduce(none);
  EXPECT_TRUE(none.empty());
  // Without prepare() the plugin adds nothing.
  Pod p = incoming({}, {soft(1, kHost, kFoo)});
  auto nodes = cluster(hosts({"node-a"}), {});
  std::vector<int64_t> scores = {s->score(PodContext(p), nullptr, nodes[0])};
  s->reduce(scores);
  EXPECT_EQ(scores, std::vector<int64_t>{0});
}

}  // namespace
}  // namespace scores_pod_topology_spread_test
}  // namespace kext
