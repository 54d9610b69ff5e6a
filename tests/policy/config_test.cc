// policy/config.cc: the ExtenderConfiguration file (strict decoding, defaults, args, write-back, the
// legacy Policy); kube-scheduler's own KubeSchedulerConfiguration (load_scheduling_file: one profile's
// plugins and pluginConfig, --scheduler-name to pick the profile, the extenders entries checked against
// the extender's flags); and the embedded default (default_scheduler_config_json), which must load as
// kube-scheduler 1.26's default profile as pkg/scheduler/apis/config/v1 writes it (default_plugins.go
// getDefaultPlugins, defaults.go SetDefaults_*Args), volume plugins aside.
#include "policy/config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace config_test {
namespace {

using testing::GiB;
using testing::make_node;
using testing::make_pod;
using testing::node_info;
using testing::node_ptrs;

const std::string kHead = R"("apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration")";

std::string cfg(const std::string& rest = "") { return "{" + kHead + (rest.empty() ? "" : "," + rest) + "}"; }

std::string error_of(const std::string& text) {
  try {
    load_scheduling_file(text);
  } catch (const PolicyError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, StrictDecodingNamesTheField) {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      // Unknown fields, at every depth.
      {cfg(R"("priorites":[])"), "priorites: unknown field"},
      {cfg(R"("plugins":{"score":{"enabled":[{"name":"ImageLocality"},{"name":"NodeAffinity"},{"nam":"X"}]}})"),
       "plugins.score.enabled[2].nam: unknown field"},
      {cfg(R"("plugins":{"preScore":{}})"), "plugins.preScore: unknown field"},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"typ":"MostAllocated"}}}])"),
       "pluginConfig[0].args.scoringStrategy.typ: unknown field"},
      // Field names are case-sensitive, as kube-scheduler's strict decoding.
      {cfg(R"("PluginConfig":[])"), "PluginConfig: unknown field"},
      {cfg(R"("parallelThreshold":1,"parallelThreshold":2)"), "parallelThreshold: duplicate field"},
      // Wrong types.
      {cfg(R"("parallelThreshold":"5")"), "parallelThreshold: must be an integer, got string"},
      {cfg(R"("parallelThreshold":5.5)"),
       "parallelThreshold: must be an integer, got number (not an integer)"},
      {cfg(R"("plugins":{"filter":{"enabled":{"name":"NodeName"}}})"),
       "plugins.filter.enabled: must be an array, got object"},
      {cfg(R"("alwaysCheckAllFilters":"yes")"), "alwaysCheckAllFilters: must be a boolean, got string"},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"ignoredResources":[7]}}])"),
       "pluginConfig[0].args.ignoredResources[0]: must be a string, got number"},
      // Unknown values.
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAlocated"}}}])"),
       "pluginConfig[0].args.scoringStrategy.type: unknown value \"MostAlocated\" (known: LeastAllocated, "
       "MostAllocated, RequestedToCapacityRatio)"},
      {cfg(R"("plugins":{"score":{"enabled":[{"name":"VolumeBinding"}]}})"),
       "plugins.score.enabled[0].name: unknown score plugin \"VolumeBinding\" (known: TaintToleration, "
       "NodeAffinity, NodeResourcesFit, PodTopologySpread, InterPodAffinity, "
       "NodeResourcesBalancedAllocation, "
       "ImageLocality, TargetLoadPacking, LoadVariationRiskBalancing, GPUShare)"},
      {cfg(R"("plugins":{"filter":{"disabled":[{"name":"VolumeZone"}]}})"),
       "plugins.filter.disabled[0].name: unknown filter plugin \"VolumeZone\" (known: NodeUnschedulable, "
       "NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, PodTopologySpread, "
       "InterPodAffinity, LoadAwareScheduling, GPUShare)"},
      {cfg(R"("plugins":{"score":{"enabled":[{"name":"InterPodAffinity","arithmetic":"v1.16"}]}})"),
       "plugins.score.enabled[0].arithmetic: \"v1.16\" for this pluginConfig: v1.16 arithmetic is offered "
       "for "
       "the plugins that replaced a v1.16 node-level priority only"},
      {cfg(R"("plugins":{"score":{"enabled":[{"name":"ImageLocality","arithmetic":"v1.15"}]}})"),
       "plugins.score.enabled[0].arithmetic: unknown value \"v1.15\" (known: current, v1.16)"},
      {cfg(R"("preemption":{"semantics":"v1.17"})"),
       "preemption.semantics: unknown value \"v1.17\" (known: current, v1.16)"},
      {cfg(R"("pluginConfig":[{"name":"VolumeBinding","args":{}}])"),
       "pluginConfig[0].name: unknown plugin \"VolumeBinding\" (args are read for: NodeResourcesFit, "
       "NodeResourcesBalancedAllocation, PodTopologySpread, InterPodAffinity, TargetLoadPacking, "
       "LoadVariationRiskBalancing, LoadAwareScheduling, GPUShare)"},
      {cfg(R"("pluginConfig":[{"name":"ImageLocality","args":{}}])"),
       "pluginConfig[0].name: the extender takes no args for ImageLocality"},
      {cfg(R"("pluginConfig":[{"name":"InterPodAffinity","args":{"hardPodAffinityWeight":101}}])"),
       "pluginConfig[0].args.hardPodAffinityWeight: must be in 0..100, got 101"},
      {cfg(R"("pluginConfig":[{"name":"InterPodAffinity","args":{"kind":"PodTopologySpreadArgs"}}])"),
       "pluginConfig[0].args.kind: must be \"InterPodAffinityArgs\", got \"PodTopologySpreadArgs\""},
      {cfg(R"("pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"Cluster"}}])"),
       "pluginConfig[0].args.defaultingType: must be \"System\" or \"List\", got \"Cluster\""},
      {cfg(R"("pluginConfig":[{"name":"PodTopologySpread","args":{"defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}]}}])"),
       "pluginConfig[0].args.defaultConstraints: must be empty when defaultingType is \"System\""},
      {cfg(R"("pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"List","defaultConstraints":[{"maxSkew":0,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}]}}])"),
       "pluginConfig[0].args.defaultConstraints[0].maxSkew: must be in 1..2147483647, got 0"},
      {cfg(R"("pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"whenUnsatisfiable":"ScheduleAnyway"}]}}])"),
       "pluginConfig[0].args.defaultConstraints[0].topologyKey: required"},
      {cfg(R"("pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"Sometimes"}]}}])"),
       "pluginConfig[0].args.defaultConstraints[0].whenUnsatisfiable: must be \"DoNotSchedule\" or "
       "\"ScheduleAnyway\""},
      {cfg(R"("pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway","labelSelector":{}}]}}])"),
       "pluginConfig[0].args.defaultConstraints[0].labelSelector: forbidden: default constraints deduce "
       "their selector"},
      {cfg(R"("pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"},{"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}]}}])"),
       "pluginConfig[0].args.defaultConstraints[1].topologyKey: duplicate {topologyKey, whenUnsatisfiable}"},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"kind":"NodeResourcesBalancedAllocationArgs"}}])"),
       "pluginConfig[0].args.kind: must be \"NodeResourcesFitArgs\", got "
       "\"NodeResourcesBalancedAllocationArgs\""},
      // Out of range.
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"resources":[{"name":"cpu","weight":101}]}}}])"),
       "pluginConfig[0].args.scoringStrategy.resources[0].weight: must be in 1..100, got 101"},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":11}]}}}}])"),
       "pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0].score: must be in 0..10, got "
       "11"},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":50,"score":1},{"utilization":50,"score":2}]}}}}])"),
       "pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: must be strictly "
       "increasing"},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"RequestedToCapacityRatio"}}}])"),
       "pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape: required (a non-empty array) "
       "for "
       "RequestedToCapacityRatio"},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesBalancedAllocation","args":{"resources":[{"name":"cpu","weight":2}]}}])"),
       "pluginConfig[0].args.resources[0].weight: must be in 1..1, got 2"},
      {cfg(R"("plugins":{"score":{"enabled":[{"name":"ImageLocality","weight":-1}]}})"),
       "plugins.score.enabled[0].weight: must be in 1..1000000, got -1"},
      {cfg(R"("preemption":{"maxCandidates":0})"),
       "preemption.maxCandidates: must be in 1..2147483647, got 0"},
      {cfg(R"("parallelThreshold":-1)"), "parallelThreshold: must be in 0..9223372036854775807, got -1"},
      {cfg(R"("parallelMinWorkMicroseconds":-1)"),
       "parallelMinWorkMicroseconds: must be in 0..3600000000, got -1"},
      {cfg(R"("parallelMinWorkMicroseconds":3600000001)"),
       "parallelMinWorkMicroseconds: must be in 0..3600000000, got 3600000001"},
      {R"({"kind":"Policy","parallelMinWorkMicroseconds":-5})",
       "parallelMinWorkMicroseconds: must be in 0..3600000000"},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"ignoredResourceGroups":["example.com/gpu"]}}])"),
       "pluginConfig[0].args.ignoredResourceGroups[0]: must be a domain without '/', got "
       "\"example.com/gpu\""},
      // Gang scheduling's topology levels: node label keys, none twice.
      {cfg(R"("gang":{"levels":["rack"]})"), "gang.levels: unknown field"},
      {cfg(R"("gang":["rack"])"), "gang: must be an object, got array"},
      {cfg(R"("gang":{"topologyLevels":"rack"})"), "gang.topologyLevels: must be an array, got string"},
      {cfg(R"("gang":{"topologyLevels":["rack",7]})"),
       "gang.topologyLevels[1]: must be a string, got number"},
      {cfg(R"("gang":{"topologyLevels":[""]})"), "gang.topologyLevels[0]: must not be empty"},
      {cfg(R"("gang":{"topologyLevels":["example.com/block","rack number"]})"),
       "gang.topologyLevels[1]: \"rack number\" is not a node label key: name part must consist of "
       "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"},
      {cfg(R"("gang":{"topologyLevels":["Example.com/rack"]})"),
       "gang.topologyLevels[0]: \"Example.com/rack\" is not a node label key: prefix part must be a "
       "lowercase RFC 1123 subdomain: lowercase alphanumeric characters, '-' or '.', starting and ending "
       "with an alphanumeric character, at most 253 characters"},
      {cfg(R"("gang":{"topologyLevels":["block","rack","block"]})"),
       "gang.topologyLevels[2]: duplicate level \"block\""},
      // Duplicates and what cannot be said.
      {cfg(R"("plugins":{"score":{"enabled":[{"name":"ImageLocality"},{"name":"ImageLocality"}]}})"),
       "plugins.score.enabled[1].name: duplicate plugin \"ImageLocality\""},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit"},{"name":"NodeResourcesFit"}])"),
       "pluginConfig[1].name: duplicate pluginConfig for \"NodeResourcesFit\""},
      {cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"resources":[{"name":"cpu"}]}}}],
              "plugins":{"score":{"enabled":[{"name":"NodeResourcesFit","arithmetic":"v1.16"}]}})"),
       "plugins.score.enabled[0].arithmetic: \"v1.16\" for this pluginConfig: v1.16 LeastRequestedPriority "
       "and "
       "MostRequestedPriority score cpu and memory with equal weights only"},
      {cfg(R"("plugins":{"filter":{"disabled":[{"name":"*"}]},"score":{"disabled":[{"name":"*"}]}})"),
       "plugins: enables no filter and no score plugin"},
      {R"({"apiVersion":"kube-extender.io/v1","kind":"ExtenderConfiguration"})",
       "apiVersion: must be \"kube-extender.io/v1alpha1\", got \"kube-extender.io/v1\""},
      {R"({"apiVersion":"kube-extender.io/v1alpha1"})", "kind: required (\"ExtenderConfiguration\")"},
      {R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"Policy"})",
       "kind: must be \"ExtenderConfiguration\", got \"Policy\""},
      // The legacy Policy is strict too now: a misspelt key used to load the default priorities.
      {R"({"kind":"Policy","priorites":[{"name":"LeastRequestedPriority","weight":1}]})",
       "priorites: unknown field (known: kind, apiVersion, predicates, priorities, alwaysCheckAllPredicates, "
       "preemption, parallelThreshold, parallelMinWorkMicroseconds)"},
      {R"({"kind":"Policy","predicates":[{"name":"PodFitsHost","argument":{}}]})",
       "predicates[0].argument: unknown field (known: name)"},
      {R"({"kind":"Policy","predicates":[{"name":"NodeName"}]})",
       "predicates[0].name: unknown predicate \"NodeName\" (known: CheckNodeUnschedulable, PodFitsHost, "
       "MatchNodeSelector, PodFitsResources, PodToleratesNodeTaints, PodFitsHostPorts)"},
  };
  for (const auto& c : cases) EXPECT_EQ(error_of(c.text), c.want) << c.text;
}

