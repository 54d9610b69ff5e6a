// /bind of pods that ask for GPUs against the in-repo API server: the node lock and the annotations HAMi's
// device plugin reads, and each of HAMi's allocation failures shown not to happen here.
#include "extender/gpu/gpu_binder.h"

#include <gtest/gtest.h>

#include <thread>

#include "algorithms/gpu/device_fit.h"
#include "extender/verbs/bind.h"
#include "kube/codec/gpu_decode.h"
#include "tests/support/hami_objects.h"
#include "tests/support/live_cluster.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace gpu_binder_test {
namespace {

using namespace std::chrono_literals;

std::string gpu_node(const std::string& name, int cards, int slots = 10, const std::string& lock = "") {
  return hami_node_json(name, cards, slots, 16000, lock);
}

// A pending pod of namespace ml asking for `cards` cards of `memory` MiB in its container (or its init
// container).
std::string gpu_pod(const std::string& name, int cards, int memory, bool in_init = false) {
  return hami_pod_json("ml", name, cards, memory, 0, in_init);
}

std::string bind_body(const std::string& name, const std::string& node) {
  return R"({"PodName":")" + name + R"(","PodNamespace":"ml","PodUID":"uid-ml-)" + name + R"(","Node":")" +
         node + "\"}";
}

std::string error_of(const Reply& r) {
  auto d = parse(r.body);
  return d.IsObject() && d.HasMember("Error") && d["Error"].IsString() ? d["Error"].GetString()
                                                                       : "<no Error>";
}

std::string annotation_of(const std::optional<std::string>& object, const std::string& key) {
  if (!object) return "<absent>";
  auto d = parse(*object);
  const auto& md = d["metadata"];
  if (!md.HasMember("annotations") || !md["annotations"].HasMember(key.c_str())) return "";
  return md["annotations"][key.c_str()].GetString();
}

class GpuBind : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.put("nodes", gpu_node("n1", 2));
    api_.put("nodes", gpu_node("solo", 1, 1));
    api_.put(
        "nodes",
        R"({"metadata":{"name":"cpu-only"},"status":{"allocatable":{"cpu":"8","memory":"8Gi","pods":"110"}}})");
    client_ = client_for(api_);
    live_ = std::make_unique<kube::LiveState>(*client_, server_.store(), fast_live_options());
    live_->start();
    ASSERT_TRUE(wait_until([&] { return server_.store().ready(); }));
  }

  void add_pod(const std::string& json, const std::string& uid) {
    api_.put("pods", json);
    ASSERT_TRUE(wait_until([&] { return live_->cache().view()->find_pod(uid) != nullptr; }));
  }

  // The memory the cache counts on each card of `node`, in annotation order.
  std::vector<int32_t> memory_on(const std::string& node) {
    std::vector<int32_t> out;
    const auto view = live_->cache().view();
    const NodeInfo* n = view->find_node(node);
    for (const auto& u : gpu::node_usage(*n->node->gpus, n->pods)) out.push_back(u.used_memory);
    return out;
  }

  void device_plugin_allocates(const std::string& pod, const std::string& node) {
    hami_device_plugin_allocates(api_, "ml", pod, node);
  }

  BindVerb verb(const GpuBinder& gpus) {
    return BindVerb(*client_, live_->cache(), 30s, nullptr, nullptr, nullptr, &gpus);
  }

  GpuBinder binder() {
    GpuBindOptions o;
    o.lock_wait = 0ms;
    return GpuBinder(*client_, live_->cache(), o, &metrics_, [this] { return now_; });
  }

  // The failures each prepare counted, by cause.
  uint64_t failed(GpuBindFailure cause) const { return metrics_.gpu_bind_failures(cause); }

  FakeApiServer api_;
  Metrics metrics_{"test"};
  TestServer server_{std::make_shared<ClusterState>()};
  std::unique_ptr<kube::ApiClient> client_;
  std::unique_ptr<kube::LiveState> live_;
  std::chrono::system_clock::time_point now_ = std::chrono::system_clock::from_time_t(1'800'000'000);
};

