#include "algorithms/scores/inter_pod_affinity.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace scores_inter_pod_affinity_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_ptrs;
using testing::snapshot;

// The facts of kube-scheduler's pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go
// (TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight).

using Rules = std::shared_ptr<const PodAffinityRules>;

SelectorRequirement req(std::string key, std::string op, std::vector<std::string> values = {}) {
  return {std::move(key), std::move(op), std::move(values)};
}

PodAffinityTerm term(std::vector<SelectorRequirement> exprs, std::string topology_key,
                     std::vector<std::string> namespaces = {},
                     std::optional<LabelSelector> namespace_selector = std::nullopt) {
  PodAffinityTerm t;
  t.label_selector = LabelSelector{{}, std::move(exprs)};
  t.topology_key = std::move(topology_key);
  t.namespaces = std::move(namespaces);
  t.namespace_selector = std::move(namespace_selector);
  return t;
}

Pod pod(std::string node, Labels labels, Rules rules = nullptr, std::string ns = "") {
  static int n = 0;
  Pod p = make_pod("p" + std::to_string(++n), 100, 0);
  p.node_name = std::move(node);
  p.namespace_ = std::move(ns);
  p.labels = std::move(labels);
  p.affinity = std::move(rules);
  return p;
}

Node node(std::string name, Labels labels) {
  return testing::make_labelled_node(std::move(name), std::move(labels));
}

const std::map<std::string, Labels, std::less<>> kNamespaces = {
    {"subteam1.team1", {{"team", "team1"}}},
    {"subteam2.team1", {{"team", "team1"}}},
    {"subteam1.team2", {{"team", "team2"}}},
    {"subteam2.team2", {{"team", "team2"}}},
};

// PreScore over the cluster, Score per node, NormalizeScore. `scored`: indices of the nodes scored
// (all when empty).
std::vector<int64_t> run(const InterPodAffinityArgs& args, const Pod& incoming,
                         const std::vector<Node>& nodes, const std::vector<Pod>& pods,
                         std::vector<size_t> scored = {}, KubeVersion version = KubeVersion::newest()) {
  auto plugin = make_inter_pod_affinity_score(args, version);
  std::vector<NodeInfo> infos = snapshot(nodes, pods);
  auto all = node_ptrs(infos);
  ClusterView cluster;
  cluster.nodes = all;
  cluster.namespace_labels = &kNamespaces;
  std::vector<const NodeInfo*> ptrs;
  if (scored.empty()) {
    ptrs = all;
  } else {
    for (size_t i : scored) ptrs.push_back(all[i]);
  }
  PodContext ctx(incoming, &cluster);
  auto prepared = plugin->prepare(ctx, ptrs);
  std::vector<int64_t> out;
  for (size_t i = 0; i < ptrs.size(); ++i) {
    const int64_t s = plugin->score_at(ctx, prepared.get(), ptrs, i);
    EXPECT_EQ(s, plugin->score(ctx, prepared.get(), *ptrs[i]));
    out.push_back(s);
  }
  plugin->reduce(out);
  return out;
}

TEST(InterPodAffinityScore, NameAndReduce) {
  auto s = make_inter_pod_affinity_score({});
  EXPECT_EQ(s->name(), "InterPodAffinity");
  EXPECT_TRUE(s->has_reduce());
}

