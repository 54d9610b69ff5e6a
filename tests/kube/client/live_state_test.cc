// The live cache against the in-repo API server over mutual TLS: initial sync, events, and after each
// injected fault the cache equals the server's state (nothing lost, nothing stale).
#include "kube/client/live_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "kube/client/api_config.h"
#include "kube/client/cache_sinks.h"
#include "kube/state/state_dump.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace live_state_test {
namespace {

using namespace std::chrono_literals;

class Watch : public ::testing::Test {
 protected:
  void start(kube::LiveStateOptions opts = fast_live_options()) {
    api_client_ = client_for(api_);
    live_ = std::make_unique<kube::LiveState>(*api_client_, store_, opts);
    live_->start();
  }

  // Waits (bounded) for the cache to equal the server; returns the last difference on failure.
  ::testing::AssertionResult converges() {
    std::string want, got;
    const bool same = wait_until(
        [&] {
          want = dump_from_scratch(api_);
          got = dump_state(*store_.current());
          return want == got && store_.ready();
        },
        kPatience);
    if (same) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "cache never matched the server\nwant:\n"
                                         << want << "got:\n"
                                         << got;
  }

  // Faults hit the streams open when they are injected, so wait until the server has registered a watch
  // of each resource. One that has ended since was silent past the idle timeout: a failure already.
  ::testing::AssertionResult watching() {
    for (const kube::WatchedResource& w : kube::watched_resources()) {
      const std::string r(w.name);
      if (!wait_until([&] { return api_.watches_served(r) >= 1; }, kPatience))
        return ::testing::AssertionFailure() << "no watch of " << r;
    }
    return ::testing::AssertionSuccess();
  }

  void seed() {
    for (int i = 0; i < 5; ++i) api_.put("nodes", node_json("n" + std::to_string(i)));
    for (int i = 0; i < 7; ++i)
      api_.put("pods", pod_json("default", "p" + std::to_string(i), "n" + std::to_string(i % 5), "250m"));
    api_.put("pods", pod_json("default", "pending", ""));
    api_.put("pods", pod_json("default", "done", "n0", "2", "Succeeded"));
    api_.put("poddisruptionbudgets", pdb_json("default", "web", "web", 1));
  }