TEST(Config, DefaultsAreKubeSchedulersPluginsMergedWithTheFile) {
  const Config c = parse_config(cfg());
  std::vector<std::string> filters, scores;
  for (const auto& f : c.filters) filters.push_back(f.name);
  // pkg/scheduler/apis/config/v1/default_plugins.go getDefaultPlugins, volume plugins aside.
  EXPECT_EQ(filters, (std::vector<std::string>{"NodeUnschedulable", "NodeName", "TaintToleration",
                                               "NodeAffinity", "NodePorts", "NodeResourcesFit",
                                               "PodTopologySpread", "InterPodAffinity"}));
  ASSERT_EQ(c.scores.size(), 7u);
  EXPECT_EQ(c.scores[0], (PluginEntry{"TaintToleration", 3, Arithmetic::kCurrent}));
  EXPECT_EQ(c.scores[1], (PluginEntry{"NodeAffinity", 2, Arithmetic::kCurrent}));
  EXPECT_EQ(c.scores[2], (PluginEntry{"NodeResourcesFit", 1, Arithmetic::kCurrent}));
  EXPECT_EQ(c.scores[3], (PluginEntry{"PodTopologySpread", 2, Arithmetic::kCurrent}));
  EXPECT_EQ(c.scores[4], (PluginEntry{"InterPodAffinity", 2, Arithmetic::kCurrent}));
  EXPECT_EQ(c.args, PluginArgs{});

  // mergePluginSet: a default named in enabled is replaced in place, a disabled one dropped, the
  // others appended; weight 0 counts as 1.
  const Config m = parse_config(cfg(R"("plugins":{"score":{"disabled":[{"name":"ImageLocality"}],
      "enabled":[{"name":"NodeResourcesFit","weight":5},{"name":"TaintToleration","weight":0}]}})"));
  ASSERT_EQ(m.scores.size(), 6u);
  EXPECT_EQ(m.scores[0], (PluginEntry{"TaintToleration", 1, Arithmetic::kCurrent}));
  EXPECT_EQ(m.scores[2], (PluginEntry{"NodeResourcesFit", 5, Arithmetic::kCurrent}));
  EXPECT_EQ(m.scores[5].name, "NodeResourcesBalancedAllocation");

  const Config star = parse_config(cfg(R"("plugins":{"filter":{"disabled":[{"name":"*"}],
      "enabled":[{"name":"NodeResourcesFit","weight":7}]}})"));
  ASSERT_EQ(star.filters.size(), 1u);
  EXPECT_EQ(star.filters[0], (PluginEntry{"NodeResourcesFit", 1, Arithmetic::kCurrent}));
}

