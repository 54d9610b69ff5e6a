// HAMi's device fit (pkg/device/nvidia/device.go Fit, pkg/scheduler/score.go fitInDevices, policy/
// gpu_policy.go): which cards a pod gets on a node, in HAMi's order, and why a node has none.
#include "algorithms/gpu/device_fit.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/gpu/gpu_share.h"
#include "algorithms/preemption/select_victims.h"
#include "tests/support/test_builders.h"

namespace kext::gpu {
namespace device_fit_test {
namespace {

using testing::make_container;
using testing::make_node;
using testing::make_pod_with;
using testing::node_info;

// Four V100s of 16000 MiB and 10 slots: GPU-0 and GPU-1 on NUMA node 0, GPU-2 and GPU-3 on node 1. NVLink
// pairs GPU-0/GPU-1 (100) and GPU-2/GPU-3 (50), 10 between the others.
NodeDevices four_cards() {
  NodeDevices n;
  for (uint32_t i = 0; i < 4; ++i) {
    Device d{"GPU-" + std::to_string(i), i,    10,          16000, 100, "NVIDIA-Tesla V100",
             static_cast<int>(i / 2),    true, "hami-core", {}};
    for (uint32_t j = 0; j < 4; ++j) {
      if (j == i) continue;
      const bool pair = i / 2 == j / 2;
      d.pair_scores.emplace_back("GPU-" + std::to_string(j), pair ? (i < 2 ? 100 : 50) : 10);
    }
    n.devices.push_back(d);
  }
  return n;
}

Container gpu_container(int64_t cards, std::optional<int64_t> memory = std::nullopt,
                        std::optional<int64_t> cores = std::nullopt,
                        std::optional<int64_t> percent = std::nullopt) {
  Container c = make_container(100, 0);
  c.requests.set_scalar("nvidia.com/gpu", cards);
  if (memory) c.requests.set_scalar("nvidia.com/gpumem", *memory);
  if (cores) c.requests.set_scalar("nvidia.com/gpucores", *cores);
  if (percent) c.requests.set_scalar("nvidia.com/gpumem-percentage", *percent);
  return c;
}

// A pod holding `memory` MiB and `cores` of one card, as hami.io/vgpu-devices-allocated gives it.
Pod holder(const std::string& name, const std::string& uuid, int32_t memory, int32_t cores) {
  Pod p = make_pod_with(name, {make_container(100, 0)});
  p.gpu_shares = std::make_shared<const PodShares>(PodShares{{DeviceShare{uuid, 1, memory, cores}}, ""});
  return p;
}

// Every card holding 2000 MiB.
std::vector<Pod> all_busy_memory() {
  std::vector<Pod> out;
  for (int i = 0; i < 4; ++i)
    out.push_back(holder("m" + std::to_string(i), "GPU-" + std::to_string(i), 2000, 0));
  return out;
}

struct Case {
  std::string name;
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  PodPreferences preferences;
  std::vector<Pod> on_node;
  NodeDevices devices = four_cards();
  PodAllocation want;       // empty: does not fit
  std::string want_reason;  // when it does not fit
  bool want_unresolvable = false;
};

std::vector<Case> cases() {
  PodPreferences binpack, topology, mutex, numa, a100, only2, not3, bad;
  binpack.gpu_policy = "binpack";
  topology.gpu_policy = "topology-aware";
  mutex.gpu_policy = "mutex";
  numa.numa_bind = true;
  a100.use_types = "a100";
  only2.use_uuids = "GPU-2";
  not3.nouse_uuids = " GPU-3 ";
  bad.error = "pod annotation hami.io/device-scoring-weights \"slot=x\": bad";
  NodeDevices one_slot = four_cards();
  for (auto& d : one_slot.devices) d.count = 1;
  NodeDevices three_sick = four_cards();
  for (int i = 1; i < 4; ++i) three_sick.devices[i].health = false;
  NodeDevices cordoned = four_cards();
  cordoned.cordoned = {"GPU-3"};
  NodeDevices mig = four_cards();
  for (auto& d : mig.devices) d.mode = "mig";
  const std::vector<Pod> busy_one = {holder("h", "GPU-1", 4000, 30)};
  std::vector<Pod> all_busy, all_cores;
  for (int i = 0; i < 4; ++i)
    all_busy.push_back(holder("h" + std::to_string(i), "GPU-" + std::to_string(i), 0, 10));
  for (int i = 0; i < 4; ++i)
    all_cores.push_back(holder("c" + std::to_string(i), "GPU-" + std::to_string(i), 0, 100));
  // GPU-0's cores taken, the other cards' memory.
  std::vector<Pod> cores_or_memory = {holder("c0", "GPU-0", 0, 90)};
  for (int i = 1; i < 4; ++i)
    cores_or_memory.push_back(holder("m" + std::to_string(i), "GPU-" + std::to_string(i), 14000, 0));
  return {
      // spread (the default): idle cards tie on score and sort by NUMA node; Fit walks from the end.
      {"spread: an idle node's last card, whole",
       {gpu_container(1)},
       {},
       {},
       {},
       four_cards(),
       {{{"GPU-3", 16000, 0}}},
       "",
       false},
      {"spread: the least used card",
       {gpu_container(1, 8000, 50)},
       {},
       {},
       busy_one,
       four_cards(),
       {{{"GPU-3", 8000, 50}}},
       "",
       false},
      {"binpack: the busiest card that fits",
       {gpu_container(1, 8000, 50)},
       {},
       binpack,
       busy_one,
       four_cards(),
       {{{"GPU-1", 8000, 50}}},
       "",
       false},
      {"memory percentage",
       {gpu_container(1, std::nullopt, std::nullopt, 25)},
       {},
       {},
       {},
       four_cards(),
       {{{"GPU-3", 4000, 0}}},
       "",
       false},
      {"cores above 100 are 100",
       {gpu_container(1, 1000, 150)},
       {},
       {},
       {},
       four_cards(),
       {{{"GPU-3", 1000, 100}}},
       "",
       false},
      {"two cards, spread",
       {gpu_container(2, 1000)},
       {},
       {},
       {},
       four_cards(),
       {{{"GPU-3", 1000, 0}, {"GPU-2", 1000, 0}}},
       "",
       false},
      {"UUID allowed",
       {gpu_container(1, 1000)},
       {},
       only2,
       {},
       four_cards(),
       {{{"GPU-2", 1000, 0}}},
       "",
       false},
      {"UUID refused",
       {gpu_container(1, 1000)},
       {},
       not3,
       {},
       four_cards(),
       {{{"GPU-2", 1000, 0}}},
       "",
       false},
      {"cordoned card skipped",
       {gpu_container(1, 1000)},
       {},
       {},
       {},
       cordoned,
       {{{"GPU-2", 1000, 0}}},
       "",
       false},
      {"mutex: an idle card",
       {gpu_container(1, 1000)},
       {},
       mutex,
       {holder("h", "GPU-3", 10, 0)},
       four_cards(),
       {{{"GPU-2", 1000, 0}}},
       "",
       false},
      // GPU-2's slot is taken, so NUMA node 1 has one card: the walk starts again on node 0.
      {"numa-bind: two cards of one NUMA node",
       {gpu_container(2, 1000)},
       {},
       numa,
       {holder("h", "GPU-2", 0, 0)},
       [] {
         NodeDevices n = four_cards();
         n.devices[2].count = 1;
         return n;
       }(),
       {{{"GPU-1", 1000, 0}, {"GPU-0", 1000, 0}}},
       "",
       false},
      {"topology-aware: the best-linked pair",
       {gpu_container(2, 1000)},
       {},
       topology,
       {},
       four_cards(),
       {{{"GPU-1", 1000, 0}, {"GPU-0", 1000, 0}}},
       "",
       false},
      {"topology-aware: one card, the worst linked",
       {gpu_container(1, 1000)},
       {},
       topology,
       {},
       four_cards(),
       {{{"GPU-3", 1000, 0}}},
       "",
       false},
      {"init container alone, then the container",
       {gpu_container(1, 2000)},
       {gpu_container(1)},
       {},
       {},
       four_cards(),
       {{{"GPU-3", 16000, 0}}, {{"GPU-3", 2000, 0}}},
       "",
       false},
      {"a container without a GPU gets none",
       {make_container(100, 0), gpu_container(1, 1000)},
       {},
       {},
       {},
       four_cards(),
       {{}, {{"GPU-3", 1000, 0}}},
       "",
       false},
      // Failures.
      {"memory short",
       {gpu_container(1, 15000)},
       {},
       {},
       all_busy_memory(),
       four_cards(),
       {},
       "node(s) had no GPU with 15000 MiB free: best card 14000 MiB",
       false},
      {"memory above any card",
       {gpu_container(1, 20000)},
       {},
       {},
       {},
       four_cards(),
       {},
       "node(s) had no GPU with 20000 MiB free: best card 16000 MiB",
       true},
      {"memory short on some cards, cores on another: both named",
       {gpu_container(1, 6000, 30)},
       {},
       {},
       cores_or_memory,
       four_cards(),
       {},
       "node(s) had no GPU with 6000 MiB free: best card 2000 MiB; no GPU with 30% of its cores free: best "
       "card 10%",
       false},
      {"cores short",
       {gpu_container(1, 1000, 95)},
       {},
       {},
       all_busy,
       four_cards(),
       {},
       "node(s) had no GPU with 95% of its cores free: best card 90%",
       false},
      {"whole card on shared cards",
       {gpu_container(1, 1000, 100)},
       {},
       {},
       all_busy,
       four_cards(),
       {},
       "node(s) had no GPU with 100% of its cores free: best card 90%",
       false},
      {"no cores left",
       {gpu_container(1, 1000)},
       {},
       {},
       all_cores,
       four_cards(),
       {},
       "node(s) had no GPU with cores left",
       false},
      {"no free slot",
       {gpu_container(1, 1000)},
       {},
       {},
       all_busy,
       one_slot,
       {},
       "node(s) had no GPU with a free slot",
       false},
      {"fewer healthy cards than asked",
       {gpu_container(2, 1000)},
       {},
       {},
       {},
       three_sick,
       {},
       "node(s) had 1 of the 2 GPU(s) asked free",
       true},
      {"more cards than the node has",
       {gpu_container(5, 1000)},
       {},
       {},
       {},
       four_cards(),
       {},
       "node(s) had 4 GPU(s), fewer than the 5 asked",
       true},
      {"another type",
       {gpu_container(1, 1000)},
       {},
       a100,
       {},
       four_cards(),
       {},
       "node(s) had no GPU of the type or mode the pod asks for",
       true},
      {"MIG cards",
       {gpu_container(1, 1000)},
       {},
       {},
       {},
       mig,
       {},
       "node(s) had only GPUs in MIG mode, which the extender does not allocate",
       true},
      {"a refused annotation", {gpu_container(1, 1000)}, {}, bad, {}, four_cards(), {}, bad.error, true},
  };
}

TEST(DeviceFit, AsHAMiFitsAndRefuses) {
  for (const Case& c : cases()) {
    Pod pod = make_pod_with("p", c.containers);
    pod.init_containers = c.init_containers;
    pod.gpu_preferences = std::make_shared<const PodPreferences>(c.preferences);
    Node n = make_node("n", 64000, 256LL << 30);
    n.gpus = std::make_shared<const NodeDevices>(c.devices);
    const NodeInfo node = node_info(n, c.on_node);
    const PodRequest request = pod_request(pod, SharingConfig{});
    const NodeFit fit = fit_pod(request, *n.gpus, node_usage(*n.gpus, node.pods));
    EXPECT_EQ(fit.fits, !c.want.empty()) << c.name;
    if (fit.fits) {
      EXPECT_EQ(fit.allocation, c.want) << c.name;
      continue;
    }
    // Through the plugin: the reason and whether preemption may help.
    const PodContext ctx(pod);
    const FilterStatus status = make_gpu_share_filter(SharingConfig{})->filter(ctx, node);
    ASSERT_EQ(status.reasons.size(), 1u) << c.name;
    EXPECT_EQ(status.reasons[0], c.want_reason) << c.name;
    EXPECT_EQ(status.code, c.want_unresolvable ? FilterCode::kUnresolvable : FilterCode::kUnschedulable)
        << c.name;
  }
}

TEST(DeviceFit, RequestsAsGenerateResourceRequestsReadsThem) {
  struct Case {
    std::string name;
    Container container;
    SharingConfig config;
    ContainerRequest want;
  };
  SharingConfig defaults;
  defaults.default_memory = 3000;
  defaults.default_cores = 20;
  const std::vector<Case> cases = {
      {"no GPU", make_container(100, 0), {}, {}},
      {"a card, nothing else: all its memory", gpu_container(1), {}, {1, 0, 100, 0}},
      {"memory", gpu_container(2, 4000, 30), {}, {2, 4000, 101, 30}},
      {"percentage", gpu_container(1, std::nullopt, std::nullopt, 40), {}, {1, 0, 40, 0}},
      {"percentage above 100 is 100", gpu_container(1, std::nullopt, std::nullopt, 140), {}, {1, 0, 100, 0}},
      {"percentage 0 is none", gpu_container(1, std::nullopt, std::nullopt, 0), {}, {1, 0, 100, 0}},
      {"the configured defaults", gpu_container(1), defaults, {1, 3000, 101, 20}},
      {"memory beyond int32: no request", gpu_container(1, 1LL << 40), {}, {}},
  };
  for (const Case& c : cases) EXPECT_EQ(container_request(c.container, c.config), c.want) << c.name;
}

TEST(DeviceFit, NodeScoreAndPolicies) {
  Node n = make_node("n", 64000, 256LL << 30);
  n.gpus = std::make_shared<const NodeDevices>(four_cards());
  const NodeInfo idle = node_info(n);
  const NodeInfo busy = node_info(n, {holder("h", "GPU-1", 8000, 40)});
  // 10 × (1/40 + 40/400 + 8000/64000) = 2.5.
  EXPECT_FLOAT_EQ(node_score(node_usage(*n.gpus, busy.pods)), 2.5f);
  EXPECT_FLOAT_EQ(node_score(node_usage(*n.gpus, idle.pods)), 0.0f);

  Pod pod = make_pod_with("p", {gpu_container(1, 1000)});
  const auto score = make_gpu_share_score(SharingConfig{});
  const PodContext ctx(pod);
  EXPECT_EQ(score->score(ctx, score->prepare(ctx, {}).get(), busy), 8) << "binpack: 2.5 of 30";
  EXPECT_EQ(score->score(ctx, score->prepare(ctx, {}).get(), idle), 0);
  PodPreferences spread;
  spread.node_policy = "spread";
  pod.gpu_preferences = std::make_shared<const PodPreferences>(spread);
  const PodContext spread_ctx(pod);
  EXPECT_EQ(score->score(spread_ctx, score->prepare(spread_ctx, {}).get(), busy), 92);
  EXPECT_EQ(score->score(spread_ctx, score->prepare(spread_ctx, {}).get(), idle), 100);
}

TEST(DeviceFit, PodsWithoutGpusPassAndNodesWithoutCardsFail) {
  const auto filter = make_gpu_share_filter(SharingConfig{});
  const NodeInfo plain = node_info(make_node("n", 4000, 16LL << 30));
  const Pod cpu_only = make_pod_with("p", {make_container(100, 0)});
  EXPECT_FALSE(filter->can_fail(PodContext(cpu_only)));
  EXPECT_TRUE(filter->filter(PodContext(cpu_only), plain).ok());
  const Pod wants = make_pod_with("g", {gpu_container(1)});
  const FilterStatus s = filter->filter(PodContext(wants), plain);
  EXPECT_EQ(s.code, FilterCode::kUnresolvable);
  EXPECT_EQ(s.reasons, std::vector<std::string>{"node(s) had no GPU registered by HAMi's device plugin"});
  Node broken = make_node("b", 4000, 16LL << 30);
  NodeDevices undecoded;
  undecoded.error = "hami.io/node-nvidia-register: not JSON";
  broken.gpus = std::make_shared<const NodeDevices>(undecoded);
  EXPECT_EQ(filter->filter(PodContext(wants), node_info(broken)).reasons,
            std::vector<std::string>{
                "node(s) had GPU annotations that did not decode: hami.io/node-nvidia-register: not JSON"});
}

// Preemption counts the victims' shares: the dry run takes lower-priority sharers off their cards, and
// evicts only as many as the pod needs, the least important first.
// A pod on the node whose cards did not decode: no card's use is known, so the node takes no GPU pod
// (unschedulable: it passes again once that pod is gone), and pods without GPUs are not affected.
TEST(DeviceFit, APodWhoseCardsDidNotDecodeClosesItsNodeToGpuPods) {
  Node n = make_node("n", 64000, 256LL << 30);
  n.gpus = std::make_shared<const NodeDevices>(four_cards());
  Pod broken = make_pod_with("broken", {make_container(100, 0)});
  broken.namespace_ = "ml";
  PodShares undecoded;
  undecoded.error = "hami.io/vgpu-devices-allocated \"x\": not a card";
  broken.gpu_shares = std::make_shared<const PodShares>(undecoded);
  const NodeInfo node = node_info(n, {broken});
  const auto filter = make_gpu_share_filter(SharingConfig{});
  const FilterStatus s = filter->filter(PodContext(make_pod_with("wants", {gpu_container(1, 1000)})), node);
  EXPECT_EQ(s.code, FilterCode::kUnschedulable);
  EXPECT_EQ(s.reasons,
            std::vector<std::string>{"node(s) had a pod whose GPU allocation did not decode: ml/broken: "
                                     "hami.io/vgpu-devices-allocated \"x\": not a card"});
  EXPECT_TRUE(filter->filter(PodContext(make_pod_with("cpu", {make_container(100, 0)})), node).ok());
  EXPECT_EQ(shares_on_node(make_pod_with("wants", {gpu_container(1, 1000)}), node, SharingConfig{}), nullptr);
}

TEST(DeviceFit, PreemptionFreesTheSharesOfLowerPrioritySharers) {
  NodeDevices one = four_cards();
  one.devices.resize(1);
  Node n = make_node("n", 64000, 256LL << 30);
  n.gpus = std::make_shared<const NodeDevices>(one);
  auto sharer = [](const std::string& name, int32_t memory, int32_t priority) {
    Pod p = holder(name, "GPU-0", memory, 0);
    p.priority = priority;
    p.start_time = 1767225600;
    return p;
  };
  const NodeInfo node =
      node_info(n, {sharer("low", 6000, 10), sharer("lower", 6000, 5), sharer("high", 3000, 900)});
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(make_gpu_share_filter(SharingConfig{}));
  const Engine engine(std::move(filters), {});
  Pod preemptor = make_pod_with("big", {gpu_container(1, 10000)});
  preemptor.priority = 100;
  const PodContext ctx(preemptor);
  const std::vector<const NodeInfo*> nodes = {&node};
  EXPECT_FALSE(engine.filter(ctx, nodes)[0].ok()) << "1000 MiB free";
  const auto got = preemption::select_victims_on_node(ctx, node, {}, engine, 1767312000, {});
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->victims.size(), 2u) << "6000 + 6000 freed: 13000 MiB, and high (priority 900) stays";
  EXPECT_EQ(got->victims[0]->pod->name, "low");
  EXPECT_EQ(got->victims[1]->pod->name, "lower");