TEST(InterPodAffinityScore, PreferredAffinity) {
  const Labels china = {{"region", "China"}};
  const Labels india = {{"region", "India"}};
  const Labels az1 = {{"az", "az1"}};
  const Labels az2 = {{"az", "az2"}};
  const Labels china_az1 = {{"region", "China"}, {"az", "az1"}};
  const Labels s1 = {{"security", "S1"}};
  const Labels s2 = {{"security", "S2"}};
  const LabelSelector team1{{}, {req("team", "In", {"team1"})}};

  auto rules = [](std::vector<WeightedPodAffinityTerm> pref,
                  std::vector<WeightedPodAffinityTerm> pref_anti = {},
                  std::vector<PodAffinityTerm> required = {}) {
    auto r = std::make_shared<PodAffinityRules>();
    r->preferred_affinity = std::move(pref);
    r->preferred_anti_affinity = std::move(pref_anti);
    r->required_affinity = std::move(required);
    return Rules(r);
  };
  const Rules stay_with_s1_in_region = rules({{5, term({req("security", "In", {"S1"})}, "region")}});
  const Rules stay_with_s2_in_region = rules({{6, term({req("security", "In", {"S2"})}, "region")}});
  const Rules affinity3 =
      rules({{8, term({req("security", "NotIn", {"S1"}), req("security", "In", {"S2"})}, "region")},
             {2, term({req("security", "Exists"), req("wrongkey", "DoesNotExist")}, "region")}});
  const Rules hard_affinity =
      rules({}, {},
            {term({req("security", "In", {"S1", "value2"})}, "region"),
             term({req("security", "Exists"), req("wrongkey", "DoesNotExist")}, "region")});
  const Rules away_from_s1_in_az = rules({}, {{5, term({req("security", "In", {"S1"})}, "az")}});
  const Rules away_from_s2_in_az = rules({}, {{5, term({req("security", "In", {"S2"})}, "az")}});
  const Rules stay_with_s1_away_from_s2 = rules({{8, term({req("security", "In", {"S1"})}, "region")}},
                                                {{5, term({req("security", "In", {"S2"})}, "az")}});
  const Rules affinity_ns_selector =
      rules({{5, term({req("security", "In", {"S1"})}, "region", {"subteam2.team2"}, team1)}});
  const Rules anti_affinity_ns_selector =
      rules({}, {{5, term({req("security", "In", {"S1"})}, "region", {"subteam2.team2"}, team1)}});

  struct Case {
    std::string name;
    Pod pod;
    std::vector<Pod> pods;
    std::vector<Node> nodes;
    std::vector<int64_t> want;
    bool ignore_preferred_terms_of_existing_pods = false;
  };
  const std::vector<Case> cases = {
      {"no affinity anywhere: Skip, all equal",
       pod("", s1),
       {},
       {node("node1", china), node("node2", india), node("node3", az1)},
       {0, 0, 0}},
      {"affinity: the node with the topology key and a matching pod",
       pod("", s1, stay_with_s1_in_region),
       {pod("node1", s1), pod("node2", s2), pod("node3", s1)},
       {node("node1", china), node("node2", india), node("node3", az1)},
       {100, 0, 0}},
      {"affinity: every node sharing the matching pod's topology value",
       pod("", {}, stay_with_s1_in_region),
       {pod("node1", s1)},
       {node("node1", china), node("node2", china_az1), node("node3", india)},
       {100, 100, 0}},
      {"affinity: the region with more matching pods",
       pod("", s1, stay_with_s2_in_region),
       {pod("node1", s2), pod("node1", s2), pod("node2", s2), pod("node3", s2), pod("node4", s2),
        pod("node5", s2)},
       {node("node1", china), node("node2", india), node("node3", china), node("node4", china),
        node("node5", india)},
       {100, 0, 100, 100, 0}},
      {"affinity: several operators, some terms failing",
       pod("", s1, affinity3),
       {pod("node1", s1), pod("node2", s2), pod("node3", s1)},
       {node("node1", china), node("node2", india), node("node3", az1)},
       {20, 100, 0}},
      {"affinity symmetry: existing pods' preferred terms",
       pod("", s2),
       {pod("node1", s1, stay_with_s1_in_region), pod("node2", s2, stay_with_s2_in_region)},
       {node("node1", china), node("node2", india), node("node3", az1)},
       {0, 100, 0}},
      {"affinity symmetry with a namespaceSelector",
       pod("", s1, nullptr, "subteam1.team1"),
       {pod("node1", s1, affinity_ns_selector), pod("node2", s2, stay_with_s2_in_region)},
       {node("node1", china), node("node2", india), node("node3", az1)},
       {100, 0, 0}},
      {"anti-affinity symmetry with a namespaceSelector",
       pod("", s1, nullptr, "subteam1.team1"),
       {pod("node1", s1, anti_affinity_ns_selector), pod("node2", s2, stay_with_s2_in_region)},
       {node("node1", china), node("node2", india), node("node3", az1)},
       {0, 100, 100}},
      {"affinity symmetry: existing pods' required terms, hardPodAffinityWeight 1",
       pod("", s1),
       {pod("node1", s1, hard_affinity), pod("node2", s2, hard_affinity)},
       {node("node1", china), node("node2", india), node("node3", az1)},
       {100, 100, 0}},
      {"anti-affinity: the node without matching pods",
       pod("", s1, away_from_s1_in_az),
       {pod("node1", s1), pod("node2", s2)},
       {node("node1", az1), node("node2", china)},
       {0, 100}},
      {"anti-affinity: the node without the topology key",
       pod("", s1, away_from_s1_in_az),
       {pod("node1", s1), pod("node2", s1)},
       {node("node1", az1), node("node2", china)},
       {0, 100}},
      {"anti-affinity: the node with more matching pods scores less",
       pod("", s1, away_from_s1_in_az),
       {pod("node1", s1), pod("node1", s1), pod("node2", s2)},
       {node("node1", az1), node("node2", india)},
       {0, 100}},
      {"anti-affinity symmetry",
       pod("", s2),
       {pod("node1", s1, away_from_s2_in_az), pod("node2", s2, away_from_s1_in_az)},
       {node("node1", az1), node("node2", az2)},
       {0, 100}},
      {"affinity and anti-affinity",
       pod("", s1, stay_with_s1_away_from_s2),
       {pod("node1", s1), pod("node2", s1)},
       {node("node1", china), node("node2", az1)},
       {100, 0}},
      {"affinity and anti-affinity, pods of one service",
       pod("", s1, stay_with_s1_away_from_s2),
       {pod("node1", s1), pod("node1", s1), pod("node2", s1), pod("node3", s1), pod("node3", s1),
        pod("node4", s1), pod("node5", s1)},
       {node("node1", china_az1), node("node2", india), node("node3", china), node("node4", china),
        node("node5", india)},
       {100, 0, 100, 100, 0}},
      {"affinity, anti-affinity and symmetry",
       pod("", s1, stay_with_s1_away_from_s2),
       {pod("node1", s1), pod("node2", s2), pod("node3", {}, stay_with_s1_away_from_s2),
        pod("node4", {}, away_from_s1_in_az)},
       {node("node1", china), node("node2", az1), node("node3", india), node("node4", az2)},
       {100, 0, 100, 0}},
      {"a topology where only some nodes have pods with affinity",
       pod("", s1),
       {pod("node1", s1), pod("node2", {}, stay_with_s1_away_from_s2)},
       {node("node1", china), node("node2", china)},
       {0, 0}},
      {"incoming preferred affinity with a namespaceSelector",
       pod("", s1, affinity_ns_selector, "subteam1.team1"),
       {pod("node1", s1, nullptr, "subteam1.team1"), pod("node1", s1, nullptr, "subteam1.team1"),
        pod("node1", s1, nullptr, "subteam1.team2"), pod("node2", s1, nullptr, "subteam2.team1")},
       {node("node1", china), node("node2", india)},
       {100, 0}},
      {"incoming preferred affinity with a namespaceSelector and namespaces",
       pod("", s1, affinity_ns_selector, "subteam1.team1"),
       {pod("node1", s1, nullptr, "subteam1.team1"), pod("node1", s1, nullptr, "subteam1.team1"),
        pod("node1", s1, nullptr, "subteam2.team2"), pod("node2", s1, nullptr, "subteam2.team1")},
       {node("node1", china), node("node2", india)},
       {100, 0}},
      {"incoming preferred anti-affinity with a namespaceSelector",
       pod("", s1, anti_affinity_ns_selector, "subteam1.team1"),
       {pod("node1", s1, nullptr, "subteam1.team1"), pod("node1", s1, nullptr, "subteam1.team1"),
        pod("node1", s1, nullptr, "subteam1.team2"), pod("node2", s1, nullptr, "subteam2.team1")},
       {node("node1", china), node("node2", india)},
       {0, 100}},
      {"incoming preferred anti-affinity with a namespaceSelector and namespaces",
       pod("", s1, anti_affinity_ns_selector, "subteam1.team1"),
       {pod("node1", s1, nullptr, "subteam1.team1"), pod("node1", s1, nullptr, "subteam1.team1"),
        pod("node1", s1, nullptr, "subteam2.team2"), pod("node2", s1, nullptr, "subteam2.team1")},
       {node("node1", china), node("node2", india)},
       {0, 100}},
      {"ignore preferred terms of existing pods: Skip",
       pod("", s2),
       {pod("node1", s1, stay_with_s1_away_from_s2), pod("node2", s2, stay_with_s2_in_region)},
       {node("node1", china), node("node2", india)},
       {0, 0},
       true},
      {"do not ignore preferred terms of existing pods",
       pod("", s2),
       {pod("node1", s1, stay_with_s1_away_from_s2), pod("node2", s2, stay_with_s2_in_region)},
       {node("node1", china), node("node2", india)},
       {0, 100}},
      {"the incoming pod's own terms still count when existing pods' are ignored",
       pod("", s1, stay_with_s1_in_region),
       {pod("node1", s1), pod("node2", s2, stay_with_s2_in_region)},
       {node("node1", china), node("node2", india)},
       {100, 0},
       true},
      {"no nodes to score", pod("", s2), {}, {}, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    InterPodAffinityArgs args;
    args.hard_pod_affinity_weight = 1;
    args.ignore_preferred_terms_of_existing_pods = c.ignore_preferred_terms_of_existing_pods;
    EXPECT_EQ(run(args, c.pod, c.nodes, c.pods), c.want);
  }
}

// matchLabelKeys / mismatchLabelKeys join the terms' selectors from 1.31 (the API server merges them),
// the incoming pod's and the existing pods' alike; at 1.30 they are dropped.
TEST(InterPodAffinityScore, MatchLabelKeysFrom1_31) {
  const std::vector<Node> nodes = {node("n1", {{"zone", "z1"}}), node("n2", {{"zone", "z2"}})};
  PodAffinityTerm same_app = term({req("tier", "Exists")}, "zone");
  same_app.match_label_keys = {"app"};
  auto incoming_rules = std::make_shared<PodAffinityRules>();
  incoming_rules->preferred_affinity = {{5, same_app}};
  PodAffinityTerm other_app = term({req("tier", "Exists")}, "zone");
  other_app.mismatch_label_keys = {"app"};
  auto existing_rules = std::make_shared<PodAffinityRules>();
  existing_rules->preferred_anti_affinity = {{3, other_app}};
  struct MinorCase {
    std::string name;
    Pod pod;
    std::vector<Pod> pods;
    std::vector<int64_t> at_1_31;
    std::vector<int64_t> at_1_30;
  };
  const std::vector<MinorCase> cases = {
      // 1.31: n2's pod alone is of app a (+5 in z2); 1.30: both pods have a tier (+5, +5).
      {"the incoming pod's preferred affinity to its own app",
       pod("", {{"app", "a"}}, incoming_rules),
       {pod("n1", {{"tier", "y"}, {"app", "b"}}), pod("n2", {{"tier", "y"}, {"app", "a"}})},
       {0, 100},
       {0, 0}},
      // 1.31: only n1's pod is of another app than the incoming one (-3 in z1); 1.30: both (-3, -3).
      {"the existing pods' preferred anti-affinity to other apps",
       pod("", {{"tier", "x"}, {"app", "c"}}),
       {pod("n1", {{"app", "a"}}, existing_rules), pod("n2", {{"app", "c"}}, existing_rules)},
       {0, 100},
       {0, 0}},
  };
  for (const MinorCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run({}, c.pod, nodes, c.pods, {}, KubeVersion{31}), c.at_1_31);
    EXPECT_EQ(run({}, c.pod, nodes, c.pods, {}, KubeVersion{30}), c.at_1_30);
  }
}

