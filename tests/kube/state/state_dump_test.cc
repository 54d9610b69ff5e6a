// dump_state(): the canonical text of a ClusterState that a cache kept by events is compared with (GET
// /debug/state, the watch tests, bench/soak).
#include "kube/state/state_dump.h"

#include <gtest/gtest.h>

#include "kube/state/snapshot_loader.h"
#include "kube/state/state_cache.h"

namespace kext {
namespace state_dump_test {
namespace {

const char* kCluster = R"({"kind":"List","items":[
  {"kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"}},"spec":{"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},
   "status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}},
  {"kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"u-p","labels":{"app":"web"}},
   "spec":{"nodeName":"n1","priority":100,"containers":[{"name":"c","resources":{"requests":{"cpu":"250m"}}}]},
   "status":{"phase":"Running","startTime":"2026-01-01T00:00:00Z"}},
  {"kind":"Pod","metadata":{"name":"q","namespace":"default","uid":"u-q"},"spec":{"nodeName":"ghost","containers":[{"name":"c"}]},
   "status":{"phase":"Pending"}},
  {"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"b","namespace":"default"},
   "spec":{"selector":{"matchLabels":{"app":"web"}}},"status":{"disruptionsAllowed":1}}]})";

std::shared_ptr<const ClusterState> build(const std::string& text) {
  ClusterStateBuilder b;
  load_snapshot_json(text, b);
  return std::move(b).build();
}

TEST(StateDump, OneSortedLinePerNodePodAndBudget) {
  EXPECT_EQ(
      dump_state(*build(kCluster)),
      "node ghost (no object) requested=0m,0,0 nonzero=100m,209715200,0 pods=u-q\n"
      "node n1 allocatable=4000m,8589934592,0,pods=110 labels=zone=a taints=k=v:NoSchedule unschedulable=0 "
      "images=0/0 requested=250m,0,0 nonzero=250m,209715200,0 pods=u-p\n"
      "pdb default/b allowed=1 selector=app=web disrupted=\n"
      "pod u-p default/p node=n1 phase=Running priority=100 start=1767225600 terminating=0 labels=app=web "
      "requests=250m,0,0 nonzero=250m,209715200,0\n"
      "pod u-q default/q node=ghost phase=Pending priority=- start=- terminating=0 labels= requests=0m,0,0 "
      "nonzero=100m,209715200,0\n");
}

TEST(StateDump, NamespacesAndSelectorsWithTheirCounts) {
  const auto s = build(R"({"kind":"List","items":[
    {"kind":"Namespace","metadata":{"name":"shop","labels":{"team":"a"}}},
    {"kind":"Namespace","metadata":{"name":"default"}},
    {"kind":"Service","metadata":{"name":"web","namespace":"shop"},"spec":{"selector":{"app":"web"}}},
    {"kind":"Service","metadata":{"name":"kubernetes","namespace":"default"},"spec":{}},
    {"kind":"ReplicaSet","metadata":{"name":"web-1","namespace":"shop"},
     "spec":{"selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"v","operator":"In","values":["1","2"]}]}}},
    {"kind":"StatefulSet","metadata":{"name":"db","namespace":"shop"},"spec":{"selector":{"matchLabels":{"app":"db"}}}}]})");
  EXPECT_EQ(dump_state(*s),
            "count namespaces=2\n"
            "count replicasets=1\n"
            "count services=1\n"
            "count statefulsets=1\n"
            "namespace default labels=\n"
            "namespace shop labels=team=a\n"
            "replicaset shop/web-1 selector=app=web;v In (1,2)\n"
            "service shop/web selector=app=web\n"
            "statefulset shop/db selector=app=db\n");
}

