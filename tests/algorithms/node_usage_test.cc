// Usage between samples (algorithms/node_usage.h): the pods a sample cannot include count at the
// configured share of their requests.
#include "algorithms/node_usage.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace node_usage_test {
namespace {

using testing::GiB;

TEST(EstimatedUsage, AddsThePodsTheSampleCannotInclude) {
  struct Case {
    std::string name;
    std::vector<std::optional<int64_t>> started;  // each 1-CPU, 1Gi pod's status.startTime (seconds)
    double fraction;
    int64_t want_cpu;
    double want_cpu_mean;
  };
  // Sampled at 100 s: 1 CPU of the node's 4 in use.
  const std::vector<Case> cases = {
      {"no pods", {}, 1.0, 1000, 0.25},
      {"started before the sample: in it", {50, 100}, 1.0, 1000, 0.25},
      {"not started yet, or after: estimated", {std::nullopt, 101}, 1.0, 3000, 0.75},
      {"at a share of their requests", {std::nullopt, 50}, 0.5, 1500, 0.375},
  };
  for (const Case& c : cases) {
    std::vector<Pod> pods;
    for (size_t i = 0; i < c.started.size(); ++i) {
      Pod p = testing::make_pod("p" + std::to_string(i), 1000, GiB);
      p.start_time = c.started[i];
      pods.push_back(std::move(p));
    }
    const NodeInfo node = testing::node_info(testing::make_node("n", 4000, 8 * GiB), std::move(pods));
    NodeUsage sample;
    sample.milli_cpu = 1000;
    sample.memory = 2 * GiB;
    sample.cpu_mean = 0.25;
    sample.cpu_stddev = 0.05;
    sample.sampled_unix_ms = 100'000;
    const NodeUsage got = estimated_usage(sample, node, c.fraction);
    EXPECT_EQ(got.milli_cpu, c.want_cpu) << c.name;
    EXPECT_DOUBLE_EQ(got.cpu_mean, c.want_cpu_mean) << c.name;
    EXPECT_DOUBLE_EQ(got.cpu_stddev, 0.05) << c.name;
    EXPECT_EQ(got.sampled_unix_ms, 100'000) << c.name;
  }
}

}  // namespace
}  // namespace node_usage_test
}  // namespace kext
