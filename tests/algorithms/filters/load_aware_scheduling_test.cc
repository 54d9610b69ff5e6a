// LoadAwareScheduling's usage thresholds (Koordinator pkg/scheduler/plugins/loadaware load_aware.go
// filterNodeUsage).
#include "algorithms/filters/load_aware_scheduling.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/support/fake_usage_view.h"
#include "tests/support/test_builders.h"

namespace kext {
namespace load_aware_scheduling_test {
namespace {

using testing::FakeUsageView;
using testing::GiB;
using testing::make_node;
using testing::make_pod;
using testing::node_info;
using testing::usage_percent;

TEST(LoadAwareScheduling, Thresholds) {
  struct Case {
    std::string name;
    std::optional<std::pair<double, double>> usage;  // cpu, memory percent; none: no sample
    int64_t pod_cpu, pod_memory;
    LoadAwareSchedulingArgs args;
    std::vector<std::string> want_reasons;  // empty: passes
  };
  const std::vector<Case> cases = {
      {"under both defaults", std::pair{50.0, 50.0}, 100, GiB, {}, {}},
      {"cpu at the threshold passes", std::pair{60.0, 10.0}, 200, 0, {}, {}},
      {"cpu over with the pod", std::pair{60.0, 10.0}, 300, 0, {}, {"node(s) cpu usage exceed threshold"}},
      {"memory over", std::pair{10.0, 96.0}, 0, 0, {}, {"node(s) memory usage exceed threshold"}},
      {"threshold 0: none", std::pair{99.0, 10.0}, 0, 0, {0, 95}, {}},
      {"no sample: passes", std::nullopt, 4000, 16 * GiB, {}, {}},
  };
  for (const Case& c : cases) {
    // 4 CPU, 16Gi: the pod's 200m is 5%.
    const NodeInfo node = node_info(make_node("n", 4000, 16 * GiB));
    FakeUsageView view;
    if (c.usage) view.samples["n"] = usage_percent(*node.node, c.usage->first, c.usage->second);
    ClusterView cluster;
    cluster.usage = &view;
    const Pod pod = make_pod("p", c.pod_cpu, c.pod_memory);
    const PodContext ctx(pod, &cluster);
    const FilterStatus got = make_load_aware_scheduling_filter(c.args)->filter(ctx, node);
    EXPECT_EQ(got.ok(), c.want_reasons.empty()) << c.name;
    EXPECT_EQ(got.reasons, c.want_reasons) << c.name;
    if (!got.ok()) {
      EXPECT_EQ(got.code, FilterCode::kUnschedulable) << c.name;
    }
  }
}

TEST(LoadAwareScheduling, PassesEveryNodeWithoutFreshUsage) {
  const NodeInfo node = node_info(make_node("n", 4000, 16 * GiB));
  FakeUsageView view;
  view.samples["n"] = usage_percent(*node.node, 100, 100);
  view.is_fresh = false;
  ClusterView stale;
  stale.usage = &view;
  ClusterView none;
  const Pod pod = make_pod("p", 1000, GiB);
  auto filter = make_load_aware_scheduling_filter({});
  for (const ClusterView* cluster : std::vector<const ClusterView*>{&stale, &none, nullptr}) {
    const PodContext ctx(pod, cluster);
    EXPECT_TRUE(filter->filter(ctx, node).ok());
    EXPECT_FALSE(filter->can_fail(ctx));
  }
  view.is_fresh = true;
  const PodContext ctx(pod, &stale);
  EXPECT_TRUE(filter->can_fail(ctx));
  EXPECT_FALSE(filter->filter(ctx, node).ok());
}

}  // namespace
}  // namespace load_aware_scheduling_test
}  // namespace kext
