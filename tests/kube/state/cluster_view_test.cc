// What the cluster state keeps for PodTopologySpread and InterPodAffinity, as watch events arrive:
// the bound pods grouped by namespace, labels and affinity terms (interned, so a Deployment's replicas
// are one group), the node labels counted by key and value, and the ClusterView a request reads.
#include "kube/state/cluster_view.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "kube/state/state_cache.h"

namespace kext {
namespace cluster_view_test {
namespace {

Node zoned(const std::string& name, const std::string& zone) {
  Node n;
  n.name = name;
  n.labels = {{"kubernetes.io/hostname", name}, {"topology.kubernetes.io/zone", zone}};
  return n;
}

Pod replica(const std::string& name, const std::string& app, const std::string& node) {
  Pod p;
  p.name = name;
  p.namespace_ = "shop";
  p.uid = "uid-" + name;
  p.labels = Labels{{"app", app}};
  p.node_name = node;
  auto rules = std::make_shared<PodAffinityRules>();  // a new but equal object for every replica
  PodAffinityTerm t;
  t.label_selector = LabelSelector{{{"app", app}}, {}};
  t.topology_key = "kubernetes.io/hostname";
  rules->required_anti_affinity.push_back(t);
  p.affinity = rules;
  return p;
}

// Group -> its pods' names, sorted.
std::map<std::string, std::vector<std::string>> groups_of(const ClusterState& s) {
  std::map<std::string, std::vector<std::string>> out;
  s.pod_groups.for_each([&](const auto&, const std::shared_ptr<const PodGroup>& g) {
    auto& names = out[g->first.namespace_ + "/" + g->first.labels.at("app")];
    for (const auto& p : g->pods) names.push_back(p->pod->name);
    std::sort(names.begin(), names.end());
  });
  return out;
}

TEST(ClusterView, ReplicasShareOneGroupThatFollowsTheirEvents) {
  StateCache cache;
  {
    auto b = cache.batch();
    b.upsert_node(zoned("n1", "a"));
    b.upsert_node(zoned("n2", "b"));
    b.upsert_pod(replica("web-1", "web", "n1"));
    b.upsert_pod(replica("web-2", "web", "n2"));
    b.upsert_pod(replica("db-1", "db", "n1"));
    b.upsert_pod(replica("web-3", "web", ""));  // pending: in no group
  }
  auto before = cache.view();
  EXPECT_EQ(groups_of(*before), (std::map<std::string, std::vector<std::string>>{
                                    {"shop/db", {"db-1"}}, {"shop/web", {"web-1", "web-2"}}}));
  {
    auto b = cache.batch();
    b.upsert_pod(replica("web-3", "web", "n2"));  // bound
    b.delete_pod("uid-web-1");
    b.delete_pod("uid-db-1");
  }
  EXPECT_EQ(groups_of(*cache.view()),
            (std::map<std::string, std::vector<std::string>>{{"shop/web", {"web-2", "web-3"}}}));
  // An earlier view keeps what it had.
  EXPECT_EQ(groups_of(*before).at("shop/web"), (std::vector<std::string>{"web-1", "web-2"}));
}

TEST(ClusterView, NodeLabelsCountedByKeyAndValue) {
  StateCache cache;
  {
    auto b = cache.batch();
    b.upsert_node(zoned("n1", "a"));
    b.upsert_node(zoned("n2", "a"));
    b.upsert_node(zoned("n3", "b"));
  }
  auto first = cache.view();
  const LabelValues& zones = first->node_labels->at("topology.kubernetes.io/zone");
  EXPECT_EQ(zones.nodes, 3u);
  EXPECT_EQ(zones.values, (std::map<std::string, size_t, std::less<>>{{"a", 2}, {"b", 1}}));
  {
    auto b = cache.batch();
    b.upsert_node(zoned("n2", "c"));  // relabelled
    b.delete_node("n3");
    Node bare;
    bare.name = "n4";
    b.upsert_node(bare);  // no labels at all
  }
  auto second = cache.view();
  EXPECT_EQ(second->node_labels->at("topology.kubernetes.io/zone").values,
            (std::map<std::string, size_t, std::less<>>{{"a", 1}, {"c", 1}}));
  EXPECT_EQ(second->node_labels->at("kubernetes.io/hostname").nodes, 2u);
  EXPECT_EQ(first->node_labels->at("topology.kubernetes.io/zone").nodes, 3u) << "views are immutable";

  // The view a request reads: every node object, the index, the groups.
  const auto view = cluster_view_of(second);
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->view.nodes.size(), 3u);
  EXPECT_EQ(view->view.node_labels, second->node_labels.get());
  EXPECT_NE(view->view.pod_groups, nullptr);
  EXPECT_EQ(cluster_view_of(StateCache().view()), nullptr)
      << "no node objects: the request's nodes are the cluster";
}

}  // namespace
}  // namespace cluster_view_test
}  // namespace kext
