#include "algorithms/pod_requests.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "algorithms/plugin.h"
#include "tests/support/test_builders.h"

namespace kext {
namespace pod_requests_test {
namespace {

using testing::explicit_container;
using testing::GiB;
using testing::k8Ei;
using testing::make_container;
using testing::make_pod_with;
using testing::MiB;
using testing::sidecar_container;

constexpr int64_t kDefMem = 200 * MiB;
constexpr int64_t k4Ei = int64_t{1} << 62;  // 209715200, "200Mi" (the code comment says MB)

struct Case {
  std::string name;
  Pod pod;
  int64_t cpu, mem;                  // effective requests (filter)
  int64_t nonzero_cpu, nonzero_mem;  // with per-container defaults (scoring)
};

Pod with_init(Pod p, std::vector<Container> init) {
  p.init_containers = std::move(init);
  return p;
}

Pod with_overhead(Pod p, int64_t cpu, int64_t mem) {
  p.overhead.milli_cpu = cpu;
  p.overhead.memory = mem;
  return p;
}

std::vector<Case> cases() {
  return {
      {"no containers", make_pod_with("p", {}), 0, 0, 0, 0},
      {"best effort container gets both defaults", make_pod_with("p", {make_container(0, 0)}), 0, 0, 100,
       kDefMem},
      {"explicit zero stays zero", make_pod_with("p", {explicit_container(0, 0)}), 0, 0, 0, 0},
      // cpu 500m with no memory key -> memory defaults to 200Mi.
      {"missing memory key only", make_pod_with("p", {make_container(500, 0)}), 500, 0, 500, kDefMem},
      {"missing cpu key only", make_pod_with("p", {make_container(0, GiB)}), 0, GiB, 100, GiB},
      {"containers are summed",
       make_pod_with("p", {make_container(500, GiB, "a"), make_container(250, 512 * MiB, "b")}), 750,
       GiB + 512 * MiB, 750, GiB + 512 * MiB},
      // Defaults apply per container, so two request-less containers count 200m / 400Mi.
      {"defaults per container",
       make_pod_with("p",
                     {make_container(0, 0, "a"), make_container(0, 0, "b"), make_container(300, GiB, "c")}),
       300, GiB, 500, GiB + 2 * kDefMem},
      // max(sum, each init container), per resource independently.
      {"init container larger in cpu only",
       with_init(make_pod_with("p", {make_container(500, 2 * GiB)}), {make_container(2000, GiB, "init")}),
       2000, 2 * GiB, 2000, 2 * GiB},
      {"init containers are a max, not a sum",
       with_init(make_pod_with("p", {make_container(100, 100 * MiB)}),
                 {make_container(1000, 300 * MiB, "i1"), make_container(800, 500 * MiB, "i2")}),
       1000, 500 * MiB, 1000, 500 * MiB},
      {"request-less init container defaults too",
       with_init(make_pod_with("p", {explicit_container(50, 10 * MiB)}), {make_container(0, 0, "init")}), 50,
       10 * MiB, 100, kDefMem},
      // Sidecars run alongside the app containers and every later init container.
      {"sidecar adds to the container sum",
       with_init(make_pod_with("p", {make_container(500, GiB)}), {sidecar_container(200, 256 * MiB)}), 700,
       GiB + 256 * MiB, 700, GiB + 256 * MiB},
      {"init container after a sidecar carries the sidecar",
       with_init(make_pod_with("p", {make_container(500, GiB)}),
                 {sidecar_container(200, 256 * MiB, "s1"), make_container(1000, 512 * MiB, "i1")}),
       // init candidate = 1000+200 cpu, 512+256 Mi; sum = 700 cpu, 1280 Mi.
       1200, GiB + 256 * MiB, 1200, GiB + 256 * MiB},
      {"init container before a sidecar does not carry it",
       with_init(make_pod_with("p", {make_container(500, GiB)}),
                 {make_container(1000, 512 * MiB, "i1"), sidecar_container(200, 256 * MiB, "s1")}),
       1000, GiB + 256 * MiB, 1000, GiB + 256 * MiB},
      {"sidecars are cumulative",
       with_init(
           make_pod_with("p", {make_container(100, 100 * MiB)}),
           {sidecar_container(300, 0, "s1"), sidecar_container(400, 0, "s2"), make_container(500, 0, "i1")}),
       // init candidates: 300, 700, 500+700 = 1200; sum = 100+300+400 = 800. Non-zero memory: the
       // three request-less init containers give 600Mi via the last candidate, above the 500Mi sum.
       1200, 100 * MiB, 1200, 3 * kDefMem},
      // Overhead goes on top of everything and never gets a default.
      {"overhead is added", with_overhead(make_pod_with("p", {make_container(500, GiB)}), 250, 64 * MiB), 750,
       GiB + 64 * MiB, 750, GiB + 64 * MiB},
      {"overhead on top of the defaults", with_overhead(make_pod_with("p", {make_container(0, 0)}), 10, MiB),
       10, MiB, 110, kDefMem + MiB},
      {"overhead after the init max",
       with_overhead(
           with_init(make_pod_with("p", {make_container(100, MiB)}), {make_container(900, 2 * MiB, "i")}), 50,
           MiB),
       950, 3 * MiB, 950, 3 * MiB},
      // Sums saturate at int64 max: two 8Ei containers used to wrap to -2 and fit anywhere.
      {"two 8Ei containers saturate",
       make_pod_with("p", {make_container(500, k8Ei, "a"), make_container(500, k8Ei, "b")}), 1000, k8Ei, 1000,
       k8Ei},
      {"8Ei sidecar plus an 8Ei container saturates",
       with_init(make_pod_with("p", {make_container(k8Ei, k8Ei)}), {sidecar_container(k8Ei, k8Ei)}), k8Ei,
       k8Ei, k8Ei, k8Ei},
      // The init candidate 4Ei + 4Ei = 2^63 is the only sum that overflows here.
      {"init container carrying a 4Ei sidecar saturates",
       with_init(make_pod_with("p", {make_container(1, 1)}),
                 {sidecar_container(1, k4Ei, "s1"), make_container(1, k4Ei, "i1")}),
       2, k8Ei, 2, k8Ei},
      {"8Ei overhead on an 8Ei container saturates",
       with_overhead(make_pod_with("p", {make_container(100, k8Ei)}), k8Ei, k8Ei), k8Ei, k8Ei, k8Ei, k8Ei},
      {"the 200Mi default on top of an 8Ei container saturates",
       make_pod_with("p", {make_container(100, k8Ei, "a"), make_container(0, 0, "b")}), 100, k8Ei, 200, k8Ei},
  };
}

TEST(ComputePodRequests, EffectiveAndNonZero) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    Resources eff = compute_pod_requests(c.pod, false);
    EXPECT_EQ(eff.milli_cpu, c.cpu);
    EXPECT_EQ(eff.memory, c.mem);
    EXPECT_EQ(eff.pods, 0);
    Resources nz = compute_pod_requests(c.pod, true);
    EXPECT_EQ(nz.milli_cpu, c.nonzero_cpu);
    EXPECT_EQ(nz.memory, c.nonzero_mem);
  }
}

// What a minor's kube-scheduler counts, at the minor that changed it and the one before: each row fails
// if its gate (kube_version.h since::) moves a minor either way or goes.
struct Want {
  int64_t cpu, mem, nonzero_cpu, nonzero_mem;
  bool operator==(const Want&) const = default;
};

Want requests_at(const Pod& pod, int minor) {
  const Resources eff = compute_pod_requests(pod, false, KubeVersion{minor});
  const Resources nz = compute_pod_requests(pod, true, KubeVersion{minor});
  return {eff.milli_cpu, eff.memory, nz.milli_cpu, nz.memory};
}

// A status entry with `resources`: what the container runs with and what the kubelet allocated.
Container with_status(Container c, int64_t cpu, int64_t mem, int64_t alloc_cpu, int64_t alloc_mem) {
  ContainerResourceStatus st;
  st.requests.milli_cpu = cpu;
  st.requests.memory = mem;
  st.allocated.milli_cpu = alloc_cpu;
  st.allocated.memory = alloc_mem;
  st.names_cpu = cpu != 0 || alloc_cpu != 0;
  st.names_memory = mem != 0 || alloc_mem != 0;
  c.status = st;
  return c;
}

Pod with_pod_level(Pod p, std::optional<int64_t> cpu, std::optional<int64_t> mem) {
  PodLevelRequests r;
  r.names_cpu = cpu.has_value();
  r.names_memory = mem.has_value();
  r.amounts.milli_cpu = cpu.value_or(0);
  r.amounts.memory = mem.value_or(0);
  p.pod_level_requests = r;
  return p;
}

struct MinorCase {
  std::string name;
  Pod pod;
  int minor;    // the minor that changed it
  Want before;  // at minor - 1
  Want at;      // at minor
};

std::vector<MinorCase> minor_cases() {
  Pod resized = make_pod_with("p", {with_status(make_container(500, GiB), 700, GiB, 800, 2 * GiB)});
  Pod infeasible = make_pod_with("p", {with_status(make_container(1000, GiB), 500, GiB, 600, GiB)});
  infeasible.resize_infeasible = true;
  // The status names cpu: the scoring default no longer fills the spec's missing key.
  Pod status_names_cpu = make_pod_with("p", {with_status(make_container(0, GiB), 300, GiB, 0, GiB)});
  // A resize reaches only sidecars: a plain init container's status is not read.
  Pod init_status = with_init(make_pod_with("p", {make_container(100, MiB)}),
                              {with_status(make_container(50, MiB, "i"), 0, 0, 900, MiB),
                               with_status(sidecar_container(10, MiB, "s"), 0, 0, 200, MiB)});
  return {
      // 1.28: initContainers[].restartPolicy exists; PodRequests' sidecar rules (no gate of their own).
      {"sidecar joins the sum and the init containers after it",
       with_init(make_pod_with("p", {make_container(500, GiB)}),
                 {sidecar_container(200, 256 * MiB, "s1"), make_container(1000, 512 * MiB, "i1")}),
       28,
       {1000, GiB, 1000, GiB},
       {1200, GiB + 256 * MiB, 1200, GiB + 256 * MiB}},
      // 1.33: in-place resize counts max(spec, status.resources.requests, allocatedResources).
      {"allocated above the spec", resized, 33, {500, GiB, 500, GiB}, {800, 2 * GiB, 800, 2 * GiB}},
      {"infeasible resize drops the spec", infeasible, 33, {1000, GiB, 1000, GiB}, {600, GiB, 600, GiB}},
      {"status names cpu: no default", status_names_cpu, 33, {0, GiB, 100, GiB}, {300, GiB, 300, GiB}},
      // Before: 1.28's sidecar rules on the spec (i: 50 + 10; the sum 110). At: the sidecar's 200
      // allocated joins the sum (300) and i's 900 stays unread.
      {"only a sidecar's status counts",
       init_status,
       33,
       {110, 2 * MiB, 110, 2 * MiB},
       {300, 2 * MiB, 300, 2 * MiB}},
      // 1.34: pod-level requests replace the containers' sum for cpu / memory they name; overhead on top.
      {"pod-level cpu replaces the sum, memory stays the containers'",
       with_overhead(with_pod_level(make_pod_with("p", {make_container(100, 100 * MiB, "a"),
                                                        make_container(200, 0, "b")}),
                                    1000, std::nullopt),
                     50, 0),
       34,
       {350, 100 * MiB, 350, 100 * MiB + kDefMem},
       // Pod-level set: memory is named (by a), so b gets no 200Mi default any more.
       {1050, 100 * MiB, 1050, 100 * MiB}},
      {"pod-level memory, no cpu anywhere: cpu still defaults per container",
       with_pod_level(make_pod_with("p", {make_container(0, 0, "a"), make_container(0, 0, "b")}),
                      std::nullopt, GiB),
       34,
       {0, 0, 200, 2 * kDefMem},
       {0, GiB, 200, GiB}},
  };
}

TEST(ComputePodRequests, FollowsTheMinor) {
  for (const auto& c : minor_cases()) {
    SCOPED_TRACE(c.name);
    const Want before = requests_at(c.pod, c.minor - 1);
    const Want at = requests_at(c.pod, c.minor);
    EXPECT_EQ(before.cpu, c.before.cpu);
    EXPECT_EQ(before.mem, c.before.mem);
    EXPECT_EQ(before.nonzero_cpu, c.before.nonzero_cpu);
    EXPECT_EQ(before.nonzero_mem, c.before.nonzero_mem);
    EXPECT_EQ(at.cpu, c.at.cpu);
    EXPECT_EQ(at.mem, c.at.mem);
    EXPECT_EQ(at.nonzero_cpu, c.at.nonzero_cpu);
    EXPECT_EQ(at.nonzero_mem, c.at.nonzero_mem);
  }
}

// IsSupportedPodLevelResource: hugepages-* replace too; anything else named at the pod level is not
// read (the API server refuses it).
TEST(ComputePodRequests, PodLevelHugepagesReplaceOtherNamesDoNot) {
  Container c = make_container(100, MiB);
  c.requests.set_scalar("hugepages-2Mi", 4 * MiB);
  c.requests.set_scalar("example.com/gpu", 1);
  c.requests.ephemeral_storage = GiB;
  PodLevelRequests r;
  r.amounts.set_scalar("hugepages-2Mi", 8 * MiB);
  r.amounts.set_scalar("example.com/gpu", 3);
  r.amounts.ephemeral_storage = 2 * GiB;
  Pod pod = make_pod_with("p", {c});
  pod.pod_level_requests = r;
  for (int minor : {33, 34}) {
    SCOPED_TRACE(minor);
    const Resources eff = compute_pod_requests(pod, false, KubeVersion{minor});
    EXPECT_EQ(eff.scalar("hugepages-2Mi"), minor >= 34 ? 8 * MiB : 4 * MiB);
    EXPECT_EQ(eff.scalar("example.com/gpu"), 1);
    EXPECT_EQ(eff.ephemeral_storage, GiB);
    EXPECT_EQ(eff.milli_cpu, 100);
  }
}

// With pod-level requests the pod being scored still defaults each container's missing cpu
// (resource_allocation.go calculatePodResourceRequest), while a node's pod defaults only a resource no
// container names (types.go getNonMissingContainerRequests): b's 100m counts for the one, not the other.
TEST(ComputePodRequests, ScoredPodDefaultsEveryContainerUnderPodLevelRequests) {
  const Pod pod = with_pod_level(make_pod_with("p", {make_container(100, 0, "a"), make_container(0, 0, "b")}),
                                 std::nullopt, GiB);
  EXPECT_EQ(compute_pod_requests(pod, true, KubeVersion{34}).milli_cpu, 100);
  EXPECT_EQ(compute_scored_pod_requests(pod, KubeVersion{34}).milli_cpu, 200);
  EXPECT_EQ(compute_scored_pod_requests(pod, KubeVersion{34}).memory, GiB);
  EXPECT_EQ(PodContext(pod, nullptr, KubeVersion{34}).nonzero_requests.milli_cpu, 200);
  EXPECT_EQ(compute_pod_requests(pod, true, KubeVersion{33}).milli_cpu, 200);
  EXPECT_EQ(compute_scored_pod_requests(pod, KubeVersion{33}).memory, 2 * kDefMem);
}

// The requests are computed once, when the PodInfo is made: a node at 1.32 and at 1.33 counts the same
// resized pod differently.
TEST(ComputePodRequests, PodInfoCarriesTheMinor) {
  auto pod = std::make_shared<const Pod>(
      make_pod_with("p", {with_status(make_container(500, GiB), 500, GiB, 900, GiB)}));
  EXPECT_EQ(make_pod_info(pod, KubeVersion{32}).requests.milli_cpu, 500);
  EXPECT_EQ(make_pod_info(pod, KubeVersion{33}).requests.milli_cpu, 900);
  EXPECT_EQ(make_pod_info(pod, KubeVersion{33}).nonzero_requests.milli_cpu, 900);
}

TEST(ComputePodRequests, ScalarsAndEphemeralStorageFollowTheSameRulesWithoutDefaults) {
  Container a = make_container(100, MiB, "a");
  a.requests.set_scalar("example.com/gpu", 1);
  a.requests.ephemeral_storage = GiB;
  Container b = make_container(100, MiB, "b");
  b.requests.set_scalar("example.com/gpu", 2);
  b.requests.set_scalar("hugepages-2Mi", 4 * MiB);
  Container init = make_container(0, 0, "init");
  init.requests.set_scalar("example.com/gpu", 5);  // larger than the sum of 3
  init.requests.set_scalar("hugepages-2Mi", 2 * MiB);
  Container side = sidecar_container(0, 0, "side");
  side.requests.set_scalar("example.com/fpga", 1);
  Pod pod = with_init(make_pod_with("p", {a, b}), {side, init});
  pod.overhead.set_scalar("example.com/gpu", 1);

  for (bool non_zero : {false, true}) {
    SCOPED_TRACE(non_zero);
    Resources r = compute_pod_requests(pod, non_zero);
    // init candidate = 5 gpu + sidecar's fpga; gpu max(3, 5) + 1 overhead.
    EXPECT_EQ(r.scalar("example.com/gpu"), 6);
    EXPECT_EQ(r.scalar("example.com/fpga"), 1);
    EXPECT_EQ(r.scalar("hugepages-2Mi"), 4 * MiB);
    EXPECT_EQ(r.ephemeral_storage, GiB);  // no default for ephemeral storage
    EXPECT_EQ(r.scalar("example.com/absent"), 0);
  }
  // The request-less init container and sidecar only matter for scoring: both get 100m / 200Mi.
  Resources nz = compute_pod_requests(pod, true);
  EXPECT_EQ(nz.milli_cpu,
            std::max<int64_t>(100 + 100 + 100, 100 + 100));  // sum incl. sidecar vs init+sidecar
  EXPECT_EQ(nz.memory, std::max(2 * MiB + kDefMem, 2 * kDefMem));
  Resources eff = compute_pod_requests(pod, false);
  EXPECT_EQ(eff.milli_cpu, 200);
  EXPECT_EQ(eff.memory, 2 * MiB);
}

TEST(ComputePodRequests, RequestsNothingOnlyForTrulyEmptyPods) {
  EXPECT_TRUE(compute_pod_requests(make_pod_with("p", {make_container(0, 0)}), false).requests_nothing());
  EXPECT_FALSE(compute_pod_requests(make_pod_with("p", {make_container(0, 0)}), true).requests_nothing());
  Container gpu = make_container(0, 0);
  gpu.requests.set_scalar("example.com/gpu", 1);
  EXPECT_FALSE(compute_pod_requests(make_pod_with("p", {gpu}), false).requests_nothing());
}

TEST(ComputePodRequests, PodInfoAndNodeInfoAccumulateBothViews) {
  NodeInfo n =
      testing::node_info(testing::make_node("n", 4000, 8 * GiB),
                         {testing::make_pod("a", 1500, 2 * GiB), testing::make_best_effort_pod("b")});
  EXPECT_EQ(n.requested.milli_cpu, 1500);
  EXPECT_EQ(n.requested.memory, 2 * GiB);
  EXPECT_EQ(n.nonzero_requested.milli_cpu, 1600);
  EXPECT_EQ(n.nonzero_requested.memory, 2 * GiB + kDefMem);
  ASSERT_TRUE(n.remove_pod("uid-b"));
  EXPECT_EQ(n.nonzero_requested.milli_cpu, 1500);
  EXPECT_EQ(n.nonzero_requested.memory, 2 * GiB);
  EXPECT_FALSE(n.remove_pod("uid-b"));
}

TEST(NodeInfo, SaturatedSumsSurviveAddAndRemove) {
  // Two 8Ei pods on one node made it look empty (-2); removing one of three pods from a saturated
  // sum must leave the true total, not 8Ei - 8Ei = 0.
  NodeInfo n = testing::node_info(testing::make_node("n", 4000, 8 * GiB),
                                  {testing::make_pod("a", 100, k8Ei), testing::make_pod("b", 100, k8Ei),
                                   testing::make_pod("c", 100, GiB)});
  struct Step {
    std::string remove;
    int64_t mem, nonzero_mem;
  };
  const std::vector<Step> steps = {
      {"", k8Ei, k8Ei},
      {"uid-a", k8Ei, k8Ei},
      {"uid-b", GiB, GiB},
      {"uid-c", 0, 0},
  };
  for (const auto& step : steps) {
    SCOPED_TRACE(step.remove);
    if (!step.remove.empty()) {
      ASSERT_TRUE(n.remove_pod(step.remove));
    }
    EXPECT_EQ(n.requested.memory, step.mem);
    EXPECT_EQ(n.nonzero_requested.memory, step.nonzero_mem);
  }
  n.add_pod(std::make_shared<const PodInfo>(
      make_pod_info(std::make_shared<const Pod>(testing::make_pod("d", 100, k8Ei)))));
  n.add_pod(std::make_shared<const PodInfo>(
      make_pod_info(std::make_shared<const Pod>(testing::make_pod("e", 100, k8Ei)))));
  EXPECT_EQ(n.requested.memory, k8Ei);
  EXPECT_EQ(n.requested.milli_cpu, 200);
}

// noderesources/fit.go NewFit: the scorer of NodeResourcesFit's strategies is built without
// enablePodLevelResources, BalancedAllocation's with it. From 1.34 the pod being scored counts its
// pod-level 2 CPU / 4Gi in BalancedAllocation and its containers' 100m / 128Mi in NodeResourcesFit.
TEST(ComputePodRequests, FitScoresTheContainersWhereBalancedAllocationReadsThePodLevel) {
  const Pod pod = with_pod_level(make_pod_with("p", {make_container(100, 128 * MiB)}), 2000, 4 * GiB);
  for (int minor : {33, 34, 36}) {
    SCOPED_TRACE(minor);
    const PodContext ctx(pod, nullptr, KubeVersion{minor});
    EXPECT_EQ(ctx.fit_scored_requests.milli_cpu, 100);
    EXPECT_EQ(ctx.fit_scored_requests.memory, 128 * MiB);
    EXPECT_EQ(ctx.nonzero_requests.milli_cpu, minor >= 34 ? 2000 : 100);
    EXPECT_EQ(ctx.requests.memory, minor >= 34 ? 4 * GiB : 128 * MiB);
  }
}

}  // namespace
}  // namespace pod_requests_test
}  // namespace kext
