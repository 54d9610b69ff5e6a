// The writer side of the cluster state: incremental per-node aggregates, views that never change
// under a reader, replace after a relist, and bind assumptions.
#include "kube/state/state_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <vector>

namespace kext {
namespace state_cache_test {
namespace {

Node node(const std::string& name, int64_t milli_cpu = 4000) {
  Node n;
  n.name = name;
  n.allocatable.milli_cpu = milli_cpu;
  return n;
}

Pod pod(const std::string& uid, const std::string& node_name, int64_t milli_cpu,
        const std::string& phase = "Running") {
  Pod p;
  p.name = uid;
  p.namespace_ = "default";
  p.uid = uid;
  p.node_name = node_name;
  p.phase = phase;
  Container c;
  c.name = "c";
  c.image = "nginx";
  c.requests.milli_cpu = milli_cpu;
  c.has_cpu_request = true;
  p.containers.push_back(c);
  return p;
}

int64_t cpu(const ClusterState& s, const std::string& n) {
  const NodeInfo* info = s.find_node(n);
  return info ? info->requested.milli_cpu : -1;
}

TEST(StateCache, AggregatesFollowEachPodEvent) {
  StateStore store;
  StateCache cache(&store);
  {
    auto b = cache.batch();
    b.upsert_node(node("a"));
    b.upsert_pod(pod("p1", "a", 100));
    b.upsert_pod(pod("p2", "a", 200));
  }
  EXPECT_EQ(cpu(*store.current(), "a"), 300);
  EXPECT_EQ(store.current()->find_node("a")->nonzero_requested.memory, 2 * (200LL << 20));
  cache.batch().upsert_pod(pod("p1", "a", 500));  // resized
  EXPECT_EQ(cpu(*store.current(), "a"), 700);
  cache.batch().upsert_pod(pod("p2", "b", 200));  // moved (unusual, but the UID decides)
  EXPECT_EQ(cpu(*store.current(), "a"), 500);
  EXPECT_EQ(cpu(*store.current(), "b"), 200);
  EXPECT_EQ(store.current()->find_node("b")->node, nullptr);  // pods only: no object yet
  cache.batch().upsert_pod(pod("p1", "a", 500, "Succeeded"));
  EXPECT_EQ(cpu(*store.current(), "a"), 0);
  EXPECT_EQ(store.current()->find_pod("p1"), nullptr);
  cache.batch().delete_pod("p2");
  EXPECT_EQ(store.current()->find_node("b"), nullptr);  // neither object nor pods: gone
  EXPECT_EQ(store.current()->pods_by_uid.size(), 0u);
}

TEST(StateCache, CachedPodsKeepOnlyWhatDecisionsRead) {
  StateCache cache;
  Pod p = pod("p", "a", 250);
  p.tolerations.push_back({"k", "Exists", "", ""});
  p.labels = Labels{{"app", "web"}};
  p.priority = 7;
  cache.batch().upsert_pod(p);
  auto s = cache.view();
  const PodInfo* info = s->find_pod("p");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->requests.milli_cpu, 250);
  EXPECT_EQ(info->pod->labels.at("app"), "web");
  EXPECT_EQ(info->pod->effective_priority(), 7);
}

// Replicas share one label set; a pod whose labels change gets its own, and sets no pod uses any more
// are not kept alive by the intern table.
TEST(StateCache, PodsWithTheSameLabelsShareOneCopy) {
  StateCache cache;
  for (const char* uid : {"r1", "r2", "r3"}) {
    Pod p = pod(uid, "a", 100);
    p.labels = Labels{{"app", "web"}, {"pod-template-hash", "abc"}};
    cache.batch().upsert_pod(p);
  }
  {
    Pod other = pod("o1", "a", 100);
    other.labels = Labels{{"app", "db"}};
    cache.batch().upsert_pod(std::move(other));
  }
  auto s = cache.view();
  const auto& r1 = s->find_pod("r1")->pod->labels.shared();
  ASSERT_NE(r1, nullptr);
  EXPECT_EQ(r1.get(), s->find_pod("r2")->pod->labels.shared().get());
  EXPECT_EQ(r1.get(), s->find_pod("r3")->pod->labels.shared().get());
  EXPECT_NE(r1.get(), s->find_pod("o1")->pod->labels.shared().get());

  std::weak_ptr<const Labels> db = s->find_pod("o1")->pod->labels.shared();
  Pod relabelled = pod("o1", "a", 100);
  relabelled.labels = Labels{{"app", "db"}, {"tier", "2"}};
  cache.batch().upsert_pod(relabelled);
  s.reset();
  EXPECT_TRUE(db.expired());  // only the pod held it; the table holds weak references
  EXPECT_EQ(cache.view()->find_pod("o1")->pod->labels.at("tier"), "2");
}

TEST(StateCache, AViewNeverChangesUnderItsReader) {
  StateStore store;
  StateCache cache(&store);
  {
    auto b = cache.batch();
    for (int i = 0; i < 2000; ++i) b.upsert_node(node("n" + std::to_string(i)));
    for (int i = 0; i < 5000; ++i)
      b.upsert_pod(pod("p" + std::to_string(i), "n" + std::to_string(i % 2000), 10));
  }
  auto before = store.current();
  {
    auto b = cache.batch();
    b.upsert_pod(pod("new", "n0", 1000));
    b.delete_pod("p0");
    b.delete_node("n5");
  }
  auto after = store.current();
  EXPECT_EQ(cpu(*before, "n0"), 30);
  EXPECT_EQ(before->find_pod("new"), nullptr);
  EXPECT_NE(before->find_pod("p0"), nullptr);
  EXPECT_NE(before->find_node("n5")->node, nullptr);
  EXPECT_EQ(cpu(*after, "n0"), 1020);
  EXPECT_EQ(after->find_pod("p0"), nullptr);
  EXPECT_EQ(after->find_node("n5")->node, nullptr);  // its pods still hold the name
  EXPECT_EQ(before->node_object_count(), 2000u);
  EXPECT_EQ(after->node_object_count(), 1999u);
  // Untouched nodes are shared between the views, not copied.
  EXPECT_EQ(before->find_node("n1999"), after->find_node("n1999"));
}

TEST(StateCache, ReplaceDropsWhatTheListDoesNotHave) {
  StateCache cache;
  {
    auto b = cache.batch();
    b.upsert_node(node("a"));
    b.upsert_node(node("b"));
    b.upsert_pod(pod("p1", "a", 100));
    b.upsert_pod(pod("p2", "b", 100));
    PodDisruptionBudget pdb;
    pdb.name = "old";
    pdb.namespace_ = "default";
    b.upsert_pdb(pdb);
  }
  {
    auto b = cache.batch();
    b.replace_nodes({node("a", 8000)});
    b.replace_pods({pod("p1", "a", 300), pod("p3", "a", 1)});
    PodDisruptionBudget pdb;
    pdb.name = "new";
    pdb.namespace_ = "default";
    b.replace_pdbs({pdb});
  }
  auto s = cache.view();
  EXPECT_EQ(s->find_node("b"), nullptr);
  EXPECT_EQ(s->find_node("a")->node->allocatable.milli_cpu, 8000);
  EXPECT_EQ(cpu(*s, "a"), 301);
  EXPECT_EQ(s->find_pod("p2"), nullptr);
  ASSERT_EQ(s->pdbs->size(), 1u);
  EXPECT_EQ((*s->pdbs)[0].name, "new");
}

WorkloadSelector workload(const std::string& ns, const std::string& name, const std::string& app) {
  WorkloadSelector w;
  w.namespace_ = ns;
  w.name = name;
  if (!app.empty()) w.selector.match_labels = {{"app", app}};
  return w;
}

std::vector<std::string> names(const std::vector<WorkloadSelector>& ws) {
  std::vector<std::string> out;
  for (const auto& w : ws) out.push_back(w.namespace_ + "/" + w.name);
  return out;
}

TEST(StateCache, NamespacesUpsertDeleteAndReplaceWithEarlierViewsUnchanged) {
  StateCache cache;
  const auto empty = cache.view();
  {
    auto b = cache.batch();
    b.upsert_namespace("a", {{"team", "x"}});
    b.upsert_namespace("b", {});
  }
  const auto first = cache.view();
  ASSERT_EQ(first->namespace_labels->size(), 2u);
  EXPECT_EQ(first->namespace_labels->at("a"), (Labels{{"team", "x"}}));
  EXPECT_TRUE(empty->namespace_labels->empty()) << "an earlier view never changes";
  {
    auto b = cache.batch();
    b.upsert_namespace("a", {{"team", "y"}});
    b.delete_namespace("b");
    b.delete_namespace("never");
  }
  const auto second = cache.view();
  EXPECT_EQ(*second->namespace_labels, (std::map<std::string, Labels, std::less<>>{{"a", {{"team", "y"}}}}));
  EXPECT_EQ(first->namespace_labels->at("a"), (Labels{{"team", "x"}}));
  // An unrelated change shares the map with the previous view.
  cache.batch().upsert_node(node("n"));
  EXPECT_EQ(cache.view()->namespace_labels, second->namespace_labels);
  cache.batch().replace_namespaces({{"c", {{"k", "v"}}}});
  EXPECT_EQ(*cache.view()->namespace_labels,
            (std::map<std::string, Labels, std::less<>>{{"c", {{"k", "v"}}}}));
}

TEST(StateCache, WorkloadsOfEachKindUpsertDeleteAndReplaceApart) {
  StateCache cache;
  for (WorkloadKind kind : kWorkloadKinds) {
    auto b = cache.batch();
    b.upsert_workload(kind, workload("default", "web", "web"));
    b.upsert_workload(kind, workload("default", "db", "db"));
    // A nil or empty selector selects no pod: not kept.
    b.upsert_workload(kind, workload("default", "headless", ""));
  }
  auto s = cache.view();
  for (WorkloadKind kind : kWorkloadKinds)
    EXPECT_EQ(names(*s->workloads(kind)), (std::vector<std::string>{"default/db", "default/web"}))
        << workload_resource(kind);
  EXPECT_EQ(s->services, s->workloads(WorkloadKind::kService));
  EXPECT_EQ(s->stateful_sets, s->workloads(WorkloadKind::kStatefulSet));
  {
    auto b = cache.batch();
    b.delete_workload(WorkloadKind::kService, "default", "web");
    // An update that empties the selector drops the object.
    b.upsert_workload(WorkloadKind::kReplicationController, workload("default", "db", ""));
    b.upsert_workload(WorkloadKind::kReplicaSet, workload("default", "db", "db-v2"));
    b.replace_workloads(WorkloadKind::kStatefulSet,
                        {workload("other", "cache", "cache"), workload("x", "y", "")});
  }
  auto t = cache.view();
  EXPECT_EQ(names(*t->services), (std::vector<std::string>{"default/db"}));
  EXPECT_EQ(names(*t->replication_controllers), (std::vector<std::string>{"default/web"}));
  ASSERT_EQ(t->replica_sets->size(), 2u);
  EXPECT_EQ((*t->replica_sets)[0].selector.match_labels.at("app"), "db-v2");
  EXPECT_EQ(names(*t->stateful_sets), (std::vector<std::string>{"other/cache"}));
  // The earlier view still has what it had.
  EXPECT_EQ(names(*s->services), (std::vector<std::string>{"default/db", "default/web"}));
  EXPECT_EQ((*s->replica_sets)[0].selector.match_labels.at("app"), "db");
}

TEST(StateCache, PodGroupsUpsertDeleteAndReplaceWithEarlierViewsUnchanged) {
  auto group = [](std::string name, int32_t min_member) {
    gang::PodGroupSpec g;
    g.namespace_ = "train";
    g.name = std::move(name);
    g.min_member = min_member;
    return g;
  };
  StateCache cache;
  auto empty = cache.view();
  {
    auto b = cache.batch();
    b.upsert_gang(group("bert", 8));
    b.upsert_gang(group("gpt", 16));
  }
  auto first = cache.view();
  ASSERT_EQ(first->gangs->size(), 2u);
  EXPECT_EQ(first->gangs->at("train/bert").min_member, 8);
  EXPECT_TRUE(empty->gangs->empty()) << "an earlier view never changes";
  {
    auto b = cache.batch();
    b.upsert_gang(group("bert", 4));
    b.delete_gang(group("gpt", 0));
    b.delete_gang(group("never", 0));
  }
  auto second = cache.view();
  ASSERT_EQ(second->gangs->size(), 1u);
  EXPECT_EQ(second->gangs->at("train/bert").min_member, 4);
  EXPECT_EQ(first->gangs->at("train/bert").min_member, 8);
  EXPECT_EQ(cache.view()->gangs, second->gangs) << "unchanged: the same map is shared";
  // Upstream's PodGroup of the same name is another group, and a relist of one API's groups leaves
  // the other's.
  gang::PodGroupSpec upstream = group("bert", 3);
  upstream.api = gang::GroupApi::kWorkload;
  cache.batch().upsert_gang(upstream);
  ASSERT_EQ(cache.view()->gangs->size(), 2u);
  EXPECT_EQ(cache.view()->gangs->at("train/bert (scheduling.k8s.io)").min_member, 3);
  cache.batch().replace_gangs(gang::GroupApi::kCoscheduling, {group("t5", 2)});
  EXPECT_EQ(cache.view()->gangs->count("train/t5"), 1u);
  EXPECT_EQ(cache.view()->gangs->count("train/bert (scheduling.k8s.io)"), 1u);
  EXPECT_EQ(cache.view()->gangs->size(), 2u);
  cache.batch().delete_gang(upstream);
  EXPECT_EQ(cache.view()->gangs->size(), 1u);
}

// DeviceClasses leave only the names they back; a view shows them, earlier views keep theirs.
TEST(StateCache, DeviceClassesUpsertDeleteAndReplaceWithEarlierViewsUnchanged) {
  using Names = std::set<std::string, std::less<>>;
  StateCache cache;
  auto empty = cache.view();
  {
    auto b = cache.batch();
    b.upsert_device_class({"gpu", {"deviceclass.resource.kubernetes.io/gpu", "example.com/gpu"}});
    b.upsert_device_class({"fpga", {"deviceclass.resource.kubernetes.io/fpga"}});
  }
  auto first = cache.view();
  EXPECT_EQ(*first->dra_extended_resources,
            (Names{"deviceclass.resource.kubernetes.io/fpga", "deviceclass.resource.kubernetes.io/gpu",
                   "example.com/gpu"}));
  EXPECT_TRUE(empty->dra_extended_resources->empty()) << "an earlier view never changes";
  EXPECT_EQ(cache.view()->dra_extended_resources, first->dra_extended_resources) << "unchanged: shared";
  {
    auto b = cache.batch();
    b.upsert_device_class({"gpu", {"deviceclass.resource.kubernetes.io/gpu"}});  // name dropped
    b.delete_device_class("fpga");
    b.delete_device_class("never");
  }
  EXPECT_EQ(*cache.view()->dra_extended_resources, Names{"deviceclass.resource.kubernetes.io/gpu"});
  cache.batch().replace_device_classes(
      {{"tpu", {"deviceclass.resource.kubernetes.io/tpu", "example.com/tpu"}}});
  EXPECT_EQ(*cache.view()->dra_extended_resources,
            (Names{"deviceclass.resource.kubernetes.io/tpu", "example.com/tpu"}));
}

// The cache computes each pod's requests once, at the minor it was built for: a resized pod counts its
// allocated resources on its node from 1.33.
TEST(StateCache, PodRequestsFollowTheCachesMinor) {
  Pod resized = pod("r", "n1", 500);
  ContainerResourceStatus st;
  st.allocated.milli_cpu = 900;
  st.names_cpu = true;
  resized.containers[0].status = st;
  for (int minor : {32, 33}) {
    SCOPED_TRACE(minor);
    StateCache cache(nullptr, KubeVersion{minor});
    {
      auto b = cache.batch();
      b.upsert_node(node("n1"));
      b.upsert_pod(resized);
    }
    EXPECT_EQ(cpu(*cache.view(), "n1"), minor >= 33 ? 900 : 500);
  }
}

TEST(StateCache, AssumptionsCountUntilConfirmedForgottenOrExpired) {
  StateCache cache;
  cache.batch().upsert_node(node("a"));
  cache.batch().upsert_pod(pod("w", "", 600));
  const auto now = StateCache::Clock::now();
  EXPECT_FALSE(cache.batch().assume_pod("unknown", "a", now + std::chrono::seconds(30)));
  ASSERT_TRUE(cache.batch().assume_pod("w", "a", now + std::chrono::seconds(30)));
  EXPECT_EQ(cpu(*cache.view(), "a"), 600);
  // An unrelated update that still shows the pod unbound keeps the assumption.
  cache.batch().upsert_pod(pod("w", "", 600));
  EXPECT_EQ(cpu(*cache.view(), "a"), 600);
  cache.expire_assumed(now + std::chrono::seconds(31));
  EXPECT_EQ(cpu(*cache.view(), "a"), 0);
  EXPECT_EQ(cache.view()->find_pod("w")->pod->node_name, "");

  ASSERT_TRUE(cache.batch().assume_pod("w", "a", now + std::chrono::seconds(30)));
  cache.batch().forget_assumed("w");
  EXPECT_EQ(cpu(*cache.view(), "a"), 0);

  ASSERT_TRUE(cache.batch().assume_pod("w", "a", now + std::chrono::seconds(30)));
  cache.batch().upsert_pod(pod("w", "a", 600));  // the watch shows the bind
  cache.expire_assumed(now + std::chrono::seconds(31));
  EXPECT_EQ(cpu(*cache.view(), "a"), 600);  // confirmed: expiry no longer undoes it
}

// Two 8Ei pods bound to one node made it look empty (their sum wrapped to -2); the node's memory
// must saturate, and deleting one pod must leave the other's 8Ei, not 0.
TEST(StateCache, EightExbibytePodsSaturateThroughEveryEvent) {
  constexpr int64_t k8Ei = std::numeric_limits<int64_t>::max();
  auto mem_pod = [](const std::string& uid, int64_t mem) {
    Pod p = pod(uid, "a", 100);
    p.containers[0].requests.memory = mem;
    p.containers[0].has_memory_request = true;
    return p;
  };
  auto mem = [](const ClusterState& s) { return s.find_node("a")->requested.memory; };
  StateStore store;
  StateCache cache(&store);
  {
    auto b = cache.batch();
    b.upsert_node(node("a"));
    b.upsert_pod(mem_pod("p1", k8Ei));
    b.upsert_pod(mem_pod("p2", k8Ei));
    b.upsert_pod(mem_pod("p3", 1 << 30));
  }
  EXPECT_EQ(mem(*store.current()), k8Ei);
  EXPECT_EQ(store.current()->find_node("a")->nonzero_requested.memory, k8Ei);
  cache.batch().delete_pod("p1");
  EXPECT_EQ(mem(*store.current()), k8Ei);
  cache.batch().upsert_pod(mem_pod("p2", 1 << 20));  // resized
  EXPECT_EQ(mem(*store.current()), (1 << 30) + (1 << 20));
  cache.batch().upsert_pod(mem_pod("p1", k8Ei));
  cache.batch().replace_pods({mem_pod("p1", k8Ei), mem_pod("p4", k8Ei)});
  EXPECT_EQ(mem(*store.current()), k8Ei);
  cache.batch().delete_pod("p4");
  EXPECT_EQ(mem(*store.current()), k8Ei);
  cache.batch().delete_pod("p1");
  EXPECT_EQ(mem(*store.current()), 0);
  EXPECT_EQ(cpu(*store.current(), "a"), 0);
}

// Readers take views while the writer applies batches and publishes: each view is whole (every pod
// of a batch or none) and never changes. In the TSan build this checks the hand-off in StateStore.
TEST(StateCache, ReadersTakeWholeViewsWhileTheWriterPublishes) {
  StateStore store;
  StateCache cache(&store);
  cache.batch().upsert_node(node("a", 1000000));
  constexpr int kBatches = 300;
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      int64_t last = 0;
      while (!done.load()) {
        auto s = store.current();
        const int64_t pods = static_cast<int64_t>(s->pods_by_uid.size());
        const int64_t requested = cpu(*s, "a");
        // Two pods of 10m per batch; views only move forward.
        if (requested != 10 * pods || pods % 2 != 0 || pods < last) bad.fetch_add(1);
        last = pods;
      }
    });
  }
  for (int i = 0; i < kBatches; ++i) {
    auto b = cache.batch();
    b.upsert_pod(pod("p" + std::to_string(i) + "a", "a", 10));
    b.upsert_pod(pod("p" + std::to_string(i) + "b", "a", 10));
  }
  done.store(true);
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(cpu(*store.current(), "a"), 10 * 2 * kBatches);
}

}  // namespace
}  // namespace state_cache_test
}  // namespace kext