  Pod modest = make_pod_with("modest", {gpu_container(1, 6000)});
  modest.priority = 100;
  const PodContext modest_ctx(modest);
  const auto one_victim = preemption::select_victims_on_node(modest_ctx, node, {}, engine, 1767312000, {});
  ASSERT_TRUE(one_victim.has_value());
  ASSERT_EQ(one_victim->victims.size(), 1u) << "lower goes first (least important); low is reprieved";
  EXPECT_EQ(one_victim->victims[0]->pod->name, "lower");
}

// A node whose lock names a pod bound to it is setting that pod's cards up: another pod's bind there
// would only fail, so the filter passes it by until the lock goes (a node update).
TEST(DeviceFit, ANodeSettingUpAnotherPodsCardsIsPassedBy) {
  const auto filter = make_gpu_share_filter(SharingConfig{});
  const Pod pod = make_pod_with("p", {gpu_container(1, 1000)});
  for (const auto& [locked_by, want_ok] : std::vector<std::pair<std::string, bool>>{
           {"default/h", false}, {"default/p", true}, {"default/gone", true}, {"", true}}) {
    NodeDevices d = four_cards();
    d.locked_by = locked_by;
    Node n = make_node("n", 64000, 256LL << 30);
    n.gpus = std::make_shared<const NodeDevices>(d);
    const FilterStatus s = filter->filter(PodContext(pod), node_info(n, {holder("h", "GPU-0", 1000, 0)}));
    EXPECT_EQ(s.ok(), want_ok) << locked_by;
    // Before 1.29 a pod an extender rejected waits for the queue's flush, not for the lock's removal:
    // the node passes, and only its score says it is busy.
    const NodeInfo info = node_info(n, {holder("h", "GPU-0", 1000, 0)});
    EXPECT_TRUE(make_gpu_share_filter(SharingConfig{}, KubeVersion{28})->filter(PodContext(pod), info).ok());
    const auto score = make_gpu_share_score(SharingConfig{});
    const PodContext ctx(pod);
    EXPECT_EQ(score->score(ctx, score->prepare(ctx, {}).get(), info) == 0, !want_ok) << locked_by;
    if (!want_ok) {
      EXPECT_EQ(s.code, FilterCode::kUnschedulable);
      EXPECT_EQ(
          s.reasons,
          std::vector<std::string>{
              "node(s) had their GPU lock held by a pod whose cards the device plugin is still setting up"});
    }
  }
}

TEST(DeviceFit, EncodesTheAllocationAsHAMiWritesIt) {
  EXPECT_EQ(encode_allocation({{}, {{"GPU-1", 1000, 30}, {"GPU-0", 1000, 30}}}),
            ";GPU-1,NVIDIA,1000,30:GPU-0,NVIDIA,1000,30:;");
  EXPECT_EQ(encode_allocation({}), "");
}

}  // namespace
}  // namespace device_fit_test
}  // namespace kext::gpu