  FakeApiServer api_;
  StateStore store_;
  std::unique_ptr<kube::ApiClient> api_client_;
  std::unique_ptr<kube::LiveState> live_;
};

int64_t requested_cpu(const StateStore& store, const std::string& node) {
  auto s = store.current();
  const NodeInfo* n = s->find_node(node);
  return n ? n->requested.milli_cpu : -1;
}

TEST_F(Watch, InitialSyncOverMutualTlsWithPagesThenEvents) {
  seed();
  start();
  ASSERT_TRUE(converges());
  EXPECT_GE(api_.lists_served(), 3 + 2);        // 5 nodes and 9 pods in pages of 2
  EXPECT_EQ(requested_cpu(store_, "n0"), 500);  // p0, p5; the Succeeded pod does not count
  EXPECT_EQ(store_.current()->find_pod("uid-default-done"), nullptr);
  EXPECT_NE(store_.current()->find_pod("uid-default-pending"), nullptr);

  api_.put("pods", pod_json("default", "new", "n1", "1"));
  api_.remove("pods", "default/p1");
  api_.put("nodes", node_json("n2", "8"));
  api_.remove("nodes", "n4");  // p4 still names it: the aggregate stays, the object goes
  api_.put("poddisruptionbudgets", pdb_json("default", "web", "web", 0));
  api_.put("pods", pod_json("default", "p3", "n3", "250m", "Failed"));  // terminal: stops counting
  ASSERT_TRUE(converges());
  EXPECT_EQ(requested_cpu(store_, "n1"), 1250);  // p6 + new
  EXPECT_EQ(store_.current()->find_node("n4")->node, nullptr);
  EXPECT_EQ(requested_cpu(store_, "n3"), 0);
}

TEST_F(Watch, ReadyOnlyAfterEveryResourceListed) {
  seed();
  api_.set_list_delay(300ms);
  TestServer server(std::make_shared<ClusterState>());
  start();
  EXPECT_FALSE(store_.ready());
  ASSERT_TRUE(converges());
  EXPECT_TRUE(store_.ready());
}

// Readiness waits on the initial list of every watched resource, the new ones included: with
// namespaces forbidden (a ClusterRole from before they were watched), the store never becomes ready.
TEST_F(Watch, NotReadyUntilEveryWatchedResourceListed) {
  seed();
  for (const kube::WatchedResource& w : kube::watched_resources()) {
    if (w.optional) continue;  // below
    const std::string r(w.name);
    api_.forbid(r);
    const size_t asked = api_.requests().size();
    start();
    // Until the resource's list was refused and asked again.
    auto lists_of_r = [&] {
      const auto requests = api_.requests();
      return std::count_if(
          requests.begin() + static_cast<std::ptrdiff_t>(asked), requests.end(),
          [&](const auto& q) { return q.second.size() > r.size() && q.second.ends_with("/" + r); });
    };
    ASSERT_TRUE(wait_until([&] { return lists_of_r() >= 2; })) << r;
    EXPECT_FALSE(store_.ready()) << r;
    api_.forbid(r, false);
    EXPECT_TRUE(converges()) << r;
    live_.reset();
    store_.set_ready(false);
  }
}

// PodGroups (scheduler-plugins' CRD and upstream's alpha API, which a cluster may not have): each
// listed and followed where the server serves it; where it refuses one, that one is left out, and
// readiness does not wait for it.
TEST_F(Watch, PodGroupsAreWatchedWhereServedAndLeftOutWhereRefused) {
  auto group = [](const std::string& name, int min_member) {
    return R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":")" + name +
           R"(","namespace":"train"},"spec":{"minMember":)" + std::to_string(min_member) + "}}";
  };
  const std::string upstream = "podgroups.scheduling.k8s.io";
  seed();
  api_.put("podgroups", group("bert", 8));
  api_.put(upstream, R"({"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup",
      "metadata":{"name":"bert","namespace":"train"},"spec":{"schedulingPolicy":{"gang":{"minCount":3}}}})");
  start();
  ASSERT_TRUE(converges());
  ASSERT_EQ(store_.current()->gangs->size(), 2u);
  EXPECT_EQ(store_.current()->gangs->at("train/bert").min_member, 8);
  EXPECT_EQ(store_.current()->gangs->at("train/bert (scheduling.k8s.io)").min_member, 3);
  api_.remove(upstream, "train/bert");
  ASSERT_TRUE(converges());
  ASSERT_EQ(store_.current()->gangs->size(), 1u);
  api_.put("podgroups", group("bert", 4));
  api_.put("podgroups", group("gpt", 16));
  ASSERT_TRUE(converges());
  EXPECT_EQ(store_.current()->gangs->at("train/bert").min_member, 4);
  api_.remove("podgroups", "train/bert");
  ASSERT_TRUE(converges());
  EXPECT_EQ(store_.current()->gangs->size(), 1u);
  EXPECT_EQ(store_.current()->gangs->count("train/gpt"), 1u);
  live_.reset();

  api_.forbid("podgroups");
  api_.forbid(upstream);
  store_.set_ready(false);
  start();
  EXPECT_TRUE(wait_until([&] { return store_.ready(); }, kPatience)) << "readiness waits for podgroups";
  for (const auto& r : live_->status()) EXPECT_TRUE(r.resource != "podgroups" && r.resource != upstream);
  EXPECT_EQ(live_->status().size(), kube::watched_resources().size() - 2);
}