TEST(InterPodAffinityScore, HardPodAffinitySymmetricWeight) {
  const Labels service_s1 = {{"service", "S1"}};
  auto r = std::make_shared<PodAffinityRules>();
  r->required_affinity = {term({req("service", "In", {"S1"})}, "region", {"", "subteam2.team2"},
                               LabelSelector{{}, {req("team", "In", {"team1"})}})};
  const Rules hard = r;
  const std::vector<Node> nodes = {node("node1", {{"region", "China"}}), node("node2", {{"region", "India"}}),
                                   node("node3", {{"az", "az1"}})};
  const std::vector<Pod> pods = {pod("node1", {}, hard), pod("node2", {}, hard)};
  struct Case {
    std::string name;
    std::string ns;
    int32_t weight;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      {"default weight", "", 1, {100, 100, 0}},
      {"zero weight: Skip", "", 0, {0, 0, 0}},
      {"no matching namespace: Skip", "subteam1.team2", 1, {0, 0, 0}},
      {"matching namespaceSelector", "subteam1.team1", 1, {100, 100, 0}},
      {"matching namespaces", "subteam2.team2", 1, {100, 100, 0}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    InterPodAffinityArgs args;
    args.hard_pod_affinity_weight = c.weight;
    EXPECT_EQ(run(args, pod("", service_s1, nullptr, c.ns), nodes, pods), c.want);
  }
}

TEST(InterPodAffinityScore, RawScoresAndWeights) {
  // The map before the reduce: hard weight 5 per required term, preferred weights signed.
  auto r = std::make_shared<PodAffinityRules>();
  r->required_affinity = {term({req("app", "In", {"web"})}, "zone")};
  r->preferred_affinity = {{7, term({req("app", "Exists")}, "zone")}};
  r->preferred_anti_affinity = {{3, term({req("app", "In", {"web"})}, "kubernetes.io/hostname")}};
  const std::vector<Node> nodes = {node("a", {{"zone", "z1"}, {"kubernetes.io/hostname", "a"}}),
                                   node("b", {{"zone", "z1"}, {"kubernetes.io/hostname", "b"}}),
                                   node("c", {{"zone", "z2"}, {"kubernetes.io/hostname", "c"}})};
  std::vector<NodeInfo> infos = snapshot(nodes, {pod("a", {{"app", "db"}}, r)});
  auto ptrs = node_ptrs(infos);
  InterPodAffinityArgs args;
  args.hard_pod_affinity_weight = 5;
  auto plugin = make_inter_pod_affinity_score(args);
  const Pod incoming = pod("", {{"app", "web"}});
  PodContext ctx(incoming);
  auto prepared = plugin->prepare(ctx, ptrs);
  // zone z1: +5 (required) +7 (preferred); hostname a: -3.
  EXPECT_EQ(plugin->score(ctx, prepared.get(), infos[0]), 9);
  EXPECT_EQ(plugin->score(ctx, prepared.get(), infos[1]), 12);
  EXPECT_EQ(plugin->score(ctx, prepared.get(), infos[2]), 0);
  // Without a prepared state (Skip), every node scores 0.
  EXPECT_EQ(plugin->score(ctx, nullptr, infos[0]), 0);
}

TEST(InterPodAffinityScore, PreScoreReadsTheWholeCluster) {
  // Only node2 is scored, but node1's matching pod (same region) counts: the reduce then sees one node.
  const Rules stay = [] {
    auto r = std::make_shared<PodAffinityRules>();
    r->preferred_affinity = {{5, term({req("security", "In", {"S1"})}, "region")}};
    return Rules(r);
  }();
  const std::vector<Node> nodes = {node("node1", {{"region", "China"}}), node("node2", {{"region", "China"}}),
                                   node("node3", {{"region", "India"}})};
  const std::vector<Pod> pods = {pod("node1", {{"security", "S1"}})};
  EXPECT_EQ(run({}, pod("", {}, stay), nodes, pods, {1, 2}), (std::vector<int64_t>{100, 0}));
}

TEST(InterPodAffinityScore, NodeWithoutLabelsIsIgnored) {
  // processExistingPod returns early for a node without labels, whatever its pods.
  auto r = std::make_shared<PodAffinityRules>();
  r->preferred_affinity = {{5, term({req("security", "In", {"S1"})}, "region")}};
  const std::vector<Node> nodes = {node("bare", {}), node("node2", {{"region", "China"}})};
  const std::vector<Pod> pods = {pod("bare", {{"security", "S1"}})};
  EXPECT_EQ(run({}, pod("", {}, r), nodes, pods), (std::vector<int64_t>{0, 0}));
}

TEST(InterPodAffinityScore, NormalizeInFloatingPoint) {
  auto plugin = make_inter_pod_affinity_score({});
  // 100 * (29 / 100.0) is 28.999...: truncated to 28, as kube-scheduler's float64 arithmetic does.
  std::vector<int64_t> scores = {0, 29, 100};
  plugin->reduce(scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 28, 100}));
  // Negative sums: min-max scaling.
  scores = {-5, 0, 5};
  plugin->reduce(scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 50, 100}));
  // max == min: 0 everywhere.
  scores = {7, 7};
  plugin->reduce(scores);
  EXPECT_EQ(scores, (std::vector<int64_t>{0, 0}));
  std::vector<int64_t> none;
  plugin->reduce(none);
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace scores_inter_pod_affinity_test
}  // namespace kext
