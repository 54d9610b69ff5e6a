// HAMi runs one scheduler replica (HAMi #877), and its scheduling stopped after a failover (#1954).
// Here a burst of 300 pods sharing the cards of 20 nodes of 8 goes through two replicas behind a
// balancer that keeps each connection on one replica, driven by a client shaped as kube-scheduler
// (tests/support/scheduler_client.h), with HAMi's device plugin played by a thread that finishes each
// allocation it finds. The Lease holder is SIGKILLed once midway. Every pod is bound exactly once, and no
// card ends with more memory, cores or pods allocated than it has.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <map>
#include <thread>

#include "kube/codec/gpu_decode.h"
#include "tests/support/hami_objects.h"
#include "tests/support/replica_cluster.h"

namespace kext::testing {
namespace gpu_failover_test {
namespace {

using namespace std::chrono_literals;

constexpr int kNodes = 20;
constexpr int kCards = 8;
constexpr int kPods = 300;
constexpr int kCardMemory = 16000;  // MiB
constexpr int kCardSlots = 10;

// The overlay's GPUShare profile (manifests/overlays/gpu-sharing), as a policy file.
std::string gpu_policy_file() {
  return write_temp("gpu-failover-policy", R"(apiVersion: kube-extender.io/v1alpha1
kind: ExtenderConfiguration
plugins:
  filter:
    disabled: [{name: "*"}]
    enabled: [{name: NodeResourcesFit}, {name: GPUShare}]
  score:
    disabled: [{name: "*"}]
    enabled: [{name: GPUShare, weight: 5}]
pluginConfig:
- name: NodeResourcesFit
  args:
    ignoredResources: [nvidia.com/gpumem, nvidia.com/gpumem-percentage, nvidia.com/gpucores]
- name: GPUShare
  args: {nodeSchedulerPolicy: binpack, gpuSchedulerPolicy: spread}
)");
}

// Pod i: one card, or two for every fifth; 2000 to 6000 MiB and 10 to 30 cores a card. All of them take
// about half of the cluster's memory, so that binpack fills some nodes and the last pods still fit.
std::string gpu_pod(int i) {
  return hami_pod_json("default", ReplicaCluster::pod_name(i), i % 5 == 0 ? 2 : 1, 2000 + (i * 37 % 5) * 1000,
                       10 + (i % 3) * 10);
}

ReplicaClusterShape gpu_shape(const std::string& policy) {
  ReplicaClusterShape s;
  s.nodes = kNodes;
  s.pods = kPods;
  s.node_milli = 32000;  // hami_node_json's 32 CPUs; each pod asks 100m
  s.pod_milli = 100;
  s.node_object = [](int i) {
    return hami_node_json(ReplicaCluster::node_name(i), kCards, kCardSlots, kCardMemory);
  };
  s.pod_object = gpu_pod;
  s.extender_args = {"--config", policy};
  return s;
}

// HAMi's device plugin: each pod bound and still allocating gets bind-phase success, and its node's lock
// goes, as Allocate does once the cards are set up.
class DevicePlugin {
 public:
  explicit DevicePlugin(FakeApiServer& api) : api_(api), thread_([this] { run(); }) {}
  ~DevicePlugin() {
    stop_ = true;
    thread_.join();
  }

 private:
  void run() {
    while (!stop_) {
      for (const auto& [key, object] : api_.objects("pods")) {
        if (object.find(R"("hami.io/bind-phase":"allocating")") == std::string::npos) continue;
        auto d = parse(object);
        if (!d["spec"].HasMember("nodeName")) continue;
        hami_device_plugin_allocates(api_, "default", d["metadata"]["name"].GetString(),
                                     d["spec"]["nodeName"].GetString());
      }
      std::this_thread::sleep_for(20ms);
    }
  }

  FakeApiServer& api_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

struct CardUse {
  int64_t memory = 0, cores = 0, pods = 0;
};

// Every bound pod's cards, from its hami.io/vgpu-devices-allocated, by card UUID.
std::map<std::string, CardUse> card_use(const FakeApiServer& api) {
  std::map<std::string, CardUse> out;
  for (const auto& [key, object] : api.objects("pods")) {
    auto d = parse(object);
    if (!d["spec"].HasMember("nodeName")) continue;
    const auto& annotations = d["metadata"]["annotations"];
    const gpu::PodAllocation allocation =
        parse_gpu_allocation(annotations["hami.io/vgpu-devices-allocated"].GetString());
    for (const auto& container : allocation) {
      for (const auto& card : container) {
        CardUse& u = out[card.uuid];
        u.memory += card.memory;
        u.cores += card.cores;
        ++u.pods;
      }
    }
  }
  return out;
}

TEST(GpuFailover, ABurstOnTwoReplicasWithTheHolderKilledNeverOverCommitsACard) {
  ReplicaCluster cluster(KEXT_BINARY, gpu_shape(gpu_policy_file()));
  for (const char* id : {"r0", "r1"}) ASSERT_GT(cluster.start(id).port(), 0) << cluster.replicas[id]->log();
  cluster.publish();
  ASSERT_TRUE(cluster.wait_ready(2));
  DevicePlugin device_plugin(cluster.api);

  SchedulerClientConfig config = cluster.client();
  config.deadline = 60s;
  SchedulerClient scheduler(config);
  SchedulerClient::Result result;
  std::thread run([&] { result = scheduler.run(); });

  // The holder killed once a third of the pods are bound (if they never are, the run ends at its deadline
  // and the checks below say what was bound).
  const bool midway = wait_until([&] { return scheduler.bound() >= kPods / 3; }, 40s);
  EXPECT_TRUE(midway);
  const std::string holder = cluster.api.lease_holder(kLeaseKey);
  const int bound_at_kill = scheduler.bound();
  if (midway && cluster.replicas.count(holder)) {
    kill(cluster.replicas[holder]->pid(), SIGKILL);
    cluster.replicas[holder]->wait_exit(5s);
  }
  run.join();
  if (result.bound < kPods) {
    for (auto& [id, p] : cluster.replicas) std::printf("--- %s\n%s", id.c_str(), p->log().c_str());
  }
  std::printf(
      "gpu failover: %d of %d pods bound in %lld ms, holder %s SIGKILLed after %d; %d bind errors (first: "
      "%s)\n",
      result.bound, kPods,
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(result.elapsed).count()),
      holder.c_str(), bound_at_kill, result.bind_errors, result.first_bind_error.c_str());

  // Every pod bound once, in the API server's own record.
  std::map<std::string, int> times;
  for (const auto& b : cluster.api.bindings()) ++times[b.name];
  EXPECT_EQ(static_cast<int>(times.size()), kPods);
  for (const auto& [name, n] : times) EXPECT_EQ(n, 1) << name;
  // No card over what it has, and every bound pod's cards annotated.
  const auto use = card_use(cluster.api);
  int64_t cards_in_use = 0;
  for (const auto& [uuid, u] : use) {
    EXPECT_LE(u.memory, kCardMemory) << uuid;
    EXPECT_LE(u.cores, 100) << uuid;
    EXPECT_LE(u.pods, kCardSlots) << uuid;
    cards_in_use += u.pods;
  }
  EXPECT_EQ(cards_in_use, kPods + kPods / 5) << "a card for each pod, two for every fifth";
}

}  // namespace
}  // namespace gpu_failover_test
}  // namespace kext::testing