// Namespaces, Services, ReplicationControllers, ReplicaSets and StatefulSets: listed, then each
// added, modified and deleted by events, as ClusterState shows them.
// on_pod_gone: each pod deleted or ended, once its batch is in the cache (so that a filter asked from the
// callback sees the room), with whether it held GPU cards.
TEST_F(Watch, PodsGoneOrEndedAreToldAfterTheCacheShowsThem) {
  seed();
  std::mutex mu;
  std::vector<std::string> told;
  auto opts = fast_live_options();
  opts.on_pod_gone = [&](const kube::PodGone& g) {
    // The cache already shows the pod gone or ended: p1 off n1.
    const bool applied = g.name != "p1" || requested_cpu(store_, "n1") == 250;
    std::lock_guard lock(mu);
    told.push_back(g.namespace_ + "/" + g.name + (g.held_gpus ? " gpus" : "") + (applied ? "" : " early"));
  };
  start(opts);
  ASSERT_TRUE(converges());
  EXPECT_EQ(requested_cpu(store_, "n1"), 500);
  api_.remove("pods", "default/p1");
  api_.put("pods", pod_json("default", "p2", "n2", "250m", "Failed"));
  std::string with_cards = pod_json("default", "p3", "n3", "250m");
  with_cards.replace(
      with_cards.find("\"metadata\":{"), 12,
      R"("metadata":{"annotations":{"hami.io/vgpu-devices-allocated":"GPU-a,NVIDIA,1000,0:;"},)");
  api_.put("pods", with_cards);
  ASSERT_TRUE(wait_until([&] {
    std::lock_guard lock(mu);
    return told.size() >= 2;
  }));
  api_.remove("pods", "default/p3");
  ASSERT_TRUE(wait_until([&] {
    std::lock_guard lock(mu);
    return told.size() >= 3;
  }));
  std::lock_guard lock(mu);
  EXPECT_EQ(told, (std::vector<std::string>{"default/p1", "default/p2", "default/p3 gpus"}));
}

TEST_F(Watch, NamespacesServicesAndControllersFollowListAndEvents) {
  seed();
  api_.put("namespaces", namespace_json("shop", "a"));
  api_.put("services", map_selector_json("Service", "shop", "web", "web"));
  api_.put("replicationcontrollers", map_selector_json("ReplicationController", "shop", "old", "old"));
  api_.put("replicasets", label_selector_json("ReplicaSet", "shop", "web-1", "web"));
  api_.put("statefulsets", label_selector_json("StatefulSet", "shop", "db", "db"));
  start();
  ASSERT_TRUE(converges());
  auto s = store_.current();
  EXPECT_EQ(*s->namespace_labels, (std::map<std::string, Labels, std::less<>>{{"shop", {{"team", "a"}}}}));
  for (WorkloadKind kind : kWorkloadKinds)
    EXPECT_EQ(s->workloads(kind)->size(), 1u) << workload_resource(kind);

  // Added.
  api_.put("namespaces", namespace_json("bare", ""));
  api_.put("services", map_selector_json("Service", "shop", "api", "api"));
  api_.put("services", map_selector_json("Service", "default", "kubernetes", ""));  // no selector: not kept
  api_.put("replicationcontrollers", map_selector_json("ReplicationController", "shop", "older", "older"));
  api_.put("replicasets", label_selector_json("ReplicaSet", "shop", "web-2", "web"));
  api_.put("statefulsets", label_selector_json("StatefulSet", "shop", "cache", "cache"));
  ASSERT_TRUE(converges());
  s = store_.current();
  EXPECT_EQ(s->namespace_labels->size(), 2u);
  for (WorkloadKind kind : kWorkloadKinds)
    EXPECT_EQ(s->workloads(kind)->size(), 2u) << workload_resource(kind);

  // Modified: new labels and selectors; a selector emptied drops the object.
  api_.put("namespaces", namespace_json("shop", "b"));
  api_.put("services", map_selector_json("Service", "shop", "web", "web-v2"));
  api_.put("replicationcontrollers", map_selector_json("ReplicationController", "shop", "old", ""));
  api_.put("replicasets", label_selector_json("ReplicaSet", "shop", "web-1", "web-v2"));
  api_.put("statefulsets", label_selector_json("StatefulSet", "shop", "db", "db-v2"));
  ASSERT_TRUE(converges());
  s = store_.current();
  EXPECT_EQ(s->namespace_labels->at("shop"), (Labels{{"team", "b"}}));
  EXPECT_EQ(s->replication_controllers->size(), 1u);
  for (const auto* list : {s->services.get(), s->replica_sets.get(), s->stateful_sets.get()}) {
    bool v2 = false;
    for (const auto& w : *list) v2 |= w.selector.match_labels.at("app").ends_with("-v2");
    EXPECT_TRUE(v2);
  }

  // Deleted.
  api_.remove("namespaces", "shop");
  api_.remove("services", "shop/web");
  api_.remove("services", "default/kubernetes");
  api_.remove("replicationcontrollers", "shop/older");
  api_.remove("replicasets", "shop/web-1");
  api_.remove("statefulsets", "shop/db");
  ASSERT_TRUE(converges());
  s = store_.current();
  EXPECT_EQ(*s->namespace_labels, (std::map<std::string, Labels, std::less<>>{{"bare", {}}}));
  EXPECT_TRUE(s->replication_controllers->empty());
  for (WorkloadKind kind : {WorkloadKind::kService, WorkloadKind::kReplicaSet, WorkloadKind::kStatefulSet})
    EXPECT_EQ(s->workloads(kind)->size(), 1u) << workload_resource(kind);
  EXPECT_EQ((*s->services)[0].name, "api");
  EXPECT_EQ((*s->stateful_sets)[0].name, "cache");
}