TEST_F(GpuBind, WritesWhatHAMisDevicePluginReadsAndCountsTheCardsAtOnce) {
  add_pod(gpu_pod("p1", 1, 4000), "uid-ml-p1");
  const GpuBinder gpus = binder();
  ASSERT_EQ(error_of(verb(gpus).bind(bind_body("p1", "n1"))), "");
  const auto pod = api_.object("pods", "ml/p1");
  const std::string cards = annotation_of(pod, "hami.io/vgpu-devices-to-allocate");
  // spread, idle cards: the last one (HAMi's Fit walks from the end).
  EXPECT_EQ(cards, "GPU-n1-1,NVIDIA,4000,0:;");
  EXPECT_EQ(annotation_of(pod, "hami.io/vgpu-devices-allocated"), cards);
  EXPECT_EQ(annotation_of(pod, "hami.io/vgpu-node"), "n1");
  EXPECT_EQ(annotation_of(pod, "hami.io/bind-phase"), "allocating");
  EXPECT_EQ(annotation_of(pod, "hami.io/bind-time"), "1800000000");
  EXPECT_EQ(annotation_of(api_.object("nodes", "n1"), "hami.io/mutex.lock"), "2027-01-15T08:00:00Z,ml,p1");
  ASSERT_EQ(api_.bindings().size(), 1u);
  EXPECT_EQ(memory_on("n1"), (std::vector<int32_t>{0, 4000})) << "reserved before the watch shows it";
  ASSERT_TRUE(
      wait_until([&] { return live_->cache().view()->find_pod("uid-ml-p1")->pod->node_name == "n1"; }));
  EXPECT_TRUE(wait_until([&] {
    return memory_on("n1") == std::vector<int32_t>{0, 4000};
  })) << "and once only after";
}

// HAMi #3096: an expired lock was handed to the next pod while the first pod's Allocate was pending, and
// the two ran with each other's limits. Here the lock of a bound pod still allocating is never taken over.
TEST_F(GpuBind, ALockWaitingForAllocateIsNeverTakenOverHoweverOld) {
  add_pod(gpu_pod("p1", 1, 4000), "uid-ml-p1");
  add_pod(gpu_pod("p2", 1, 4000), "uid-ml-p2");
  const GpuBinder gpus = binder();
  ASSERT_EQ(error_of(verb(gpus).bind(bind_body("p1", "n1"))), "");
  ASSERT_TRUE(
      wait_until([&] { return live_->cache().view()->find_pod("uid-ml-p1")->pod->node_name == "n1"; }));
  now_ += 1h;  // far past HAMi's 5 minutes
  const std::string refused = error_of(verb(gpus).bind(bind_body("p2", "n1")));
  EXPECT_NE(refused.find(
                "locked for GPU allocation by pod ml/p1, whose cards the device plugin has not set up yet"),
            std::string::npos)
      << refused;
  EXPECT_EQ(annotation_of(api_.object("pods", "ml/p2"), "hami.io/vgpu-devices-to-allocate"), "");
  EXPECT_EQ(memory_on("n1"), (std::vector<int32_t>{0, 4000})) << "nothing counted for p2";
  EXPECT_EQ(failed(GpuBindFailure::kLockHeld), 1u);

  device_plugin_allocates("p1", "n1");
  ASSERT_EQ(error_of(verb(gpus).bind(bind_body("p2", "n1"))), "");
  EXPECT_EQ(annotation_of(api_.object("pods", "ml/p2"), "hami.io/vgpu-devices-to-allocate"),
            "GPU-n1-0,NVIDIA,4000,0:;");
  EXPECT_EQ(annotation_of(api_.object("nodes", "n1"), "hami.io/mutex.lock"), "2027-01-15T09:00:00Z,ml,p2");
}