// PodTopologySpreadArgs and InterPodAffinityArgs as kube-scheduler takes them, and --write-config's
// form of them reading back to the same arguments.
TEST(Config, SpreadAndAffinityArgsReadAndWriteBack) {
  const Config c = parse_config(cfg(R"("pluginConfig":[
    {"name":"PodTopologySpread","args":{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"PodTopologySpreadArgs",
      "defaultingType":"List","defaultConstraints":[
        {"maxSkew":2,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule"},
        {"maxSkew":4,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"ScheduleAnyway","matchLabelKeys":["pod-template-hash"]}]}},
    {"name":"InterPodAffinity","args":{"hardPodAffinityWeight":7,"ignorePreferredTermsOfExistingPods":true}}])"));
  const TopologySpreadArgs& s = c.args.topology_spread;
  EXPECT_EQ(s.defaulting, SpreadDefaulting::kList);
  ASSERT_EQ(s.default_constraints.size(), 2u);
  EXPECT_EQ(s.default_constraints[0].max_skew, 2);
  EXPECT_EQ(s.default_constraints[0].topology_key, "topology.kubernetes.io/zone");
  EXPECT_EQ(s.default_constraints[0].when_unsatisfiable, "DoNotSchedule");
  EXPECT_EQ(s.default_constraints[1].match_label_keys, std::vector<std::string>{"pod-template-hash"});
  EXPECT_EQ(c.args.inter_pod_affinity.hard_pod_affinity_weight, 7);
  EXPECT_TRUE(c.args.inter_pod_affinity.ignore_preferred_terms_of_existing_pods);
  EXPECT_EQ(parse_config(config_to_json(c, false)).args, c.args);

  // The defaults: System spreading, weight 1, existing pods' preferred terms counted.
  const Config d = parse_config(cfg());
  EXPECT_EQ(d.args.topology_spread.defaulting, SpreadDefaulting::kSystem);
  EXPECT_TRUE(d.args.topology_spread.default_constraints.empty());
  EXPECT_EQ(d.args.inter_pod_affinity, InterPodAffinityArgs{});
  EXPECT_EQ(parse_config(config_to_json(d, true)).args, d.args);
}

TEST(Config, PluginConfigArgsCopiedFromKubeScheduler) {
  // A profiles[].pluginConfig entry as kube-scheduler takes it, apiVersion and kind included.
  const Config c = parse_config(cfg(R"("pluginConfig":[
    {"name":"NodeResourcesFit","args":{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"NodeResourcesFitArgs",
      "ignoredResources":["example.com/foo"],"ignoredResourceGroups":["example.org"],
      "scoringStrategy":{"type":"RequestedToCapacityRatio","resources":[{"name":"cpu","weight":3},{"name":"example.com/gpu"}],
        "requestedToCapacityRatio":{"shape":[{"utilization":0,"score":10},{"utilization":100,"score":0}]}}}},
    {"name":"NodeResourcesBalancedAllocation","args":{"resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1},{"name":"example.com/gpu","weight":1}]}}])"));
  EXPECT_EQ(c.args.fit_filter.ignored_resources, std::vector<std::string>{"example.com/foo"});
  EXPECT_EQ(c.args.fit_filter.ignored_resource_groups, std::vector<std::string>{"example.org"});
  EXPECT_EQ(c.args.fit_scoring.type, ScoringStrategyType::kRequestedToCapacityRatio);
  EXPECT_EQ(c.args.fit_scoring.resources, (std::vector<ResourceWeight>{{"cpu", 3}, {"example.com/gpu", 1}}));
  EXPECT_EQ(c.args.fit_scoring.shape, (std::vector<UtilizationShapePoint>{{0, 10}, {100, 0}}));
  EXPECT_EQ(c.args.balanced.resources.size(), 3u);
}

TEST(Config, WriteConfigRoundTrips) {
  const std::vector<std::string> files = {
      std::string(default_config_json()),
      cfg(),
      cfg(R"("plugins":{"score":{"enabled":[{"name":"NodeResourcesFit","weight":4}]}},
             "pluginConfig":[{"name":"NodeResourcesFit","args":{"ignoredResources":["example.com/foo"],
               "scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}}}],
             "alwaysCheckAllFilters":true,"preemption":{"semantics":"v1.16","maxCandidates":3},"parallelThreshold":9,
             "parallelMinWorkMicroseconds":250,
             "gang":{"topologyLevels":["example.com/block","example.com/rack","kubernetes.io/hostname"]})"),
      cfg(R"("gang":{"topologyLevels":["rack"]})"),
      cfg(R"("gang":{})"),
      // The load-aware plugins, enabled with args other than their defaults.
      cfg(R"("plugins":{"filter":{"enabled":[{"name":"LoadAwareScheduling"}]},
             "score":{"enabled":[{"name":"TargetLoadPacking"},{"name":"LoadVariationRiskBalancing","weight":2}]}},
             "pluginConfig":[{"name":"TargetLoadPacking","args":{"targetUtilization":60,"defaultRequests":{"cpu":"500m"},
               "defaultRequestsMultiplier":"1.25"}},
               {"name":"LoadVariationRiskBalancing","args":{"safeVarianceMargin":0.5,"safeVarianceSensitivity":3}},
               {"name":"LoadAwareScheduling","args":{"usageThresholds":{"cpu":70,"memory":0}}}])"),
      // Found by tests/fuzz (policy): a name holding an escaped NUL was written up to the NUL only.
      cfg(R"("plugins":{"score":{"enabled":[{"name":"NodeResourcesFit","weight":4}]}},
             "pluginConfig":[{"name":"NodeResourcesFit","args":{"ignoredResources":["a\u0000b"],
               "ignoredResourceGroups":["c\u0000d"],
               "scoringStrategy":{"type":"RequestedToCapacityRatio","resources":[{"name":"cpu","weight":2},
                 {"name":"examp\u0000/gpu","weight":3}],
                 "requestedToCapacityRatio":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}}}])"),
  };
  for (const auto& f : files) {
    const Config c = parse_config(f);
    const std::string written = config_to_json(c);
    EXPECT_EQ(parse_config(written), c) << written;
    EXPECT_EQ(parse_config(config_to_json(c, true)), c);
    // Written once more, the same text: nothing depends on defaults the writer left out.
    EXPECT_EQ(config_to_json(parse_config(written)), written);
  }
  EXPECT_EQ(parse_config(effective_config_json(load_scheduling_file(default_config_json()))),
            parse_config(default_config_json()));
}

// The work floor reaches both loops that can go parallel: the engine's and preemption's dry runs.
TEST(Config, ParallelMinWorkReachesTheEngineAndPreemption) {
  const Profile set = compile(parse_config(cfg(R"("parallelMinWorkMicroseconds":250)")));
  EXPECT_EQ(set.engine.options().parallel_min_work_ns, 250'000u);
  EXPECT_EQ(set.preemption.select.parallel.min_work_ns, 250'000u);
  const Profile unset = compile(parse_config(cfg()));
  EXPECT_EQ(unset.engine.options().parallel_min_work_ns, kDefaultParallelMinWorkNs);
  EXPECT_EQ(unset.preemption.select.parallel.min_work_ns, kDefaultParallelMinWorkNs);
  const Profile legacy = compile(parse_policy(R"({"kind":"Policy","parallelMinWorkMicroseconds":0})"));
  EXPECT_EQ(legacy.engine.options().parallel_min_work_ns, 0u);
  EXPECT_EQ(legacy.preemption.select.parallel.min_work_ns, 0u);
}

// gang.topologyLevels reach the profile that the extender's and extender-sim's gang scheduling run;
// every other kind of file has none.
TEST(Config, TopologyLevelsReachTheProfile) {
  struct Case {
    std::string text;
    std::vector<std::string> levels;
  };
  const std::vector<Case> cases = {
      {cfg(R"("gang":{"topologyLevels":["example.com/block","example.com/rack","kubernetes.io/hostname"]})"),
       {"example.com/block", "example.com/rack", "kubernetes.io/hostname"}},
      // As docs/configuration.md writes it.
      {"apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\n"
       "gang: {topologyLevels: [example.com/block, example.com/rack, kubernetes.io/hostname]}\n",
       {"example.com/block", "example.com/rack", "kubernetes.io/hostname"}},
      {cfg(R"("gang":{"topologyLevels":null})"), {}},
      {cfg(R"("gang":{})"), {}},
      {cfg(), {}},
      {std::string(default_config_json()), {}},
      {std::string(default_scheduler_config_json()), {}},
      {R"({"kind":"Policy","predicates":[{"name":"PodFitsResources"}]})", {}},
  };
  for (const Case& c : cases) {
    const LoadedFile loaded = load_scheduling_file(c.text);
    EXPECT_EQ(loaded.profile.topology_levels, c.levels) << c.text;
    if (!loaded.effective_config.empty()) {
      EXPECT_EQ(parse_config(loaded.effective_config).topology_levels, c.levels) << c.text;
    }
  }
}

TEST(Config, ParsesTheDomToo) {
  rapidjson::Document doc;
  doc.Parse(cfg(R"("parallelThreshold":3)").c_str());
  EXPECT_EQ(parse_config(doc).parallel_threshold, 3);
}

// Filter statuses and reply scores of two profiles over the same pods and nodes.
void expect_same_results(const Profile& a, const Profile& b) {
  Node tainted = make_node("tainted", 4000, 8 * GiB);
  tainted.taints = {{"x", "", "PreferNoSchedule"}};
  Node cordoned = make_node("cordoned", 4000, 8 * GiB);
  cordoned.unschedulable = true;
  const std::vector<NodeInfo> nodes = {
      node_info(make_node("A", 4000, 8 * GiB), {make_pod("a", 1640, 3 * GiB)}),
      node_info(make_node("B", 4000, 8 * GiB), {make_pod("b", 3000, GiB)}),
      node_info(make_node("small", 500, GiB)),
      node_info(tainted, {make_pod("t", 200, 5 * GiB)}),
      node_info(cordoned),
  };
  for (const Pod& pod : {make_pod("p", 500, GiB), make_pod("q", 0, 0), make_pod("big", 3500, 2 * GiB)}) {
    const PodContext ctx(pod);
    const auto fa = a.engine.filter(ctx, node_ptrs(nodes));
    const auto fb = b.engine.filter(ctx, node_ptrs(nodes));
    ASSERT_EQ(fa.size(), fb.size());
    for (size_t i = 0; i < fa.size(); ++i) {
      EXPECT_EQ(fa[i].code, fb[i].code) << pod.name << " on " << nodes[i].name();
      EXPECT_EQ(fa[i].reasons, fb[i].reasons) << pod.name << " on " << nodes[i].name();
    }
    const ScoreMatrix sa = a.engine.score(ctx, node_ptrs(nodes));
    const ScoreMatrix sb = b.engine.score(ctx, node_ptrs(nodes));
    EXPECT_EQ(sa.reduced, sb.reduced) << pod.name;
    EXPECT_EQ(sa.combined, sb.combined) << pod.name;
  }
  EXPECT_EQ(a.preemption.max_candidates, b.preemption.max_candidates);
  EXPECT_EQ(a.preemption.select.semantics, b.preemption.select.semantics);
  EXPECT_EQ(a.engine.options().parallel_threshold, b.engine.options().parallel_threshold);
  EXPECT_EQ(a.engine.options().always_check_all_predicates, b.engine.options().always_check_all_predicates);
}

TEST(Config, EmbeddedDefaultRunsTodaysDefaultPolicy) {
  const Policy legacy = parse_policy(default_policy_json());
  const Config modern = parse_config(default_config_json());
  EXPECT_EQ(config_from_policy(legacy).config, modern);
  expect_same_results(compile(legacy), compile(modern));
  // The default's scores run v1.16 arithmetic under the plugin names the file gives them (decision logs,
  // metrics), as --write-config writes them; the legacy Policy's keep the legacy names.
  const Profile p = compile(modern);
  ASSERT_EQ(p.engine.scores().size(), 5u);
  EXPECT_EQ(p.engine.scores()[0].plugin->name(), modern.scores[0].name);
  EXPECT_EQ(p.engine.scores()[0].plugin->name(), "NodeResourcesFit");
  EXPECT_EQ(compile(legacy).engine.scores()[0].plugin->name(), "LeastRequestedPriority");
  EXPECT_EQ(p.engine.filters()[0]->name(), "NodeUnschedulable");
}

TEST(Config, LegacyPolicyMapsToItsPlugins) {
  struct Case {
    std::string priority;
    std::string argument;
    std::string plugin;
    ScoringStrategyType strategy = ScoringStrategyType::kLeastAllocated;
  };
  const std::vector<Case> cases = {
      {"LeastRequestedPriority", "", "NodeResourcesFit"},
      {"MostRequestedPriority", "", "NodeResourcesFit", ScoringStrategyType::kMostAllocated},
      {"RequestedToCapacityRatioPriority",
       R"(,"argument":{"requestedToCapacityRatioArguments":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}],"resources":[{"name":"cpu","weight":2}]}})",
       "NodeResourcesFit", ScoringStrategyType::kRequestedToCapacityRatio},
      {"BalancedResourceAllocation", "", "NodeResourcesBalancedAllocation"},
      {"NodeAffinityPriority", "", "NodeAffinity"},
      {"TaintTolerationPriority", "", "TaintToleration"},
      {"ImageLocalityPriority", "", "ImageLocality"},
  };
  for (const auto& c : cases) {
    const std::string text = R"({"kind":"Policy","alwaysCheckAllPredicates":true,"parallelThreshold":3,
        "preemption":{"semantics":"v1.16","maxCandidates":2},
        "predicates":[{"name":"PodToleratesNodeTaints"},{"name":"PodFitsResources"},{"name":"CheckNodeUnschedulable"}],
        "priorities":[{"name":")" +
                             c.priority + R"(","weight":3)" + c.argument + "}]}";
    const Policy policy = parse_policy(text);
    const ConfigFromPolicy m = config_from_policy(policy);
    ASSERT_TRUE(m.config.has_value()) << c.priority << ": " << m.why;
    ASSERT_EQ(m.config->scores.size(), 1u);
    EXPECT_EQ(m.config->scores[0], (PluginEntry{c.plugin, 3, Arithmetic::kV1_16})) << c.priority;
    EXPECT_EQ(m.config->args.fit_scoring.type, c.strategy) << c.priority;
    std::vector<std::string> filters;
    for (const auto& f : m.config->filters) filters.push_back(f.name);
    // The file's order: the engine runs them in the semantics' order (filter_rank).
    EXPECT_EQ(filters,
              (std::vector<std::string>{"TaintToleration", "NodeResourcesFit", "NodeUnschedulable"}));
    // The same results, and the notice's file loads into the same Config.
    expect_same_results(compile(policy), compile(*m.config));
    const LoadedFile loaded = load_scheduling_file(text);
    const std::string prefix =
        "legacy Policy loaded with its v1.16 arithmetic; it equals this ExtenderConfiguration: ";
    ASSERT_EQ(loaded.notice.rfind(prefix, 0), 0u) << loaded.notice;
    EXPECT_EQ(loaded.notice.find('\n'), std::string::npos);
    EXPECT_EQ(parse_config(loaded.notice.substr(prefix.size())), *m.config);
    EXPECT_EQ(parse_config(loaded.effective_config), *m.config);
  }
  const ConfigFromPolicy rtcr = config_from_policy(parse_policy(R"({"priorities":[
      {"name":"RequestedToCapacityRatioPriority","weight":1,"argument":{"requestedToCapacityRatioArguments":{
        "shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}],"resources":[{"name":"cpu","weight":2}]}}}]})"));
  ASSERT_TRUE(rtcr.config.has_value());
  EXPECT_EQ(rtcr.config->args.fit_scoring.resources, (std::vector<ResourceWeight>{{"cpu", 2}}));
  EXPECT_EQ(rtcr.config->args.fit_scoring.shape, (std::vector<UtilizationShapePoint>{{0, 0}, {100, 10}}));
}

TEST(Config, LegacyPolicyWithTwoFitStrategiesStillLoads) {
  const std::string text = R"({"priorities":[{"name":"LeastRequestedPriority","weight":1},
                                             {"name":"MostRequestedPriority","weight":1}]})";
  const ConfigFromPolicy m = config_from_policy(parse_policy(text));
  EXPECT_FALSE(m.config.has_value());
  EXPECT_EQ(m.why,
            "LeastRequestedPriority and MostRequestedPriority are both NodeResourcesFit scoring strategies, "
            "which one "
            "file cannot configure twice");
  const LoadedFile loaded = load_scheduling_file(text);
  EXPECT_EQ(loaded.scores, 2u);
  EXPECT_NE(loaded.notice.find("no single ExtenderConfiguration equals it"), std::string::npos);
  EXPECT_TRUE(loaded.effective_config.empty());
  EXPECT_THROW(effective_config_json(loaded), PolicyError);
}

TEST(Config, LegacyPolicyBeyondTheNewFormatsBoundsStillLoads) {
  const std::string text = R"({"priorities":[{"name":"RequestedToCapacityRatioPriority","weight":1,
      "argument":{"requestedToCapacityRatioArguments":{"shape":[{"utilization":0,"score":0}],
      "resources":[{"name":"cpu","weight":500}]}}}]})";
  const ConfigFromPolicy m = config_from_policy(parse_policy(text));
  EXPECT_FALSE(m.config.has_value());
  EXPECT_EQ(m.why,
            "the new format refuses it: pluginConfig[0].args.scoringStrategy.resources[0].weight: must be in "
            "1..100, "
            "got 500");
  EXPECT_EQ(load_scheduling_file(text).scores, 1u);
}

TEST(Config, ModernFileHasNoNotice) {
  const LoadedFile f = load_scheduling_file(cfg());
  EXPECT_TRUE(f.notice.empty());
  EXPECT_EQ(f.filters, 8u);
  EXPECT_EQ(f.scores, 7u);
}

TEST(Config, ScoresReachTheWireDividedBy10) {
  // One plugin at weight 1: the reply score is its 0..100 score / 10. TaintToleration over counts
  // 0, 1, 3 is 100, 67, 0 -> 10, 6, 0 (the v1.16 arithmetic gives 10, 7, 0).
  for (auto [arithmetic, want] : {std::pair{"current", std::vector<int64_t>{10, 6, 0}},
                                  std::pair{"v1.16", std::vector<int64_t>{10, 7, 0}}}) {
    const Profile p = compile(parse_config(cfg(R"("plugins":{"score":{"disabled":[{"name":"*"}],
        "enabled":[{"name":"TaintToleration","arithmetic":")" +
                                               std::string(arithmetic) + R"("}]}})")));
    std::vector<NodeInfo> nodes;
    for (int count : {0, 1, 3}) {
      Node n = make_node("n" + std::to_string(count), 1000, GiB);
      for (int i = 0; i < count; ++i) n.taints.push_back({"k" + std::to_string(i), "", "PreferNoSchedule"});
      nodes.push_back(node_info(n));
    }
    const Pod pod = make_pod("p", 100, 0);
    EXPECT_EQ(p.engine.score(PodContext(pod), node_ptrs(nodes)).combined, want) << arithmetic;
  }
}

TEST(Config, IgnoredResourcesAreNotChecked) {
  Pod pod = make_pod("p", 100, 0);
  pod.containers[0].requests.set_scalar("example.com/gpu", 1);
  pod.containers[0].requests.set_scalar("example.org/fpga", 1);
  const std::vector<NodeInfo> nodes = {node_info(make_node("n", 1000, GiB))};
  auto reasons = [&](const std::string& args) {
    const Profile p =
        compile(parse_config(cfg(R"("pluginConfig":[{"name":"NodeResourcesFit","args":)" + args + "}]")));
    return p.engine.filter(PodContext(pod), node_ptrs(nodes))[0].reasons;
  };
  EXPECT_EQ(reasons("{}"),
            (std::vector<std::string>{"Insufficient example.com/gpu", "Insufficient example.org/fpga"}));
  EXPECT_EQ(reasons(R"({"ignoredResources":["example.com/gpu"]})"),
            std::vector<std::string>{"Insufficient example.org/fpga"});
  EXPECT_EQ(reasons(R"({"ignoredResourceGroups":["example.org"]})"),
            std::vector<std::string>{"Insufficient example.com/gpu"});
  EXPECT_TRUE(
      reasons(R"({"ignoredResources":["example.com/gpu"],"ignoredResourceGroups":["example.org"]})").empty());
}

// --config takes YAML as well as JSON: the same file either way, YAML's errors with line and column.
TEST(Config, YamlAndJsonFilesAreTheSameConfiguration) {
  const std::string json = R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration",
    "plugins":{"score":{"enabled":[{"name":"NodeResourcesFit","weight":2}]}},
    "pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAllocated",
      "resources":[{"name":"cpu","weight":3},{"name":"memory","weight":1}]}}}],
    "alwaysCheckAllFilters":true,"preemption":{"semantics":"v1.16","maxCandidates":2}})";
  const std::string yaml = R"(# as an operator writes it
