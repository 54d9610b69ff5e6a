// The embedded KubeSchedulerConfiguration extender-sim runs when it is given no scheduler profile
// (policy/config.h default_scheduler_config_json): it must load as kube-scheduler 1.26's default
// profile, transcribed here from pkg/scheduler/apis/config/v1 (default_plugins.go getDefaultPlugins,
// defaults.go SetDefaults_*Args), volume plugins aside.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "policy/config.h"

namespace kext {
namespace {

TEST(DefaultSchedulerProfile, IsKubeScheduler126sDefaultProfile) {
  const LoadedFile loaded = load_scheduling_file(default_scheduler_config_json());
  EXPECT_TRUE(loaded.scheduler_configuration);
  EXPECT_TRUE(loaded.extenders.empty());
  const Config config = parse_config(loaded.effective_config);

  // getDefaultPlugins' MultiPoint order, keeping the filter plugins this extender has (no
  // PrioritySort, volume plugins, DefaultPreemption or DefaultBinder: the simulator's queue,
  // preemption and binding are those).
  const std::vector<std::string> filters = {"NodeUnschedulable", "NodeName",        "TaintToleration",
                                            "NodeAffinity",      "NodePorts",       "NodeResourcesFit",
                                            "PodTopologySpread", "InterPodAffinity"};
  std::vector<std::string> got_filters;
  for (const PluginEntry& f : config.filters) got_filters.push_back(f.name);
  EXPECT_EQ(got_filters, filters);

  // The score plugins in the same order, with the weights getDefaultPlugins gives them, on current
  // kube-scheduler's 0..100 arithmetic.
  const std::vector<std::pair<std::string, int64_t>> scores = {
      {"TaintToleration", 3},   {"NodeAffinity", 2},     {"NodeResourcesFit", 1},
      {"PodTopologySpread", 2}, {"InterPodAffinity", 2}, {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1}};
  std::vector<std::pair<std::string, int64_t>> got_scores;
  for (const PluginEntry& s : config.scores) {
    got_scores.emplace_back(s.name, s.weight);
    EXPECT_EQ(s.arithmetic, Arithmetic::kCurrent) << s.name;
  }
  EXPECT_EQ(got_scores, scores);

  // defaults.go: LeastAllocated over cpu 1 and memory 1, balanced allocation over the same, System
  // spreading defaults, hardPodAffinityWeight 1.
  const std::vector<ResourceWeight> cpu_memory = {{"cpu", 1}, {"memory", 1}};
  EXPECT_EQ(config.args.fit_scoring.type, ScoringStrategyType::kLeastAllocated);
  EXPECT_EQ(config.args.fit_scoring.resources, cpu_memory);
  EXPECT_EQ(config.args.balanced.resources, cpu_memory);
  EXPECT_EQ(config.args.topology_spread.defaulting, SpreadDefaulting::kSystem);
  EXPECT_TRUE(config.args.topology_spread.default_constraints.empty());
  EXPECT_EQ(config.args.inter_pod_affinity.hard_pod_affinity_weight, 1);
  EXPECT_FALSE(config.args.inter_pod_affinity.ignore_preferred_terms_of_existing_pods);
  EXPECT_EQ(config.args, PluginArgs{}) << "nothing else configured";
}

TEST(DefaultSchedulerProfile, EqualsAnyProfileWithoutPlugins) {
  // What load_scheduling_file gives a user's KubeSchedulerConfiguration that configures no plugins.
  const LoadedFile own = load_scheduling_file(
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n- schedulerName: my-scheduler\n");
  EXPECT_EQ(load_scheduling_file(default_scheduler_config_json()).effective_config, own.effective_config);
}

}  // namespace
}  // namespace kext
