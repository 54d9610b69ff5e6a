// kube-scheduler's framework score plugins (0..100, framework.MaxNodeScore) against hand-computed values
// of the Go arithmetic, and the same plugins from the catalogue on the wire's 0..10 (score100 / 10).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "algorithms/catalogue.h"
#include "algorithms/scores/balanced_resource_allocation.h"
#include "algorithms/scores/image_locality.h"
#include "algorithms/scores/node_affinity.h"
#include "algorithms/scores/node_resources_fit.h"
#include "algorithms/scores/taint_toleration.h"
#include "tests/support/test_builders.h"

namespace kext {
namespace plugin_scores_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::make_pod_with;
using testing::MiB;
using testing::node_info;
using testing::run_score;

// The pod (500m, 1000 bytes) on a node (4000m, 10000 bytes) already holding 1140m / 4100 bytes:
// requested cpu 1640 of 4000, memory 5100 of 10000.
Pod the_pod() { return make_pod("p", 500, 1000); }
NodeInfo the_node(int64_t cpu = 4000, int64_t mem = 10000) {
  return node_info(make_node("n", cpu, mem), {make_pod("a", 1140, 4100)});
}

ScoringStrategy strategy(ScoringStrategyType type,
                         std::vector<ResourceWeight> resources = {{"cpu", 1}, {"memory", 1}},
                         std::vector<UtilizationShapePoint> shape = {}) {
  return ScoringStrategy{type, std::move(resources), std::move(shape)};
}

struct FitCase {
  std::string name;
  ScoringStrategy strategy;
  NodeInfo node;
  int64_t want100;
};

TEST(NodeResourcesFitScore, Table) {
  using enum ScoringStrategyType;
  const std::vector<FitCase> cases = {
      // least_allocated.go: cpu (4000-1640)*100/4000 = 59, memory (10000-5100)*100/10000 = 49;
      // (59 + 49) / 2 = 54. (The v1.16 LeastRequestedPriority gives (5 + 4) / 2 = 4 here, the wire 5.)
      {"least allocated", strategy(kLeastAllocated), the_node(), 54},
      // Weighted: (59*3 + 49*1) / 4 = 226 / 4 = 56.
      {"least allocated weighted", strategy(kLeastAllocated, {{"cpu", 3}, {"memory", 1}}), the_node(), 56},
      // A resource with allocatable 0 is left out of the mean (v1.16 averaged its 0 in): cpu alone, 59.
      {"least allocated skips allocatable 0", strategy(kLeastAllocated), the_node(4000, 0), 59},
      // most_allocated.go: cpu 1640*100/4000 = 41, memory 5100*100/10000 = 51; (41 + 51) / 2 = 46.
      {"most allocated", strategy(kMostAllocated), the_node(), 46},
      // Over capacity, requested is clamped to capacity: cpu 100 (v1.16 scored 0), memory 51; 75.
      {"most allocated clamps", strategy(kMostAllocated), the_node(1000), 75},
      // requested_to_capacity_ratio.go: shape (0,0) (100,10) scaled to (0,0) (100,100); cpu 41,
      // memory 51; math.Round((41 + 51) / 2) = 46. (v1.16's unscaled shape: round((4 + 5) / 2) = 5.)
      {"requested to capacity ratio",
       strategy(kRequestedToCapacityRatio, {{"cpu", 1}, {"memory", 1}}, {{0, 0}, {100, 10}}), the_node(), 46},
      // Decreasing shape (100,0): cpu 100 - 41 = 59, memory 49; weights 1 and 2: round(157 / 3) = 52.
      {"requested to capacity ratio weighted",
       strategy(kRequestedToCapacityRatio, {{"cpu", 1}, {"memory", 2}}, {{0, 10}, {100, 0}}), the_node(), 52},
  };
  for (const auto& c : cases) {
    auto plugin = make_node_resources_fit_score(c.strategy);
    EXPECT_EQ(plugin->name(), "NodeResourcesFit");
    EXPECT_EQ(run_score(*plugin, the_pod(), {c.node}), std::vector<int64_t>{c.want100}) << c.name;
    PluginArgs args;
    args.fit_scoring = c.strategy;
    auto wire = make_plugin_score("NodeResourcesFit", args);
    ASSERT_NE(wire, nullptr);
    EXPECT_EQ(run_score(*wire, the_pod(), {c.node}), std::vector<int64_t>{c.want100 / 10}) << c.name;
  }
}

// Cases of kube-scheduler's own noderesources/most_allocated_test.go (TestMostAllocatedScoringStrategy),
// with its expected 0..100 scores. Its "cpu": "4000" is cores where these are milli-cores: the
// ratios, and so the scores, are the same.
TEST(NodeResourcesFitScore, MostAllocatedAsKubeSchedulersTests) {
  using testing::explicit_container;
  using testing::make_container;
  const std::string gpu = "example.com/gpu";
  auto node = [](std::string name, int64_t cpu, int64_t mem, std::vector<Pod> pods = {}) {
    return node_info(make_node(std::move(name), cpu, mem), std::move(pods));
  };
  auto on_node = [](Container c) { return make_pod_with("e", {std::move(c)}); };
  const Pod two = make_pod_with("p", {make_container(1000, 2000), make_container(2000, 3000)});
  struct Case {
    std::string name;
    Pod pod;
    std::vector<NodeInfo> nodes;
    std::vector<ResourceWeight> resources;
    std::vector<int64_t> want;
  };
  Pod gpu_pod = make_pod("p", 3000, 5000);
  gpu_pod.containers[0].requests.set_scalar(gpu, 2);
  Node gpu4 = make_node("node1", 6000, 10000), gpu10 = make_node("node2", 6000, 10000);
  gpu4.allocatable.set_scalar(gpu, 4);
  gpu10.allocatable.set_scalar(gpu, 10);
  const std::vector<Case> cases = {
      {"nothing scheduled, resources requested, differently sized nodes",
       two,
       {node("node1", 4000, 10000), node("node2", 6000, 10000)},
       {{"cpu", 1}, {"memory", 1}},
       {62, 50}},
      {"resources requested, pods scheduled with resources",
       two,
       {node("node1", 10000, 20000, {on_node(explicit_container(3000, 0))}),
        node("node2", 10000, 20000, {on_node(explicit_container(3000, 5000))})},
       {{"cpu", 1}, {"memory", 1}},
       {42, 55}},
      {"resources requested equal node capacity",
       make_pod_with("p", {make_container(2000, 4000), make_container(3000, 5000)}),
       {node("node1", 5000, 10000), node("node2", 10000, 9000)},
       {{"cpu", 1}, {"memory", 1}},
       {95, 75}},
      {"weighted resources",
       two,
       {node("node1", 4000, 10000), node("node2", 6000, 10000)},
       {{"memory", 2}, {"cpu", 1}},
       {58, 50}},
      // Non-zero defaults (100m, 200Mi) push cpu past the node's 250m: clamped to 100.
      {"no resources requested, pods scheduled, nonzero request for resource",
       make_pod("p", 0, 0),
       {node("node1", 250, 1000 * MiB, {make_pod("e1", 0, 0), make_pod("e2", 0, 0)}),
        node("node2", 250, 1000 * MiB)},
       {{"cpu", 1}, {"memory", 1}},
       {80, 30}},
      {"bypass extended resource if the pod does not request",
       two,
       {node("node1", 6000, 10000), node_info(gpu4)},
       {{"cpu", 1}, {"memory", 1}, {gpu, 1}},
       {50, 50}},
      {"honor extended resource if the pod request",
       gpu_pod,
       {node_info(gpu4), node_info(gpu10)},
       {{"cpu", 1}, {"memory", 1}, {gpu, 1}},
       {50, 40}},
  };
  for (const auto& c : cases) {
    auto plugin = make_node_resources_fit_score(strategy(ScoringStrategyType::kMostAllocated, c.resources));
    EXPECT_EQ(run_score(*plugin, c.pod, c.nodes), c.want) << c.name;
  }
}

TEST(NodeResourcesBalancedAllocationScore, Table) {
  // balanced_allocation.go balancedResourceScorer, actual requests (useRequested).
  Pod with_storage = the_pod();
  with_storage.containers[0].requests.ephemeral_storage = 3;
  Node storage_node = make_node("n", 4000, 10000);
  storage_node.allocatable.ephemeral_storage = 10;
  struct Case {
    std::string name;
    std::vector<ResourceWeight> resources;
    Pod pod;
    NodeInfo node;
    int64_t want100;  // 1.35: the balance with the pod
    int64_t want36;   // 1.36: 50 + (50 + with - without) / 2
  };
  const std::vector<Case> cases = {
      // Fractions 0.41 and 0.51: std = |0.41 - 0.51| / 2 = 0.05; int64((1 - 0.05) * 100) = 95.
      // (v1.16's BalancedResourceAllocation: int64((1 - 0.1) * 10) = 9, the wire 9 here too.)
      // Without the pod 0.285 and 0.41: 93; 50 + 52 / 2 = 76.
      {"two resources", {{"cpu", 1}, {"memory", 1}}, the_pod(), the_node(), 95, 76},
      // Three: 0.41, 0.51, 0.3; mean 0.40667; population std 0.085765; int64(91.42) = 91. Without the
      // pod 0.285, 0.41, 0: 82; 50 + 59 / 2 = 79.
      {"three resources",
       {{"cpu", 1}, {"memory", 1}, {"ephemeral-storage", 1}},
       with_storage,
       node_info(storage_node, {make_pod("a", 1140, 4100)}),
       91,
       79},
      // One resource with allocatable: std 0, 100; both ways 100: 75.
      {"one resource", {{"cpu", 1}, {"memory", 1}}, the_pod(), the_node(4000, 0), 100, 75},
      // PreScore skips a pod that requests none of the resources (kubernetes#129138): 0.
      {"best-effort pod", {{"cpu", 1}, {"memory", 1}}, make_pod("p", 0, 0), the_node(), 0, 0},
  };
  for (const auto& c : cases) {
    for (const auto& [minor, want] : {std::pair{35, c.want100}, std::pair{36, c.want36}}) {
      SCOPED_TRACE(c.name + " at 1." + std::to_string(minor));
      auto plugin = make_node_resources_balanced_allocation_score({c.resources}, KubeVersion{minor});
      EXPECT_EQ(plugin->name(), "NodeResourcesBalancedAllocation");
      EXPECT_EQ(run_score(*plugin, c.pod, {c.node}), std::vector<int64_t>{want});
      PluginArgs args;
      args.balanced.resources = c.resources;
      args.version = KubeVersion{minor};
      EXPECT_EQ(run_score(*make_plugin_score("NodeResourcesBalancedAllocation", args), c.pod, {c.node}),
                std::vector<int64_t>{want / 10});
    }
  }
}

// Cases of kube-scheduler's own noderesources/requested_to_capacity_ratio_test.go
// (TestResourceBinPackingSingleExtended, TestResourceBinPackingMultipleExtended): shape (0,0) (100,1),
// scaled to (0,0) (100,10).
TEST(NodeResourcesFitScore, RequestedToCapacityRatioAsKubeSchedulersTests) {
  auto pod_asking = [](std::vector<std::pair<std::string, int64_t>> scalars) {
    Pod p = make_pod("p", 0, 0);
    for (const auto& [name, v] : scalars) p.containers[0].requests.set_scalar(name, v);
    return p;
  };
  auto node = [&](std::string name, std::vector<std::pair<std::string, int64_t>> scalars,
                  std::vector<Pod> pods = {}) {
    Node n = make_node(std::move(name), 4000, 10000 * MiB);
    for (const auto& [r, v] : scalars) n.allocatable.set_scalar(r, v);
    return node_info(std::move(n), std::move(pods));
  };
  struct Case {
    std::string name;
    Pod pod;
    std::vector<NodeInfo> nodes;
    std::vector<ResourceWeight> resources;
    std::vector<int64_t> want;
  };
  const std::vector<ResourceWeight> foo = {{"intel.com/foo", 1}};
  const std::vector<ResourceWeight> foo_bar = {{"intel.com/foo", 3}, {"intel.com/bar", 5}};
  const std::vector<Case> cases = {
      {"single: nothing requested",
       make_pod("p", 0, 0),
       {node("node1", {{"intel.com/foo", 8}}), node("node2", {{"intel.com/foo", 4}})},
       foo,
       {0, 0}},
      // 2/8 -> 25 -> 2; 2/4 -> 50 -> 5.
      {"single: less resources",
       pod_asking({{"intel.com/foo", 2}}),
       {node("node1", {{"intel.com/foo", 8}}), node("node2", {{"intel.com/foo", 4}})},
       foo,
       {2, 5}},
      {"single: existing pod running",
       pod_asking({{"intel.com/foo", 2}}),
       {node("node1", {{"intel.com/foo", 8}}),
        node("node2", {{"intel.com/foo", 4}}, {pod_asking({{"intel.com/foo", 2}})})},
       foo,
       {2, 10}},
      {"single: more resources",
       pod_asking({{"intel.com/foo", 4}}),
       {node("node1", {{"intel.com/foo", 8}}), node("node2", {{"intel.com/foo", 4}})},
       foo,
       {5, 10}},
      // node1: foo 25 -> 2, bar 50 -> 5: round((2*3 + 5*5) / 8) = 4; node2: round((5*3 + 2*5) / 8) = 3.
      {"multiple: less resources",
       pod_asking({{"intel.com/foo", 2}, {"intel.com/bar", 2}}),
       {node("node1", {{"intel.com/foo", 8}, {"intel.com/bar", 4}}),
        node("node2", {{"intel.com/foo", 4}, {"intel.com/bar", 8}})},
       foo_bar,
       {4, 3}},
      // node2 already holds foo 4, bar 2: foo over capacity -> shape(100) = 10, bar 50 -> 5: round(55 / 8)
      // = 7.
      {"multiple: existing pod running",
       pod_asking({{"intel.com/foo", 2}, {"intel.com/bar", 2}}),
       {node("node1", {{"intel.com/foo", 8}, {"intel.com/bar", 4}}),
        node("node2", {{"intel.com/foo", 4}, {"intel.com/bar", 8}},
             {pod_asking({{"intel.com/foo", 4}, {"intel.com/bar", 2}})})},
       foo_bar,
       {4, 7}},
  };
  for (const auto& c : cases) {
    auto plugin = make_node_resources_fit_score(
        strategy(ScoringStrategyType::kRequestedToCapacityRatio, c.resources, {{0, 0}, {100, 1}}));
    EXPECT_EQ(run_score(*plugin, c.pod, c.nodes), c.want) << c.name;
  }
}

// Cases of kube-scheduler's own noderesources/balanced_allocation_test.go
// (TestNodeResourcesBalancedAllocation) with its expected scores: v1.26's (`want`, the formula up to 1.35)
// and v1.36's (`want36`, with the same cases and two it added). cpuOnly: cpu 1000m + 2000m, memory 0;
// cpuAndMemory: 1000m/2000 + 2000m/3000.
TEST(NodeResourcesBalancedAllocationScore, AsKubeSchedulersTests) {
  using testing::explicit_container;
  const Pod cpu_only = make_pod_with("cpu-only", {explicit_container(1000, 0), explicit_container(2000, 0)});
  const Pod cpu_and_memory =
      make_pod_with("cpu-and-memory", {explicit_container(1000, 2000), explicit_container(2000, 3000)});
  const Pod memory_only =
      make_pod_with("memory-only", {testing::make_container(0, 2000), testing::make_container(0, 3000)});
  Pod gpu_only = make_pod_with("gpu-only", {explicit_container(0, 0)});
  gpu_only.containers[0].requests.set_scalar("nvidia.com/gpu", 1);
  Pod cpu_memory_gpu3 = cpu_and_memory;
  cpu_memory_gpu3.containers[1].requests.set_scalar("nvidia.com/gpu", 3);
  Node gpu_node = make_node("node1", 3500, 40000);
  gpu_node.allocatable.set_scalar("nvidia.com/gpu", 8);
  Node gpu_node2 = gpu_node;
  gpu_node2.name = "node2";
  struct Case {
    std::string name;
    Pod pod;
    std::vector<NodeInfo> nodes;
    std::vector<ResourceWeight> resources;
    std::vector<int64_t> want;
    std::vector<int64_t> want36;
  };
  const std::vector<ResourceWeight> cpu_mem = {{"cpu", 1}, {"memory", 1}};
  const std::vector<ResourceWeight> cpu_mem_gpu = {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}};
  const std::vector<Case> cases = {
      {"nothing scheduled, resources requested, differently sized nodes",
       cpu_and_memory,
       {node_info(make_node("node1", 4000, 10000)), node_info(make_node("node2", 6000, 10000))},
       cpu_mem,
       {87, 100},
       {68, 75}},
      {"resources requested, pods scheduled with resources",
       cpu_and_memory,
       {node_info(make_node("node1", 10000, 20000), {cpu_only}),
        node_info(make_node("node2", 10000, 20000), {cpu_and_memory})},
       cpu_mem,
       {82, 95},
       {73, 74}},
      {"resources requested, pods scheduled with resources, differently sized nodes",
       cpu_and_memory,
       {node_info(make_node("node1", 10000, 20000), {cpu_only}),
        node_info(make_node("node2", 10000, 50000), {cpu_and_memory})},
       cpu_mem,
       {82, 80},
       {73, 70}},
      {"resources requested, pods scheduled with resources, nodes to reach min/max score",
       memory_only,
       {node_info(make_node("node1", 3000, 5000), {cpu_only}), node_info(make_node("node2", 3000, 5000))},
       cpu_mem,
       {100, 50},
       {100, 50}},
      {"requested resources at node capacity",
       cpu_only,
       {node_info(make_node("node1", 6000, 10000), {cpu_only}),
        node_info(make_node("node2", 6000, 10000), {cpu_and_memory})},
       cpu_mem,
       {50, 75},
       {62, 62}},
      {"scalar resource is included in the score computation if pod requests the scalar resource",
       gpu_only,
       {node_info(gpu_node, {cpu_memory_gpu3}), node_info(gpu_node2, {cpu_and_memory})},
       cpu_mem_gpu,
       {70, 65},
       {75, 76}},
      {"node without the scalar resource should skip the scalar resource",
       cpu_and_memory,
       {node_info(gpu_node), node_info(make_node("node2", 3500, 40000))},
       cpu_mem_gpu,
       {63, 63},
       {56, 56}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(run_score(*make_node_resources_balanced_allocation_score({c.resources}, KubeVersion{35}), c.pod,
                        c.nodes),
              c.want)
        << c.name;
    EXPECT_EQ(run_score(*make_node_resources_balanced_allocation_score({c.resources}, KubeVersion{36}), c.pod,
                        c.nodes),
              c.want36)
        << c.name;
  }
}

Container image_container(std::string image, std::string name) {
  Container c;
  c.name = std::move(name);
  c.image = std::move(image);
  return c;
}

NodeInfo node_with(std::string name, std::vector<ContainerImage> images) {
  Node n = make_node(std::move(name), 4000, 0);
  n.images = index_images(images);
  return node_info(std::move(n));
}

TEST(ImageLocalityPluginScore, Table) {
  const ContainerImage app600{{"gcr.io/p/app:v1"}, 600 * MiB};
  const ContainerImage side400{{"gcr.io/p/side:v1"}, 400 * MiB};
  // image_locality.go: sum = Σ int64(size * nodes with it / nodes), clamped to
  // [23Mi, 1000Mi * containers]; 100 * (sum - 23Mi) / (max - 23Mi).
  {
    // One container, on 2 of 4 nodes: 300Mi; 100 * 277 / 977 = 28.35 -> 28.
    const Pod pod = make_pod_with("p", {image_container("gcr.io/p/app:v1", "c")});
    const std::vector<NodeInfo> nodes = {node_with("A", {app600}), node_with("B", {app600}),
                                         node_with("C", {}), node_with("D", {})};
    EXPECT_EQ(run_score(*make_image_locality_plugin_score(), pod, nodes),
              (std::vector<int64_t>{28, 28, 0, 0}));
    EXPECT_EQ(run_score(*make_plugin_score("ImageLocality", {}), pod, nodes),
              (std::vector<int64_t>{2, 2, 0, 0}));
  }
  {
    // An init container counts, and so does the bound: app (init) on 2 of 2, side on 1 of 2.
    // A: 600Mi + 200Mi = 800Mi of max 2000Mi: 100 * 777 / 1977 = 39.3 -> 39 (v1.16: side only, 200Mi
    // -> 1). B: 600Mi: 100 * 577 / 1977 = 29.
    Pod pod = make_pod_with("p", {image_container("gcr.io/p/side:v1", "c")});
    pod.init_containers.push_back(image_container("gcr.io/p/app:v1", "init"));
    const std::vector<NodeInfo> nodes = {node_with("A", {app600, side400}), node_with("B", {app600})};
    auto plugin = make_image_locality_plugin_score();
    EXPECT_EQ(plugin->name(), "ImageLocality");
    EXPECT_EQ(run_score(*plugin, pod, nodes), (std::vector<int64_t>{39, 29}));
    EXPECT_EQ(run_score(*make_plugin_score("ImageLocality", {}), pod, nodes), (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(run_score(*make_image_locality_score(), pod, nodes), (std::vector<int64_t>{1, 0}));
    EXPECT_EQ(run_score(*plugin, pod, nodes, testing::ScorePath::kByNode), (std::vector<int64_t>{39, 29}));
  }
  {
    // Two containers of one image share its count and each adds it: A has app (on 1 of 2 nodes),
    // 2 x 300Mi of max 2000Mi: 100 * 577 / 1977 = 29.
    Pod pod = make_pod_with("p", {image_container("gcr.io/p/app:v1", "c")});
    pod.init_containers.push_back(image_container("gcr.io/p/app:v1", "init"));
    const std::vector<NodeInfo> nodes = {node_with("A", {app600}), node_with("B", {side400})};
    auto plugin = make_image_locality_plugin_score();
    EXPECT_EQ(run_score(*plugin, pod, nodes), (std::vector<int64_t>{29, 0}));
    EXPECT_EQ(run_score(*plugin, pod, nodes, testing::ScorePath::kByNode), (std::vector<int64_t>{29, 0}));
  }
}

NodeInfo tainted(std::string name, std::vector<Taint> taints) {
  Node n = make_node(std::move(name), 1000, 1000);
  n.taints = std::move(taints);
  return node_info(std::move(n));
}

TEST(TaintTolerationPluginScore, ReverseNormalisedTo100) {
  const Taint x{"x", "", "PreferNoSchedule"}, y{"y", "", "PreferNoSchedule"}, z{"z", "", "PreferNoSchedule"};
  const std::vector<NodeInfo> nodes = {tainted("A", {}), tainted("B", {x}), tainted("C", {x, y, z})};
  // DefaultNormalizeScore(100, reverse): 100 - 100*count/3: 100, 100 - 33 = 67, 0. On the wire
  // 10, 6, 0, where v1.16's 0..10 normalisation gives 10 - 3 = 7 for B.
  auto plugin = make_taint_toleration_plugin_score();
  EXPECT_EQ(plugin->name(), "TaintToleration");
  EXPECT_EQ(run_score(*plugin, make_pod("p", 0, 0), nodes), (std::vector<int64_t>{100, 67, 0}));
  EXPECT_EQ(run_score(*make_plugin_score("TaintToleration", {}), make_pod("p", 0, 0), nodes),
            (std::vector<int64_t>{10, 6, 0}));
  EXPECT_EQ(run_score(*make_taint_toleration_score(), make_pod("p", 0, 0), nodes),
            (std::vector<int64_t>{10, 7, 0}));
}

TEST(NodeAffinityPluginScore, NormalisedTo100) {
  Pod pod = make_pod("p", 0, 0);
  NodeAffinity affinity;
  affinity.preferred.push_back({3, NodeSelectorTerm{{{"zone", "In", {"a"}}}, {}}});
  affinity.preferred.push_back({4, NodeSelectorTerm{{{"disk", "In", {"ssd"}}}, {}}});
  pod.node_affinity = affinity;
  auto labelled = [](std::string name, Labels labels) {
    Node n = make_node(std::move(name), 1000, 1000);
    n.labels = std::move(labels);
    return node_info(std::move(n));
  };
  const std::vector<NodeInfo> nodes = {labelled("A", {{"zone", "a"}, {"disk", "ssd"}}),
                                       labelled("B", {{"zone", "a"}}), labelled("C", {})};
  // Σ matching weights 7, 3, 0; DefaultNormalizeScore(100): 100, 300 / 7 = 42, 0; the wire 10, 4, 0.
  auto plugin = make_node_affinity_plugin_score();
  EXPECT_EQ(plugin->name(), "NodeAffinity");
  EXPECT_EQ(run_score(*plugin, pod, nodes), (std::vector<int64_t>{100, 42, 0}));
  EXPECT_EQ(run_score(*make_plugin_score("NodeAffinity", {}), pod, nodes), (std::vector<int64_t>{10, 4, 0}));
}

TEST(PluginScores, V1_16ArithmeticIsTheLegacyPriority) {
  PluginArgs args;
  // Shown under the plugin's name (AliasedScore), whatever arithmetic it runs.
  EXPECT_EQ(make_plugin_score("NodeResourcesFit", args, Arithmetic::kV1_16)->name(), "NodeResourcesFit");
  // LeastRequestedPriority on the pod above: cpu 2360*10/4000 = 5, memory 4900*10/10000 = 4; (5+4)/2 = 4.
  EXPECT_EQ(
      run_score(*make_plugin_score("NodeResourcesFit", args, Arithmetic::kV1_16), the_pod(), {the_node()}),
      std::vector<int64_t>{4});
  args.fit_scoring.type = ScoringStrategyType::kMostAllocated;
  EXPECT_EQ(make_plugin_score("NodeResourcesFit", args, Arithmetic::kV1_16)->name(), "NodeResourcesFit");
  // MostRequestedPriority's arithmetic: cpu 1640*10/4000 = 4, memory 5100*10/10000 = 5; (4+5)/2 = 4.
  EXPECT_EQ(
      run_score(*make_plugin_score("NodeResourcesFit", args, Arithmetic::kV1_16), the_pod(), {the_node()}),
      std::vector<int64_t>{4});
  args.fit_scoring.resources = {{"cpu", 1}};
  EXPECT_EQ(make_plugin_score("NodeResourcesFit", args, Arithmetic::kV1_16), nullptr);
  EXPECT_FALSE(legacy_score_for("NodeResourcesFit", args).why.empty());
  EXPECT_EQ(make_plugin_score("TaintToleration", {}, Arithmetic::kV1_16)->name(), "TaintToleration");
  for (std::string_view legacy : score_names()) EXPECT_EQ(make_score(legacy, {})->name(), legacy);
  EXPECT_EQ(make_plugin_score("Nope", {}), nullptr);
}

}  // namespace
}  // namespace plugin_scores_test
}  // namespace kext