apiVersion: kube-extender.io/v1alpha1
kind: ExtenderConfiguration
plugins:
  score:
    enabled:
    - name: NodeResourcesFit
      weight: 2
pluginConfig:
- name: NodeResourcesFit
  args:
    scoringStrategy:
      type: MostAllocated
      resources:
      - {name: cpu, weight: 3}
      - {name: memory, weight: 1}
alwaysCheckAllFilters: True
preemption: {semantics: v1.16, maxCandidates: 2}
)";
  const LoadedFile from_yaml = load_scheduling_file(yaml);
  EXPECT_TRUE(from_yaml.notice.empty());
  EXPECT_EQ(from_yaml.effective_config, load_scheduling_file(json).effective_config);
  EXPECT_NE(from_yaml.effective_config, load_scheduling_file(default_config_json()).effective_config);

  // Strict in YAML too: the field's path; bad YAML: its line and column.
  EXPECT_NE(
      error_of("apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\nparallelTreshold: 3\n")
          .find("parallelTreshold"),
      std::string::npos);
  EXPECT_NE(error_of("apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\nplugins: [\n")
                .find("line "),
            std::string::npos);
  // `yes` is a string in YAML 1.2: a wrong type, not a silent true.
  EXPECT_NE(
      error_of(
          "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\nalwaysCheckAllFilters: yes\n")
          .find("alwaysCheckAllFilters"),
      std::string::npos);

  // A legacy Policy written as YAML loads as the same Policy's JSON does.
  const LoadedFile legacy = load_scheduling_file(
      "kind: Policy\napiVersion: v1\npredicates: [{name: PodFitsResources}]\n"
      "priorities: [{name: LeastRequestedPriority, weight: 1}]\n");
  const LoadedFile legacy_json = load_scheduling_file(
      R"({"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsResources"}],
          "priorities":[{"name":"LeastRequestedPriority","weight":1}]})");
  EXPECT_FALSE(legacy.notice.empty());
  EXPECT_EQ(legacy.notice, legacy_json.notice);
  EXPECT_EQ(legacy.effective_config, legacy_json.effective_config);
}

