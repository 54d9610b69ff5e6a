#include "algorithms/pod_requests.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
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

}  // namespace
}  // namespace kext