// HAMi's device plugin serves one allocation per node at a time: a bind to a node whose lock is held waits
// a moment for Allocate to finish rather than fail and go through the scheduler's backoff. Its cards
// count from before the wait, so that the filter sends no more pods to a node whose cards are promised.
TEST_F(GpuBind, ABindWaitsBrieflyForTheDevicePluginToFinishWithItsCardsCounted) {
  add_pod(gpu_pod("p1", 1, 4000), "uid-ml-p1");
  add_pod(gpu_pod("p2", 1, 4000), "uid-ml-p2");
  GpuBindOptions o;
  o.lock_wait = 30s;
  const GpuBinder gpus(*client_, live_->cache(), o, &metrics_, [this] { return now_; });
  ASSERT_EQ(error_of(verb(gpus).bind(bind_body("p1", "n1"))), "");
  ASSERT_TRUE(
      wait_until([&] { return live_->cache().view()->find_pod("uid-ml-p1")->pod->node_name == "n1"; }));
  auto node_reads = [&] {
    int n = 0;
    for (const auto& [method, path] : api_.requests()) n += method == "GET" && path == "/api/v1/nodes/n1";
    return n;
  };
  const int before = node_reads();
  // The device plugin finishes once the bind has read the held lock twice.
  std::vector<int32_t> while_waiting;
  std::thread device_plugin([&] {
    if (!wait_until([&] { return node_reads() >= before + 2; }, 20s)) return;
    while_waiting = memory_on("n1");
    device_plugin_allocates("p1", "n1");
  });
  EXPECT_EQ(error_of(verb(gpus).bind(bind_body("p2", "n1"))), "");
  device_plugin.join();
  EXPECT_EQ(while_waiting, (std::vector<int32_t>{4000, 4000})) << "p2's card counted during the wait";
  EXPECT_EQ(annotation_of(api_.object("nodes", "n1"), "hami.io/mutex.lock"), "2027-01-15T08:00:00Z,ml,p2");
}

TEST_F(GpuBind, ALockWhoseOwnerIsGoneElsewhereOrNeverBoundAndExpiredIsTakenOver) {
  api_.put("nodes", gpu_node("n2", 2, 10, "2027-01-15T08:00:00Z,ml,deleted"));
  add_pod(gpu_pod("p1", 1, 1000), "uid-ml-p1");
  ASSERT_TRUE(wait_until([&] {
    const NodeInfo* n = live_->cache().view()->find_node("n2");
    return n && n->node->gpus;
  }));
  const GpuBinder gpus = binder();
  ASSERT_EQ(error_of(verb(gpus).bind(bind_body("p1", "n2"))), "");
  EXPECT_EQ(annotation_of(api_.object("nodes", "n2"), "hami.io/mutex.lock"), "2027-01-15T08:00:00Z,ml,p1");

  // A lock of a pod that was annotated but never bound: taken over once expired, not before.
  add_pod(gpu_pod("stuck", 1, 1000), "uid-ml-stuck");
  api_.update("pods", "ml/stuck", [](const std::string& s) -> std::optional<std::string> {
    const std::string uid = R"("uid":"uid-ml-stuck")";
    std::string out = s;
    out.replace(out.find(uid), uid.size(),
                uid + R"(,"annotations":{"hami.io/bind-phase":"allocating","hami.io/vgpu-node":"n3"})");
    return out;
  });
  api_.put("nodes", gpu_node("n3", 2, 10, "2027-01-15T08:00:00Z,ml,stuck"));
  add_pod(gpu_pod("p2", 1, 1000), "uid-ml-p2");
  ASSERT_TRUE(wait_until([&] { return live_->cache().view()->find_node("n3") != nullptr; }));
  EXPECT_NE(
      error_of(verb(gpus).bind(bind_body("p2", "n3"))).find("locked for GPU allocation by pod ml/stuck"),
      std::string::npos);
  // Its lock on a node its cards are not for (a bind retried elsewhere, a replica killed between the
  // lock and the Binding) has nobody waiting behind it: taken over at once.
  api_.put("nodes", gpu_node("n4", 2, 10, "2027-01-15T08:00:00Z,ml,stuck"));
  add_pod(gpu_pod("p3", 1, 1000), "uid-ml-p3");
  ASSERT_TRUE(wait_until([&] { return live_->cache().view()->find_node("n4") != nullptr; }));
  EXPECT_EQ(error_of(verb(gpus).bind(bind_body("p3", "n4"))), "");
  now_ += 301s;
  EXPECT_EQ(error_of(verb(gpus).bind(bind_body("p2", "n3"))), "");
}