// A key with control characters is named with escapes: a leading "\u0000" once made the whole
// message empty to every C-string reader (tests/fuzz/regressions/policy/nul-key-empties-the-error).
TEST(Config, KeysWithControlCharactersAreNamedEscaped) {
  const std::string modern = error_of(
      R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration","\u0000parallelThreshold":1})");
  EXPECT_EQ(modern.find('\0'), std::string::npos);
  EXPECT_NE(modern.find(R"(\u0000parallelThreshold: unknown field)"), std::string::npos) << modern;
  const std::string legacy = error_of(R"({"kind":"Policy","pre\u001fdicates":[]})");
  EXPECT_NE(legacy.find(R"(pre\u001fdicates: unknown field)"), std::string::npos) << legacy;
}

const std::string kSchedulerHead =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

// The profile part of an ExtenderConfiguration, said both ways.
const std::string kPlugins = R"(
    plugins:
      score:
        enabled:
        - {name: NodeResourcesFit, weight: 2}
    pluginConfig:
    - name: NodeResourcesFit
      args:
        scoringStrategy:
          type: MostAllocated
          resources: [{name: cpu, weight: 3}]
)";
const std::string kExtenderConfig =
    R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration",
  "plugins":{"score":{"enabled":[{"name":"NodeResourcesFit","weight":2}]}},
  "pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAllocated",
    "resources":[{"name":"cpu","weight":3}]}}}]})";