// A PodGroup's line: its topology constraint too, so that a cache that lost it differs from a
// from-scratch build.
TEST(StateDump, PodGroupsWithTheirTopology) {
  const auto s = build(R"({"kind":"List","items":[
    {"kind":"PodGroup","apiVersion":"scheduling.x-k8s.io/v1alpha1",
     "metadata":{"name":"a","namespace":"train","annotations":{
       "kube-extender.io/required-topology":"example.com/rack",
       "kube-extender.io/preferred-topology":"example.com/block"}},"spec":{"minMember":4}},
    {"kind":"PodGroup","apiVersion":"scheduling.k8s.io/v1alpha2","metadata":{"name":"b","namespace":"train"},
     "spec":{"schedulingPolicy":{"gang":{"minCount":2}},"schedulingConstraints":{"topology":[{"key":"rack"}]}}},
    {"kind":"PodGroup","apiVersion":"scheduling.x-k8s.io/v1alpha1","metadata":{"name":"c","namespace":"train"},
     "spec":{"minMember":1}}]})");
  EXPECT_EQ(dump_state(*s),
            "count podgroups=3\n"
            "podgroup train/a minMember=4 timeout=60s minResources=0m,0,0 created=0 "
            "required-topology=example.com/rack preferred-topology=example.com/block\n"
            "podgroup train/b (scheduling.k8s.io) minCount=2 timeout=300s minResources=0m,0,0 created=0 "
            "required-topology=rack\n"
            "podgroup train/c minMember=1 timeout=60s minResources=0m,0,0 created=0\n");
}

Pod pod(const std::string& uid, const std::string& node_name, int64_t milli_cpu) {
  Pod p;
  p.name = uid;
  p.namespace_ = "default";
  p.uid = uid;
  p.node_name = node_name;
  p.phase = "Running";
  Container c;
  c.name = "c";
  c.requests.milli_cpu = milli_cpu;
  c.has_cpu_request = true;
  p.containers.push_back(c);
  return p;
}

Node node(const std::string& name) {
  Node n;
  n.name = name;
  n.allocatable.milli_cpu = 4000;
  return n;
}

TEST(StateDump, EventsThatCancelOutDumpLikeAFreshBuild) {
  StateCache fresh;
  {
    auto b = fresh.batch();
    b.upsert_node(node("n1"));
    b.upsert_pod(pod("p", "n1", 250));
  }
  // The same objects reached by a detour: a pod added then deleted, a pod moved away and back, a node
  // that only a pod named, and a node object deleted and re-added.
  StateCache detour;
  {
    auto b = detour.batch();
    b.upsert_node(node("n1"));
    b.upsert_pod(pod("x", "n1", 1000));
    b.upsert_pod(pod("p", "n2", 250));
  }
  EXPECT_NE(dump_state(*detour.view()), dump_state(*fresh.view()));
  {
    auto b = detour.batch();
    b.upsert_pod(pod("p", "n1", 250));
    b.delete_pod(StateCache::pod_key(pod("x", "n1", 1000)));
    b.delete_node("n1");
    b.upsert_node(node("n1"));
  }
  EXPECT_EQ(dump_state(*detour.view()), dump_state(*fresh.view()));
}

TEST(StateDump, EveryDecisionInputShows) {
  const std::string base = dump_state(*build(kCluster));
  auto changed = [&](const std::string& from, const std::string& to) {
    std::string text = kCluster;
    const size_t at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("not in kCluster: " + from);
    text.replace(at, from.size(), to);
    return dump_state(*build(text)) != base;
  };
  EXPECT_TRUE(changed(R"("priority":100)", R"("priority":101)"));
  EXPECT_TRUE(changed(R"("cpu":"250m")", R"("cpu":"251m")"));
  EXPECT_TRUE(changed(R"("zone":"a")", R"("zone":"b")"));
  EXPECT_TRUE(changed(R"("effect":"NoSchedule")", R"("effect":"NoExecute")"));
  EXPECT_TRUE(changed(R"("disruptionsAllowed":1)", R"("disruptionsAllowed":0)"));
  EXPECT_TRUE(changed(R"("uid":"u-p","labels":{"app":"web"})", R"("uid":"u-p","labels":{"app":"db"})"));
  EXPECT_TRUE(changed(R"("nodeName":"ghost")", R"("nodeName":"n1")"));
  EXPECT_FALSE(
      changed(R"("name":"c","resources")", R"("name":"d","resources")"));  // container names decide nothing
}

}  // namespace
}  // namespace state_dump_test
}  // namespace kext