// HAMi #2305: the node lock leaked when a patch failed. Every failure after the lock gives it back, and
// leaves nothing counted.
TEST_F(GpuBind, EveryFailureAfterTheLockGivesItBackAndCountsNothing) {
  add_pod(gpu_pod("p1", 1, 4000), "uid-ml-p1");
  const GpuBinder gpus = binder();
  api_.fail_patches(500, "pods");
  const std::string patch_failed = error_of(verb(gpus).bind(bind_body("p1", "n1")));
  EXPECT_NE(patch_failed.find("writing the pod's GPU annotations: HTTP 500"), std::string::npos)
      << patch_failed;
  EXPECT_EQ(annotation_of(api_.object("nodes", "n1"), "hami.io/mutex.lock"), "");
  EXPECT_EQ(memory_on("n1"), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(failed(GpuBindFailure::kApi), 1u);
  api_.fail_patches(0);

  api_.fail_binds(500, "etcdserver: request timed out");
  EXPECT_NE(error_of(verb(gpus).bind(bind_body("p1", "n1"))).find("etcdserver"), std::string::npos);
  EXPECT_EQ(annotation_of(api_.object("nodes", "n1"), "hami.io/mutex.lock"), "");
  EXPECT_EQ(memory_on("n1"), (std::vector<int32_t>{0, 0}));
  api_.fail_binds(0, "");

  add_pod(gpu_pod("huge", 1, 20000), "uid-ml-huge");
  EXPECT_NE(
      error_of(verb(gpus).bind(bind_body("huge", "n1")))
          .find("no GPU for it on node n1: node(s) had no GPU with 20000 MiB free: best card 16000 MiB"),
      std::string::npos);
  EXPECT_EQ(annotation_of(api_.object("nodes", "n1"), "hami.io/mutex.lock"), "");
  // The Binding's own failure is the API client's to count (kube_extender_api_errors_total): it came
  // after everything the binder prepared.
  EXPECT_EQ(failed(GpuBindFailure::kApi), 1u);
  EXPECT_EQ(failed(GpuBindFailure::kNoCard), 1u);

  ASSERT_EQ(error_of(verb(gpus).bind(bind_body("p1", "n1"))), "") << "all given back: the bind goes through";
}

// HAMi #2640: a GPU asked only by an init container skipped the node lock.
TEST_F(GpuBind, AnInitContainersGpuTakesTheLockToo) {
  add_pod(gpu_pod("init", 1, 2000, true), "uid-ml-init");
  const GpuBinder gpus = binder();
  ASSERT_EQ(error_of(verb(gpus).bind(bind_body("init", "n1"))), "");
  EXPECT_EQ(annotation_of(api_.object("nodes", "n1"), "hami.io/mutex.lock"), "2027-01-15T08:00:00Z,ml,init");
  EXPECT_EQ(annotation_of(api_.object("pods", "ml/init"), "hami.io/vgpu-devices-to-allocate"),
            "GPU-n1-1,NVIDIA,2000,0:;;");
}

// HAMi #2923, #1458: a deleted pod's cards stayed allocated. Here they are free at the next event.
TEST_F(GpuBind, ADeletedPodsCardIsFreeAtTheNextEvent) {
  add_pod(gpu_pod("a", 1, 1000), "uid-ml-a");
  add_pod(gpu_pod("b", 1, 1000), "uid-ml-b");
  const GpuBinder gpus = binder();
  ASSERT_EQ(error_of(verb(gpus).bind(bind_body("a", "solo"))), "");
  device_plugin_allocates("a", "solo");
  ASSERT_TRUE(
      wait_until([&] { return live_->cache().view()->find_pod("uid-ml-a")->pod->node_name == "solo"; }));
  EXPECT_NE(error_of(verb(gpus).bind(bind_body("b", "solo"))).find("no GPU with a free slot"),
            std::string::npos);
  api_.remove("pods", "ml/a");
  ASSERT_TRUE(wait_until([&] { return live_->cache().view()->find_pod("uid-ml-a") == nullptr; }));
  EXPECT_EQ(error_of(verb(gpus).bind(bind_body("b", "solo"))), "");
}

// A bound pod whose hami.io/vgpu-devices-allocated does not decode: HAMi leaves it out and counts its
// cards free. Here its node takes no GPU pod while it is there, the bind says why, and /metrics counts it.
TEST_F(GpuBind, APodWhoseCardsDoNotDecodeClosesItsNodeAndIsCounted) {
  api_.put("pods", R"({"metadata":{"name":"broken","namespace":"ml","uid":"uid-ml-broken","annotations":{
      "hami.io/vgpu-devices-allocated":"GPU-n1-0,NVIDIA,4000:;"}},"spec":{"nodeName":"n1","containers":[
      {"name":"c","resources":{"requests":{"cpu":"100m","nvidia.com/gpu":"1"}}}]},"status":{"phase":"Running"}})");
  ASSERT_TRUE(wait_until([&] { return live_->cache().view()->find_pod("uid-ml-broken") != nullptr; }));
  add_pod(gpu_pod("p1", 1, 1000), "uid-ml-p1");
  const GpuBinder gpus = binder();
  EXPECT_EQ(gpus.undecoded_allocations(), 1u);
  metrics_.set_gpu_allocations_undecoded([&] { return gpus.undecoded_allocations(); });
  EXPECT_NE(metrics_.render(nullptr).find("\nkube_extender_gpu_allocations_undecoded 1\n"),
            std::string::npos);

  const std::string refused = error_of(verb(gpus).bind(bind_body("p1", "n1")));
  EXPECT_NE(refused.find(
                "had a pod whose GPU allocation did not decode: ml/broken: hami.io/vgpu-devices-allocated"),
            std::string::npos)
      << refused;
  EXPECT_EQ(failed(GpuBindFailure::kNoCard), 1u);
  EXPECT_EQ(annotation_of(api_.object("nodes", "n1"), "hami.io/mutex.lock"), "") << "the lock given back";

  api_.remove("pods", "ml/broken");
  ASSERT_TRUE(wait_until([&] { return live_->cache().view()->find_pod("uid-ml-broken") == nullptr; }));
  EXPECT_EQ(gpus.undecoded_allocations(), 0u);
  EXPECT_EQ(error_of(verb(gpus).bind(bind_body("p1", "n1"))), "");
}

TEST_F(GpuBind, APodWithoutGpusBindsAsBefore) {
  api_.put("pods", R"({"metadata":{"name":"web","namespace":"ml","uid":"uid-ml-web"},"spec":{"containers":[
      {"name":"c","resources":{"requests":{"cpu":"100m"}}}]},"status":{"phase":"Pending"}})");
  ASSERT_TRUE(wait_until([&] { return live_->cache().view()->find_pod("uid-ml-web") != nullptr; }));
  const GpuBinder gpus = binder();
  ASSERT_EQ(error_of(verb(gpus).bind(bind_body("web", "cpu-only"))), "");
  EXPECT_EQ(annotation_of(api_.object("nodes", "cpu-only"), "hami.io/mutex.lock"), "");
  EXPECT_EQ(annotation_of(api_.object("pods", "ml/web"), "hami.io/vgpu-node"), "");
}

}  // namespace
}  // namespace gpu_binder_test
}  // namespace kext::testing