TEST_F(Watch, StreamDroppedMidEventReconnectsWithoutLosingIt) {
  seed();
  // No silent stream ends for idleness: its error would replace the cut stream's as the last one (it
  // did under ASan on a loaded machine, when the pods stream went idle just before the cut).
  auto opts = fast_live_options();
  opts.reflector.idle_timeout = kPatience;
  start(opts);
  ASSERT_TRUE(converges());
  ASSERT_TRUE(watching());
  const int watches = api_.watches_served();
  api_.drop_streams_mid_event();
  api_.put("pods", pod_json("default", "cut", "n2", "300m"));
  api_.put("nodes", node_json("n9"));
  ASSERT_TRUE(converges());
  EXPECT_GT(api_.watches_served(), watches);
  EXPECT_GE(live_->status()[1].status.failures, 1u);
  EXPECT_EQ(live_->status()[1].status.gone, 0u);  // resumed from its resourceVersion, no relist
  // Said in words, not as cpp-httplib's "Read".
  const std::string error = live_->status()[1].status.last_error;
  EXPECT_NE(error.find("watch ended: connection closed by the API server after "), std::string::npos)
      << error;
  EXPECT_NE(error.find(" s (mid-event)"), std::string::npos) << error;
}

TEST_F(Watch, SilentStreamIsAbandonedAfterTheIdleTimeout) {
  seed();
  start();
  ASSERT_TRUE(converges());
  ASSERT_TRUE(watching());
  api_.hang_streams();
  api_.put("pods", pod_json("default", "during-hang", "n1", "100m"));
  api_.remove("pods", "default/p2");
  ASSERT_TRUE(converges());
  EXPECT_GE(live_->status()[1].status.failures, 1u);
  std::string errors;
  for (const auto& r : live_->status()) errors += r.status.last_error + "\n";
  EXPECT_NE(errors.find("watch ended: no data for "), std::string::npos) << errors;
  EXPECT_NE(errors.find(" s (idle timeout), connection abandoned"), std::string::npos) << errors;
}

// No API server at the address: the error names it and the cause, not "Connection".
TEST(WatchErrors, NoServerIsNamed) {
  kube::ApiConfig cfg;
  kube::set_server_url(cfg, "https://127.0.0.1:1");
  cfg.insecure_skip_tls_verify = true;
  kube::ApiClient api(cfg);
  StateStore store;
  kube::LiveState live(api, store, fast_live_options());
  live.start();
  std::string error;
  EXPECT_TRUE(wait_until(
      [&] {
        error = live.status()[0].status.last_error;
        return !error.empty();
      },
      kPatience));
  EXPECT_NE(error.find(": cannot connect to https://127.0.0.1:1: connection refused"), std::string::npos)
      << error;
}

TEST_F(Watch, GoneAsErrorEventRelistsAndReplaces) {
  seed();
  start();
  ASSERT_TRUE(converges());
  ASSERT_TRUE(watching());
  const int lists = api_.lists_served();
  api_.drop_streams_mid_event();
  api_.put("pods", pod_json("default", "trigger", "n0"));  // cut, so the client reconnects…
  api_.compact();                                          // …with a resourceVersion that is gone
  api_.remove("pods", "default/p0");
  api_.put("pods", pod_json("default", "after", "n4", "700m"));
  ASSERT_TRUE(converges());
  EXPECT_GT(api_.lists_served(), lists);
  EXPECT_GE(live_->status()[1].status.gone, 1u);
}