std::string scheduler_config_error(const std::string& text, const std::string& scheduler_name = "") {
  try {
    load_scheduling_file(text, scheduler_name);
  } catch (const PolicyError& e) {
    return e.what();
  }
  return "";
}

TEST(SchedulerConfig, OneProfileIsReadAsAnExtenderConfiguration) {
  const std::string text = kSchedulerHead + R"(parallelism: 16
percentageOfNodesToScore: 50
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 10
enableProfiling: true
enableContentionProfiling: false
healthzBindAddress: 0.0.0.0:10251
metricsBindAddress: 0.0.0.0:10251
leaderElection: {leaderElect: true, resourceName: kube-scheduler}
clientConnection: {kubeconfig: /etc/kubernetes/scheduler.conf, qps: 50}
profiles:
  - schedulerName: my-scheduler
    percentageOfNodesToScore: 30)" +
                           kPlugins;
  const LoadedFile loaded = load_scheduling_file(text);
  EXPECT_EQ(loaded.effective_config, load_scheduling_file(kExtenderConfig).effective_config);
  EXPECT_NE(loaded.notice.find("my-scheduler"), std::string::npos) << loaded.notice;
  EXPECT_TRUE(loaded.extenders.empty());
  // The same profile picked by name, and a file in JSON.
  EXPECT_EQ(load_scheduling_file(text, "my-scheduler").effective_config, loaded.effective_config);
  const std::string json =
      R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration",
    "profiles":[{"plugins":{"score":{"enabled":[{"name":"NodeResourcesFit","weight":2}]}},
      "pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAllocated",
        "resources":[{"name":"cpu","weight":3}]}}}]}]})";
  EXPECT_EQ(load_scheduling_file(json).effective_config, loaded.effective_config);
  // No profiles: kube-scheduler's default one, whose plugins are the defaults.
  EXPECT_EQ(
      load_scheduling_file(kSchedulerHead).effective_config,
      load_scheduling_file(R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})")
          .effective_config);
}

