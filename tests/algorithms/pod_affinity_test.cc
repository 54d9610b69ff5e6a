#include "algorithms/pod_affinity.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kext {
namespace pod_affinity_test {
namespace {

// framework.AffinityTerm.Matches (pkg/scheduler/framework/types.go) through both paths: the compiled
// term (the incoming pod's) and term_matches (an existing pod's, uncompiled) must agree.

PodMeta meta(std::string ns, Labels labels) {
  PodMeta m;
  m.namespace_ = std::move(ns);
  m.labels = std::move(labels);
  return m;
}

PodAffinityTerm term(std::optional<LabelSelector> selector, std::vector<std::string> namespaces,
                     std::optional<LabelSelector> namespace_selector) {
  PodAffinityTerm t;
  t.label_selector = std::move(selector);
  t.namespaces = std::move(namespaces);
  t.namespace_selector = std::move(namespace_selector);
  t.topology_key = "zone";
  return t;
}

TEST(PodAffinityTerm, MatchesTable) {
  const LabelSelector app_web{{{"app", "web"}}, {}};
  const LabelSelector team1{{}, {{"team", "In", {"team1"}}}};
  const LabelSelector no_team{{}, {{"team", "DoesNotExist", {}}}};
  const NamespaceLabels unknown;
  const NamespaceLabels t1{true, {{"team", "team1"}}};
  const NamespaceLabels missing{true, {}};
  struct Case {
    std::string name;
    PodAffinityTerm term;
    PodMeta owner;
    PodMeta pod;
    NamespaceLabels ns;
    bool want;
  };
  const std::vector<Case> cases = {
      {"own namespace by default", term(app_web, {}, std::nullopt), meta("a", {}),
       meta("a", {{"app", "web"}}), unknown, true},
      {"another namespace by default", term(app_web, {}, std::nullopt), meta("a", {}),
       meta("b", {{"app", "web"}}), unknown, false},
      {"namespaces list", term(app_web, {"b"}, std::nullopt), meta("a", {}), meta("b", {{"app", "web"}}),
       unknown, true},
      {"namespaces list excludes the owner's", term(app_web, {"b"}, std::nullopt), meta("a", {}),
       meta("a", {{"app", "web"}}), unknown, false},
      {"nil label selector matches nothing", term(std::nullopt, {}, std::nullopt), meta("a", {}),
       meta("a", {}), unknown, false},
      {"empty label selector matches every pod", term(LabelSelector{}, {}, std::nullopt), meta("a", {}),
       meta("a", {}), unknown, true},
      {"empty namespaceSelector: every namespace", term(app_web, {}, LabelSelector{}), meta("a", {}),
       meta("z", {{"app", "web"}}), unknown, true},
      {"namespaceSelector matches the namespace's labels", term(app_web, {}, team1), meta("a", {}),
       meta("z", {{"app", "web"}}), t1, true},
      {"namespaceSelector with unknown labels", term(app_web, {}, team1), meta("a", {}),
       meta("z", {{"app", "web"}}), unknown, false},
      {"namespaceSelector alone does not add the owner's namespace", term(app_web, {}, team1), meta("a", {}),
       meta("a", {{"app", "web"}}), missing, false},
      {"a namespace missing from the cluster reads as no labels", term(app_web, {}, no_team), meta("a", {}),
       meta("z", {{"app", "web"}}), missing, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    for (LabelKeys keys : {LabelKeys::kMerged, LabelKeys::kIgnored}) {
      EXPECT_EQ(term_matches(c.owner, c.term, c.pod, c.ns, keys), c.want);
      EXPECT_EQ(make_affinity_term(c.owner, c.term, keys).matches(c.pod, c.ns), c.want);
    }
  }
}

// matchLabelKeys / mismatchLabelKeys join the selector from 1.31 (the API server merges them); at 1.30
// they are dropped, and the term's empty selector matches every pod.
TEST(PodAffinityTerm, MatchLabelKeysFrom1_31) {
  PodAffinityTerm t = term(LabelSelector{}, {}, std::nullopt);
  t.match_label_keys = {"app", "absent"};
  t.mismatch_label_keys = {"rev"};
  const PodMeta owner = meta("a", {{"app", "web"}, {"rev", "1"}});
  const NamespaceLabels unknown;
  struct Case {
    Labels labels;
    bool at_1_31;
    bool at_1_30;
  };
  const std::vector<Case> cases = {
      {{{"app", "web"}, {"rev", "2"}}, true, true},
      {{{"app", "web"}}, true, true},
      {{{"app", "web"}, {"rev", "1"}}, false, true},
      {{{"app", "db"}, {"rev", "2"}}, false, true},
      {{}, false, true},
  };
  const LabelKeys merged = affinity_label_keys(KubeVersion{31});
  const LabelKeys dropped = affinity_label_keys(KubeVersion{30});
  for (const Case& c : cases) {
    const PodMeta p = meta("a", c.labels);
    EXPECT_EQ(term_matches(owner, t, p, unknown, merged), c.at_1_31);
    EXPECT_EQ(make_affinity_term(owner, t, merged).matches(p, unknown), c.at_1_31);
    EXPECT_EQ(term_matches(owner, t, p, unknown, dropped), c.at_1_30);
    EXPECT_EQ(make_affinity_term(owner, t, dropped).matches(p, unknown), c.at_1_30);
  }
  // A nil selector stays nil whatever keys are merged.
  t.label_selector.reset();
  EXPECT_FALSE(make_affinity_term(owner, t, merged).selector.has_value());
  EXPECT_FALSE(term_matches(owner, t, meta("a", {{"app", "web"}}), unknown, merged));
}

TEST(PodAffinityTerm, MergeNamespaces) {
  const std::map<std::string, Labels, std::less<>> namespaces = {{"n1", {{"team", "t1"}}},
                                                                 {"n2", {{"team", "t2"}}}};
  ClusterView cluster;
  cluster.namespace_labels = &namespaces;
  const PodMeta owner = meta("own", {});
  AffinityTerm t = make_affinity_term(
      owner, term(LabelSelector{}, {"x"}, LabelSelector{{}, {{"team", "In", {"t1"}}}}), LabelKeys::kMerged);
  merge_term_namespaces(t, &cluster);
  EXPECT_EQ(t.namespaces, (std::vector<std::string>{"x", "n1"}));
  EXPECT_FALSE(t.namespace_selector.has_value());
  // An empty selector stays: every namespace.
  AffinityTerm all =
      make_affinity_term(owner, term(LabelSelector{}, {}, LabelSelector{}), LabelKeys::kMerged);
  merge_term_namespaces(all, &cluster);
  EXPECT_TRUE(all.matches(meta("anything", {}), NamespaceLabels{}));
  // Unknown namespace labels: the selector selects nothing more.
  AffinityTerm none = make_affinity_term(
      owner, term(LabelSelector{}, {}, LabelSelector{{}, {{"team", "In", {"t1"}}}}), LabelKeys::kMerged);
  merge_term_namespaces(none, nullptr);
  EXPECT_TRUE(none.namespaces.empty());
  EXPECT_FALSE(none.matches(meta("n1", {}), NamespaceLabels{}));
}

TEST(PodAffinityTerm, TopologyCountsDropZeroEntries) {
  TopologyCounts c;
  c.add("zone", "z1", 2);
  c.add("zone", "z1", -2);
  EXPECT_TRUE(c.empty());
  c.add("zone", "z1", 0);
  EXPECT_TRUE(c.empty());
  Node n;
  n.labels = {{"zone", "z2"}};
  c.add_for_node(n, "zone", 1);
  c.add_for_node(n, "region", 1);  // no such label: nothing
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(c.get("zone", "z2"), 1);
  EXPECT_EQ(c.get("zone", "z1"), 0);
}

}  // namespace
}  // namespace pod_affinity_test
}  // namespace kext
