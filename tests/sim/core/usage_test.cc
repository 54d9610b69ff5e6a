// Usage profiles, the sampled UsageView, and the burst the lag protection (estimated_usage) spreads.
#include "sim/core/usage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/filters/pod_fits_resources.h"
#include "algorithms/scores/target_load_packing.h"
#include "algorithms/usage_lookup.h"
#include "sim/core/simulator.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/support/test_builders.h"

namespace kext::sim {
namespace usage_test {
namespace {

using std::chrono::seconds;
using testing::kEpoch;
using testing::sim_pod;

TEST(UsageProfile, ParsesAFractionOrSteps) {
  struct Case {
    std::string text;
    std::vector<std::pair<SimDuration, double>> steps;  // empty: an error
  };
  const std::vector<Case> cases{
      {"0.6", {{seconds(0), 0.6}}},
      {"0s:0.2,60s:0.8,120s:0.4", {{seconds(0), 0.2}, {seconds(60), 0.8}, {seconds(120), 0.4}}},
      {" 30:1 , 90:0 ", {{seconds(30), 1.0}, {seconds(90), 0.0}}},
      {"", {}},
      {"-0.1", {}},
      {"60s:0.2,30s:0.4", {}},
      {"abc", {}},
      {"10s:", {}},
  };
  for (const Case& c : cases) {
    std::string error;
    const std::optional<UsageProfile> p = parse_usage_profile(c.text, error);
    if (c.steps.empty()) {
      EXPECT_FALSE(p.has_value()) << c.text;
      EXPECT_FALSE(error.empty()) << c.text;
    } else {
      ASSERT_TRUE(p.has_value()) << c.text << ": " << error;
      EXPECT_EQ(p->steps, c.steps) << c.text;
    }
  }
}

TEST(UsageProfile, IsAStepFunctionOfAge) {
  std::string error;
  const UsageProfile p = *parse_usage_profile("30s:0.2,60s:0.8", error);
  EXPECT_EQ(p.at(seconds(0)), 0.2);  // before the first offset: the first step's
  EXPECT_EQ(p.at(seconds(59)), 0.2);
  EXPECT_EQ(p.at(seconds(60)), 0.8);
  EXPECT_EQ(p.at(seconds(600)), 0.8);
}

// A test-only load-aware score, the simplest one that spreads: the node with the least CPU in use,
// as the sample plus the pods it cannot include (estimated_usage), scores highest.
class LeastUsed : public ScorePlugin {
 public:
  std::string_view name() const override { return "LeastUsed"; }
  bool reads_cluster() const override { return true; }
  int64_t score(const PodContext& pod, const ScorePrepared*, const NodeInfo& node) const override {
    const UsageView* view = fresh_usage(pod);
    if (view == nullptr) return 0;
    const std::optional<NodeUsage> u = node_usage(*view, node);
    if (!u) return 0;
    const double used =
        static_cast<double>(u->milli_cpu) / static_cast<double>(node.node->allocatable.milli_cpu);
    return static_cast<int64_t>(100 * (1 - std::min(1.0, used)));
  }
};

std::unique_ptr<Engine> engine_scoring(std::unique_ptr<ScorePlugin> score) {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(make_pod_fits_resources_filter());
  std::vector<WeightedScore> scores;
  scores.push_back({std::move(score), 1});
  return std::make_unique<Engine>(std::move(filters), std::move(scores));
}

constexpr int kNodes = 10;
constexpr int kBurst = 50;
constexpr auto kInterval = seconds(60);

// Ten nodes of `node_cpu`, each running a pod of `busy_cpu`, equally used until, just before the
// sample at one interval, the pod of n0 finishes: that sample shows n0 idle. Then kBurst pods of
// `pod_cpu` arrive, one a second, within the next interval.
struct Burst {
  int64_t node_cpu = 0;
  int64_t busy_cpu = 0;
  int64_t pod_cpu = 0;
  std::map<std::string, int> placed;             // how many of the burst each node got
  std::map<std::string, int64_t> requested_end;  // each node's CPU requests at the end
};

void run_burst(Burst& b, const Engine& engine, double estimate_fraction) {
  SimCluster cluster;
  for (int i = 0; i < kNodes; ++i) {
    const std::string node = "n" + std::to_string(i);
    cluster.add_node(kext::testing::make_node(node, b.node_cpu, 64 * kext::testing::GiB));
    cluster.add_pod(sim_pod("busy-" + std::to_string(i), b.busy_cpu, 0, node));
  }
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  options.usage.enabled = true;
  options.usage.interval = kInterval;
  options.usage.estimate_fraction = estimate_fraction;
  auto sim = std::make_unique<Simulator>(std::move(cluster), engine, options);
  sim->set_lifecycle("uid-busy-0", Lifecycle{kInterval - seconds(1)});
  for (int i = 0; i < kBurst; ++i) {
    sim->add_pending(sim_pod("burst-" + std::to_string(i), b.pod_cpu, 0), kInterval + seconds(1 + i));
  }
  sim->run([&](const CycleRecord& d) {
    if (d.outcome == Outcome::kScheduled && d.pod.find("burst-") != std::string::npos) ++b.placed[d.node];
  });
  for (const NodeInfo* n : sim->cluster().nodes()) b.requested_end[n->node->name] = n->requested.milli_cpu;
}

// LeastUsed: with the estimate, no node gets more than twice its share of the burst; without it, the
// node that looked idle takes (nearly) all of it, a sample interval long.
TEST(UsageBurst, TheEstimateSpreadsABurstOverTheNodeThatLookedIdle) {
  const std::unique_ptr<Engine> engine = engine_scoring(std::make_unique<LeastUsed>());
  // The whole burst fits on the idle node; the others use a twentieth of theirs.
  Burst with{20000, 1000, 20000 / kBurst, {}, {}};
  run_burst(with, *engine, 1.0);
  int total = 0;
  for (const auto& [node, n] : with.placed) {
    EXPECT_LE(n, 2 * kBurst / kNodes) << node;
    total += n;
  }
  EXPECT_EQ(total, kBurst);

  Burst without = with;
  without.placed.clear();
  run_burst(without, *engine, 0.0);
  EXPECT_GE(without.placed["n0"], kBurst * 9 / 10);
}

// TargetLoadPacking (the others above its target, so the idle node scores best): with the estimate,
// the node that looked idle takes pods until it is as loaded as the others, and every node ends
// within a few points of the rest; without it, the idle node is packed full before the next sample.
TEST(UsageBurst, TheEstimateStopsTargetLoadPackingFromPilingOntoTheIdleNode) {
  const std::unique_ptr<Engine> engine =
      engine_scoring(make_target_load_packing_score(TargetLoadPackingArgs{}));
  Burst with{10000, 4500, 10000 / kBurst, {}, {}};
  run_burst(with, *engine, 1.0);
  const auto [lo, hi] = std::minmax_element(with.requested_end.begin(), with.requested_end.end(),
                                            [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_LE(hi->second - lo->second, with.node_cpu / 10) << hi->first << " vs " << lo->first;
  EXPECT_LT(with.placed["n0"], kBurst * 6 / 10);

  Burst without = with;
  without.placed.clear();
  without.requested_end.clear();
  run_burst(without, *engine, 0.0);
  EXPECT_GE(without.placed["n0"], kBurst * 9 / 10);
  EXPECT_EQ(without.requested_end["n0"], without.node_cpu);
}

TEST(SampledUsage, PublishesOnlyAtTicksWithWindowStatistics) {
  SimCluster cluster;
  cluster.add_node(kext::testing::make_node("n", 1000, 4 * kext::testing::GiB));
  const std::unique_ptr<Engine> engine = engine_scoring(std::make_unique<LeastUsed>());
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  options.usage.enabled = true;
  options.usage.interval = seconds(10);
  Simulator sim(std::move(cluster), *engine, options);
  std::string error;
  Lifecycle ramp{seconds(44)};
  ramp.usage = std::make_shared<UsageProfile>(*parse_usage_profile("0s:0.2,20s:0.6", error));
  sim.add_pending(sim_pod("a", 500, 0), seconds(5), ramp);
  sim.add_pending(sim_pod("b", 100, 0), seconds(60));  // keeps the run going past a's end
  const RunSummary summary = sim.run([](const CycleRecord&) {});
  // Samples at 0, 10, ..., 60: a (500m) uses 100m from 5 s, 300m from 25 s, and is gone at 49 s; the
  // sample at 60 is measured just before b binds.
  ASSERT_EQ(summary.node_usage.size(), 1u);
  const NodeUsageSummary& u = summary.node_usage[0];
  EXPECT_EQ(u.used_peak_milli_cpu, 300);
  EXPECT_EQ(u.used_p95_milli_cpu, 300);
  EXPECT_EQ(u.requested_peak_milli_cpu, 500);
  const NodeUsage* last = sim.cluster().view().usage->find("n");
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->milli_cpu, 0);
  EXPECT_EQ(last->sampled_unix_ms, (kEpoch + 60) * 1000 - 1);
  // The window's samples: 0, 0.1, 0.1, 0.3, 0.3, 0, 0 of the node's CPU.
  EXPECT_NEAR(last->cpu_mean, 0.8 / 7, 1e-9);
  EXPECT_GT(last->cpu_stddev, 0);
}

}  // namespace
}  // namespace usage_test
}  // namespace kext::sim