TEST(SchedulerConfig, SchedulerNamePicksTheProfile) {
  const std::string text =
      kSchedulerHead + "profiles:\n  - schedulerName: gpu-scheduler\n" + kPlugins +
      "  - plugins: {score: {disabled: [{name: '*'}], enabled: [{name: ImageLocality}]}}\n";
  // The second profile has no schedulerName: kube-scheduler's default one.
  const LoadedFile second = load_scheduling_file(text, "default-scheduler");
  EXPECT_EQ(second.scores, 1u);
  EXPECT_NE(second.effective_config.find("ImageLocality"), std::string::npos);
  EXPECT_EQ(load_scheduling_file(text, "gpu-scheduler").effective_config,
            load_scheduling_file(kExtenderConfig).effective_config);

  const std::string several = scheduler_config_error(text);
  EXPECT_NE(several.find("profiles: 2 profiles (gpu-scheduler, default-scheduler)"), std::string::npos)
      << several;
  EXPECT_NE(several.find("--scheduler-name"), std::string::npos) << several;
  const std::string unknown = scheduler_config_error(text, "other");
  EXPECT_NE(unknown.find("no profile has schedulerName \"other\""), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("gpu-scheduler, default-scheduler"), std::string::npos) << unknown;
  // --scheduler-name means nothing to another kind of file.
  EXPECT_NE(scheduler_config_error(kExtenderConfig, "gpu-scheduler").find("--scheduler-name"),
            std::string::npos);
}