// What a compaction does to watchers left behind: each open stream gets a 410 ERROR event and ends, so
// every kind relists and replaces what it held.
TEST_F(Watch, GoneOnEveryOpenStreamRelistsEveryKind) {
  seed();
  // The 410 reaches only the streams open at the compaction. With fast_live_options' short idle timeout, a
  // silent stream (nothing happens to PDBs here) could be abandoned just before it and reopen from a
  // resourceVersion the compaction keeps: no 410 for that kind (seen once under TSan).
  auto opts = fast_live_options();
  opts.reflector.idle_timeout = kPatience;
  start(opts);
  ASSERT_TRUE(converges());
  ASSERT_TRUE(watching());
  const int lists = api_.lists_served();
  api_.compact();
  api_.expire_streams();
  api_.remove("pods", "default/p4");
  ASSERT_TRUE(api_.update("pods", "default/p5", [](const std::string&) {
    return std::optional<std::string>(pod_json("default", "p5", "n0", "900m"));
  }));
  api_.put("poddisruptionbudgets", pdb_json("default", "db", "db", 2));
  ASSERT_TRUE(converges());
  EXPECT_GE(api_.lists_served(), lists + 3);
  for (const auto& r : live_->status()) EXPECT_GE(r.status.gone, 1u) << r.resource;
  EXPECT_EQ(requested_cpu(store_, "n0"), 250 + 900);  // p0 and the moved p5
}

TEST_F(Watch, GoneAsHttpStatusRelists) {
  seed();
  api_.set_gone_as_http_status(true);
  start();
  ASSERT_TRUE(converges());
  ASSERT_TRUE(watching());
  api_.expire_next_watch();
  api_.drop_streams_mid_event();
  api_.put("nodes", node_json("n7"));
  ASSERT_TRUE(converges());
  uint64_t gone = 0;
  for (const auto& r : live_->status()) gone += r.status.gone;
  EXPECT_GE(gone, 1u);
}

TEST_F(Watch, RestartWithNewHistoryReplacesEverything) {
  seed();
  start();
  ASSERT_TRUE(converges());
  ASSERT_TRUE(watching());
  api_.restart();
  // Changes made while the client reconnects: it must relist (its resourceVersion is from the old history).
  api_.remove("pods", "default/p3");
  api_.remove("nodes", "n3");
  api_.put("pods", pod_json("kube-system", "dns", "n1", "150m"));
  api_.remove("poddisruptionbudgets", "default/web");
  ASSERT_TRUE(converges());
  EXPECT_TRUE(store_.current()->pdbs->empty());
}

// A relist allocates as much as the first sync (the list's text and DOM): the memory goes back after
// each one, not only the first (bench/soak saw RSS rise with every relist until it was).
TEST_F(Watch, MemoryIsReleasedAfterTheFirstListsAndAfterEveryRelist) {
  seed();
  auto opts = fast_live_options();
  // Shared with the housekeeping thread, which the fixture stops only after this body has returned
  // (a counter on this stack was written after its frame was gone: ASan, stack-use-after-return).
  auto releases = std::make_shared<std::atomic<int>>(0);
  opts.release_memory = [releases] { ++*releases; };
  auto rounds = std::make_shared<std::atomic<int>>(0);  // housekeeping rounds, counted by their lag report
  opts.report_lag = [rounds](const std::string& resource, double) { *rounds += resource == "nodes"; };
  start(opts);
  ASSERT_TRUE(converges());
  ASSERT_TRUE(wait_until([&] { return *releases >= 1; }));
  const int released_at = *rounds;
  ASSERT_TRUE(wait_until([&] { return *rounds >= released_at + 3; }));  // nothing new to release since
  EXPECT_EQ(*releases, 1);
  watching();
  api_.restart();
  api_.put("pods", pod_json("default", "after-restart", "n1"));
  ASSERT_TRUE(converges());
  EXPECT_TRUE(wait_until([&] { return *releases >= 2; }));
}

