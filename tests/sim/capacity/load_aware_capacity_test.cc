// "How many more fit?" under Koordinator's usage-threshold filter (LoadAwareScheduling), each answer
// worked out by hand from what the nodes use, not what their pods request: an answer cluster-capacity,
// which counts requests only, cannot give.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "algorithms/node_usage.h"
#include "sim/capacity/how_many_fit.h"
#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::sim::capacity {
namespace load_aware_capacity_test {
namespace {

using kext::testing::GiB;
using kext::testing::make_node;
using sim::testing::kEpoch;
using sim::testing::sim_pod;

// Usage as a metrics source last measured it, a minute before the question.
class MeasuredUsage final : public UsageView {
 public:
  MeasuredUsage(std::map<std::string, int64_t, std::less<>> milli_cpu, bool fresh) : fresh_(fresh) {
    for (const auto& [node, cpu] : milli_cpu) {
      NodeUsage u;
      u.milli_cpu = cpu;
      u.memory = GiB;
      u.sampled_unix_ms = (kEpoch - 60) * 1000;
      nodes_.emplace(node, u);
    }
  }
  const NodeUsage* find(std::string_view node) const override {
    auto it = nodes_.find(node);
    return it == nodes_.end() ? nullptr : &it->second;
  }
  bool fresh() const override { return fresh_; }

 private:
  std::map<std::string, NodeUsage, std::less<>> nodes_;
  bool fresh_;
};

constexpr const char* kCpuThreshold65 = R"(apiVersion: kube-extender.io/v1alpha1
kind: ExtenderConfiguration
plugins:
  filter:
    enabled: [{name: LoadAwareScheduling}]
pluginConfig:
- name: LoadAwareScheduling
  args: {usageThresholds: {cpu: 65}}
)";

struct Case {
  std::string name;
  std::map<std::string, int64_t, std::less<>> used;  // CPU in use per node (millicores)
  bool fresh = true;
  size_t fit = 0;  // copies of a 500m pod on two idle-by-requests 4-CPU nodes, by hand
  std::map<std::string, size_t> per_node;
};

TEST(LoadAwareCapacity, CopiesCountAgainstWhatNodesUse) {
  // A copy fits while round(100 × (usage + the copies placed + itself) / 4000) <= 65, that is while
  // usage + 500 × (copies + 1) <= 2600 (2620 rounds up to 66). By requests alone each node takes 8.
  const std::vector<Case> cases = {
      {"n1 uses 2 CPU, n2 0.4 CPU: n1 takes one copy (2.5 CPU), n2 four (2.4 CPU)",
       {{"n1", 2000}, {"n2", 400}},
       true,
       5,
       {{"n1", 1}, {"n2", 4}}},
      {"n1 uses 2.7 CPU, over the threshold already: none there; n2 idle takes five (2.5 CPU)",
       {{"n1", 2700}, {"n2", 0}},
       true,
       5,
       {{"n2", 5}}},
      {"n2 has no sample: the filter passes it, its requests take 8",
       {{"n1", 2000}},
       true,
       9,
       {{"n1", 1}, {"n2", 8}}},
      {"the samples are stale: the filter passes every node, as cluster-capacity counts",
       {{"n1", 2000}, {"n2", 400}},
       false,
       16,
       {{"n1", 8}, {"n2", 8}}},
  };
  const simtool::SimConfig config =
      simtool::sim_config_of_text(kCpuThreshold65, "load-aware", KubeVersion::newest());
  SimulatorOptions options;
  simtool::apply(config, options);
  options.epoch_unix_seconds = kEpoch;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const MeasuredUsage usage(c.used, c.fresh);
    SimCluster cluster;
    cluster.add_node(make_node("n1", 4000, 16 * GiB));
    cluster.add_node(make_node("n2", 4000, 16 * GiB));
    cluster.set_usage(&usage);
    const CapacityAnswer a =
        how_many_fit(std::move(cluster), *config.engine, options, sim_pod("web", 500, 0));
    EXPECT_EQ(a.fit, c.fit) << a.message;
    std::map<std::string, size_t> per_node;
    for (const NodeCount& n : a.per_node) per_node[n.node] = n.pods;
    EXPECT_EQ(per_node, c.per_node);
    if (c.fresh && c.used.size() == 2) {
      EXPECT_EQ(a.message, "0/2 nodes are available: 2 node(s) cpu usage exceed threshold.");
    }
  }
}

}  // namespace
}  // namespace load_aware_capacity_test
}  // namespace kext::sim::capacity
