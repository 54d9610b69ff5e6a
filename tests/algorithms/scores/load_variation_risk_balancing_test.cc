// LoadVariationRiskBalancing, with the cases of scheduler-plugins
// pkg/trimaran/loadvariationriskbalancing/loadvariationriskbalancing_test.go TestScore.
#include "algorithms/scores/load_variation_risk_balancing.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/support/fake_usage_view.h"
#include "tests/support/test_builders.h"

namespace kext {
namespace load_variation_risk_balancing_test {
namespace {

using testing::explicit_container;
using testing::FakeUsageView;
using testing::GiB;
using testing::make_node;
using testing::make_pod_with;
using testing::MiB;
using testing::node_info;
using testing::usage_percent;

struct Measured {
  double cpu_mean, cpu_std, memory_mean, memory_std;  // percent
};

int64_t score_on_test_node(const Pod& pod, std::optional<Measured> m,
                           const LoadVariationRiskBalancingArgs& args = {}) {
  const NodeInfo node = node_info(make_node("node-1", 1000, GiB));
  std::optional<NodeUsage> sample;
  if (m) sample = usage_percent(*node.node, m->cpu_mean, m->memory_mean, m->cpu_std, m->memory_std);
  return testing::score_with_usage(*make_load_variation_risk_balancing_score(args), pod, node, sample);
}

TEST(LoadVariationRiskBalancing, TrimaranCases) {
  struct Case {
    std::string name;
    Pod pod;
    std::optional<Measured> measured;
    int64_t want;
  };
  // Trimaran's cases measure memory in some cases only; a resource not measured scores no lower than
  // one measured idle, so those cases read memory as 0 here.
  const std::vector<Case> cases = {
      {"new node", make_pod_with("p", {}), Measured{50, 0, 0, 0}, 75},
      {"hot node", make_pod_with("p", {}), Measured{100, 0, 0, 0}, 50},
      {"average and stDev metrics", make_pod_with("p", {explicit_container(200, 256 * MiB)}),
       Measured{30, 16, 0, 0}, 67},
      {"CPU and Memory metrics", make_pod_with("p", {explicit_container(100, 512 * MiB)}),
       Measured{40, 16, 50, 10}, 45},
      {"pick worst case: CPU or Memory", make_pod_with("p", {explicit_container(100, 512 * MiB)}),
       Measured{80, 20, 25, 15}, 45},
      {"no metrics for the node: min score", make_pod_with("p", {}), std::nullopt, 0},
  };
  for (const Case& c : cases) EXPECT_EQ(score_on_test_node(c.pod, c.measured), c.want) << c.name;
}

TEST(LoadVariationRiskBalancing, MarginAndSensitivity) {
  // cpu: mu 0.3, sigma sqrt(0.16) * 1 = 0.4 with sensitivity 2: risk 0.35 -> 65; memory idle -> 100.
  LoadVariationRiskBalancingArgs args;
  args.safe_variance_sensitivity = 2;
  EXPECT_EQ(score_on_test_node(make_pod_with("p", {}), Measured{30, 16, 0, 0}, args), 65);
  // margin 2: sigma 0.32 -> risk 0.31 -> 69.
  LoadVariationRiskBalancingArgs margin;
  margin.safe_variance_margin = 2;
  EXPECT_EQ(score_on_test_node(make_pod_with("p", {}), Measured{30, 16, 0, 0}, margin), 69);
}

TEST(LoadVariationRiskBalancing, NeutralWithoutFreshUsage) {
  std::vector<NodeInfo> nodes = {node_info(make_node("a", 1000, GiB)), node_info(make_node("b", 1000, GiB))};
  FakeUsageView view;
  view.samples["a"] = usage_percent(*nodes[0].node, 10, 10, 1, 1);
  view.samples["b"] = usage_percent(*nodes[1].node, 90, 80, 20, 5);
  view.is_fresh = false;
  ClusterView cluster;
  cluster.usage = &view;
  const Pod pod = make_pod_with("p", {});
  PodContext ctx(pod, &cluster);
  auto plugin = make_load_variation_risk_balancing_score({});
  auto ptrs = testing::node_ptrs(nodes);
  auto prepared = plugin->prepare(ctx, ptrs);
  EXPECT_EQ(plugin->score(ctx, prepared.get(), nodes[0]), plugin->score(ctx, prepared.get(), nodes[1]));
  EXPECT_EQ(plugin->score(ctx, prepared.get(), nodes[0]), 0);
}

}  // namespace
}  // namespace load_variation_risk_balancing_test
}  // namespace kext