TEST_F(Watch, ServerErrorsBackOffAndRecover) {
  seed();
  api_.fail_requests(5, 500);
  auto opts = fast_live_options();
  opts.reflector.idle_timeout = kPatience;  // no silent stream ends with an error of its own
  start(opts);
  ASSERT_TRUE(converges());
  uint64_t failures = 0;
  std::string errors;
  for (const auto& r : live_->status()) {
    failures += r.status.failures;
    errors += r.status.last_error + "\n";
  }
  // Five failed requests; three of them may be the probes at start of the optional resources (the two
  // APIs' podgroups, deviceclasses), which the reflectors do not count (a probe's 500 still starts the
  // reflector: only a 404 or 403 leaves it out).
  EXPECT_GE(failures, 2u);
  EXPECT_NE(errors.find("HTTP 500"), std::string::npos) << errors;
  int podgroups = 0;
  for (const auto& r : live_->status())
    podgroups += r.resource == "podgroups" || r.resource == "podgroups.scheduling.k8s.io";
  EXPECT_EQ(podgroups, 2) << "a 500 is not a missing API";
}

TEST_F(Watch, BookmarksAdvanceTheResourceVersion) {
  seed();
  start();
  ASSERT_TRUE(converges());
  ASSERT_TRUE(watching());
  api_.put("nodes", node_json("n8"));  // moves the global resourceVersion; the pod watch sees nothing
  ASSERT_TRUE(converges());
  const std::string before = live_->status()[1].status.resource_version;
  // bookmark() reaches the streams open at the time; a pod stream reconnecting just then (the last one
  // went silent past the idle timeout) misses it, so repeat. The reflector adds a stream's counts to
  // its status when the stream ends, here once it has been silent for the idle timeout after the
  // bookmark, so each try waits well beyond that.
  const auto idle = fast_live_options().reflector.idle_timeout;
  ASSERT_TRUE(wait_until([&] {
    api_.bookmark();
    return wait_until([&] { return live_->status()[1].status.bookmarks >= 1; }, 10 * idle);
  }));
  EXPECT_EQ(live_->status()[1].status.resource_version, std::to_string(api_.resource_version()));
  EXPECT_NE(live_->status()[1].status.resource_version, before);
}

TEST_F(Watch, SlowListsStillSync) {
  seed();
  api_.set_list_delay(100ms);
  start();
  ASSERT_TRUE(converges());
}

TEST_F(Watch, ManyEventsInBurstsConverge) {
  seed();
  start();
  ASSERT_TRUE(converges());
  for (int i = 0; i < 300; ++i) {
    api_.put("pods", pod_json("burst", "b" + std::to_string(i), "n" + std::to_string(i % 5), "10m"));
    if (i % 3 == 0) api_.remove("pods", "burst/b" + std::to_string(i / 2));
  }
  ASSERT_TRUE(converges());
}

// Filter answers follow pods as they are created and deleted.
TEST_F(Watch, FilterReflectsPodsAsTheyComeAndGo) {
  api_.put("nodes", node_json("small", "1", "4Gi"));
  TestServer server(std::make_shared<ClusterState>());
  api_client_ = client_for(api_, /*inline_data=*/true);
  live_ = std::make_unique<kube::LiveState>(*api_client_, server.store(), fast_live_options());
  live_->start();
  ASSERT_TRUE(wait_until([&] { return server.store().ready(); }, kPatience));
  const std::string request =
      R"({"Pod":{"metadata":{"name":"q","namespace":"default","uid":"q"},"spec":{"containers":[
      {"name":"c","resources":{"requests":{"cpu":"600m"}}}]}},"NodeNames":["small"]})";
  auto fits = [&] {
    auto r = server.post("/filter", request);
    auto d = parse(r->body);
    return d["NodeNames"].IsArray() && d["NodeNames"].Size() == 1;
  };
  auto eventually = [&](bool want) { return wait_until([&] { return fits() == want; }, kPatience); };
  EXPECT_TRUE(eventually(true));
  api_.put("pods", pod_json("default", "hog", "small", "600m"));
  EXPECT_TRUE(eventually(false));
  auto r = server.post("/filter", request);
  EXPECT_NE(r->body.find("Insufficient cpu"), std::string::npos) << r->body;
  api_.remove("pods", "default/hog");
  EXPECT_TRUE(eventually(true));
}

}  // namespace
}  // namespace live_state_test
}  // namespace kext::testing
