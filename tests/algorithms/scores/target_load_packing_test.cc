// TargetLoadPacking, with the cases of scheduler-plugins
// pkg/trimaran/targetloadpacking/targetloadpacking_test.go TestTargetLoadPackingScoring.
#include "algorithms/scores/target_load_packing.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/support/fake_usage_view.h"
#include "tests/support/test_builders.h"

namespace kext {
namespace target_load_packing_test {
namespace {

using testing::explicit_container;
using testing::FakeUsageView;
using testing::GiB;
using testing::make_node;
using testing::make_pod_with;
using testing::node_info;
using testing::usage_percent;

// Scores `pod` on a node of 1 CPU, 1Gi (Trimaran's test node) measured at `cpu_percent` (none: no sample).
int64_t score_on_test_node(const Pod& pod, std::optional<double> cpu_percent,
                           const TargetLoadPackingArgs& args = {}) {
  const NodeInfo node = node_info(make_node("node-1", 1000, GiB));
  std::optional<NodeUsage> sample;
  if (cpu_percent) sample = usage_percent(*node.node, *cpu_percent, 0);
  return testing::score_with_usage(*make_target_load_packing_score(args), pod, node, sample);
}

TEST(TargetLoadPacking, TrimaranCases) {
  struct Case {
    std::string name;
    Pod pod;
    std::optional<double> cpu_percent;
    int64_t want;
  };
  // A pod of one container requesting 1000m: Trimaran's test sets its limit to the same, and the model
  // predicts from the request; 1000m * 1.5 passes the node's CPU either way.
  const std::vector<Case> cases = {
      {"new node", make_pod_with("p", {}), 0, 40},
      {"hot node", make_pod_with("p", {}), 50, 33},
      {"excess utilization returns min score", make_pod_with("p", {explicit_container(1000, 0)}), 30, 0},
      {"no metrics for the node: min score", make_pod_with("p", {}), std::nullopt, 0},
  };
  for (const Case& c : cases) EXPECT_EQ(score_on_test_node(c.pod, c.cpu_percent), c.want) << c.name;
}

TEST(TargetLoadPacking, PredictsThePodFromItsRequests) {
  const TargetLoadPackingArgs args;
  Pod pod = make_pod_with("p", {explicit_container(100, 0), testing::make_container(0, 0)});
  pod.overhead.milli_cpu = 10;
  // round(100 * 1.5) + the default for the container without a CPU request + the overhead.
  EXPECT_EQ(predicted_pod_milli_cpu(pod, args), 150 + 1000 + 10);
  // 20% + 200m * 1.5 of 1000m = 50%, under a target of 60: (100 - 60) * 50 / 60 + 60 = 93.
  TargetLoadPackingArgs sixty;
  sixty.target_utilization = 60;
  EXPECT_EQ(score_on_test_node(make_pod_with("p", {explicit_container(200, 0)}), 20, sixty), 93);
}

TEST(TargetLoadPacking, NeutralWithoutFreshUsage) {
  const Pod pod = make_pod_with("p", {explicit_container(100, 0)});
  std::vector<NodeInfo> nodes = {node_info(make_node("a", 1000, GiB)), node_info(make_node("b", 4000, GiB))};
  FakeUsageView view;
  view.samples["a"] = usage_percent(*nodes[0].node, 10, 10);
  view.samples["b"] = usage_percent(*nodes[1].node, 90, 10);
  view.is_fresh = false;
  ClusterView with_stale;
  with_stale.usage = &view;
  ClusterView without_usage;
  auto plugin = make_target_load_packing_score({});
  for (const ClusterView* cluster : std::vector<const ClusterView*>{&with_stale, &without_usage, nullptr}) {
    PodContext ctx(pod, cluster);
    auto ptrs = testing::node_ptrs(nodes);
    auto prepared = plugin->prepare(ctx, ptrs);
    EXPECT_EQ(plugin->score(ctx, prepared.get(), nodes[0]), 0);
    EXPECT_EQ(plugin->score(ctx, prepared.get(), nodes[1]), 0);
  }
}

}  // namespace
}  // namespace target_load_packing_test
}  // namespace kext