TEST(SchedulerConfig, StrictDecodingNamesTheField) {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {kSchedulerHead + "paralelism: 3\n", "paralelism: unknown field"},
      {kSchedulerHead + "profiles:\n- schedulerName: a\n  plugin: {}\n", "profiles[0].plugin: unknown field"},
      {kSchedulerHead + "profiles:\n- plugins: {score: {enabled: [{name: Nope}]}}\n",
       "profiles[0].plugins.score.enabled[0].name: unknown score plugin \"Nope\""},
      {kSchedulerHead +
           "profiles:\n- pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {typ: x}}}]\n",
       "profiles[0].pluginConfig[0].args.scoringStrategy.typ: unknown field"},
      {kSchedulerHead + "profiles:\n- schedulerName: a\n- schedulerName: a\n",
       "profiles[1].schedulerName: duplicate profile \"a\""},
      {kSchedulerHead + "extenders:\n- urlPrefix: http://x\n  nodeCacheCapabel: true\n",
       "extenders[0].nodeCacheCapabel: unknown field"},
      {kSchedulerHead + "extenders:\n- nodeCacheCapable: yes\n",
       "extenders[0].nodeCacheCapable: must be a boolean"},
      {kSchedulerHead + "extenders:\n- tlsConfig: {insecur: true}\n",
       "extenders[0].tlsConfig.insecur: unknown field"},
      {kSchedulerHead + "extenders:\n- weight: 0\n", "extenders[0].weight"},
      // The extender's own sections are not kube-scheduler's.
      {kSchedulerHead + "gang: {topologyLevels: [rack]}\n", "gang: unknown field"},
      {kSchedulerHead + "profiles:\n- gang: {topologyLevels: [rack]}\n", "profiles[0].gang: unknown field"},
      {"apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
       "apiVersion: must be \"kubescheduler.config.k8s.io/v1\""},
      {"apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n",
       "kind: must be \"KubeSchedulerConfiguration\""},
  };
  for (const auto& c : cases) {
    const std::string err = scheduler_config_error(c.text);
    EXPECT_NE(err.find(c.want), std::string::npos) << c.text << "\n gave: " << err;
  }
}

std::string read_example() {
  std::ifstream in(std::string(KEXT_SOURCE_DIR) + "/examples/kube-scheduler-config.yaml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SchedulerConfig, TheExampleLoads) {
  const std::string text = read_example();
  ASSERT_FALSE(text.empty());
  const LoadedFile loaded = load_scheduling_file(text);
  EXPECT_NE(loaded.effective_config.find("LeastAllocated"), std::string::npos);
  EXPECT_NE(loaded.effective_config.find("NodeResourcesBalancedAllocation"), std::string::npos);
  ASSERT_EQ(loaded.extenders.size(), 1u);
  const SchedulerExtender& e = loaded.extenders[0];
  EXPECT_EQ(e.url_prefix, "http://127.0.0.1:8888");
  EXPECT_EQ(e.filter_verb, "filter");
  EXPECT_EQ(e.prioritize_verb, "prioritize");
  EXPECT_TRUE(e.node_cache_capable);
  EXPECT_EQ(e.weight, 1);
  EXPECT_TRUE(loaded.scheduler_configuration);
  // Started as the example says (with cluster state, plain HTTP, no path prefix): nothing to warn about.
  EXPECT_TRUE(extender_entry_warnings(loaded.extenders, ExtenderSettings{true, false, false, ""}).empty());
}

TEST(SchedulerConfig, ExtendersEntriesThatDisagreeWithTheFlagsAreWarnings) {
  SchedulerExtender e;
  e.url_prefix = "http://127.0.0.1:8888/";
  const ExtenderSettings plain{true, false, false, ""};
  EXPECT_TRUE(extender_entry_warnings({e}, plain).empty());

  auto only = [](const std::vector<SchedulerExtender>& entries, const ExtenderSettings& s) {
    const std::vector<std::string> w = extender_entry_warnings(entries, s);
    EXPECT_EQ(w.size(), 1u);
    return w.empty() ? std::string() : w[0];
  };
  SchedulerExtender cache = e;
  cache.node_cache_capable = true;
  EXPECT_EQ(only({e, cache}, ExtenderSettings{false, false, false, ""}),
            "extenders[1].nodeCacheCapable: true, but this extender has no cluster state (--in-cluster, "
            "--kubeconfig, --api-server or --snapshot): every node will be \"not found\"");

  SchedulerExtender bind = e;
  bind.bind_verb = "bind";
  EXPECT_NE(only({bind}, plain).find("extenders[0].bindVerb: \"bind\", but --enable-bind is not given"),
            std::string::npos);
  EXPECT_TRUE(extender_entry_warnings({bind}, ExtenderSettings{true, true, false, ""}).empty());

  SchedulerExtender https = e;
  https.enable_https = true;
  https.url_prefix = "https://extender:8888";
  EXPECT_NE(only({https}, plain).find("extenders[0].enableHTTPS: true, but this extender serves plain HTTP"),
            std::string::npos);
  EXPECT_NE(only({e}, ExtenderSettings{true, false, true, ""}).find("extenders[0].enableHTTPS: false"),
            std::string::npos);
  EXPECT_TRUE(extender_entry_warnings({https}, ExtenderSettings{true, false, true, ""}).empty());

  SchedulerExtender prefixed = e;
  prefixed.url_prefix = "http://127.0.0.1:8888/scheduler";
  EXPECT_NE(only({prefixed}, plain)
                .find("extenders[0].urlPrefix: \"http://127.0.0.1:8888/scheduler\" has the "
                      "path \"/scheduler\", but --path-prefix is \"\""),
            std::string::npos);
  EXPECT_TRUE(
      extender_entry_warnings({prefixed}, ExtenderSettings{true, false, false, "/scheduler/"}).empty());
  EXPECT_NE(only({e}, ExtenderSettings{true, false, false, "/scheduler"}).find("extenders[0].urlPrefix"),
            std::string::npos);
}

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
}  // namespace config_test
}  // namespace kext
