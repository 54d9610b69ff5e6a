// policy/config.cc: the load-aware plugins' names and args (Trimaran's TargetLoadPacking and
// LoadVariationRiskBalancing, Koordinator's LoadAwareScheduling), strictly decoded, written back, and in
// no default profile.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "policy/config.h"

namespace kext {
namespace load_aware_config_test {
namespace {

const std::string kHead = R"("apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration")";

std::string cfg(const std::string& rest) { return "{" + kHead + "," + rest + "}"; }

std::string error_of(const std::string& text) {
  try {
    parse_config(text);
  } catch (const PolicyError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::vector<PluginEntry>& entries, std::string_view name) {
  return std::ranges::any_of(entries, [&](const PluginEntry& e) { return e.name == name; });
}

TEST(LoadAwareConfig, OffByDefault) {
  const Config c = parse_config(std::string(default_config_json()));
  EXPECT_FALSE(has(c.scores, "TargetLoadPacking"));
  EXPECT_FALSE(has(c.scores, "LoadVariationRiskBalancing"));
  EXPECT_FALSE(has(c.filters, "LoadAwareScheduling"));
  // kube-scheduler's default profile, as the extender embeds it.
  for (const std::string_view text : {default_config_json(), default_scheduler_config_json()}) {
    const LoadedFile loaded = load_scheduling_file(text);
    for (const auto& s : loaded.profile.engine.scores()) EXPECT_NE(s.plugin->name(), "TargetLoadPacking");
    for (const auto& s : loaded.profile.engine.scores())
      EXPECT_NE(s.plugin->name(), "LoadVariationRiskBalancing");
    for (const auto& f : loaded.profile.engine.filters()) EXPECT_NE(f->name(), "LoadAwareScheduling");
  }
  EXPECT_EQ(c.args.target_load_packing, TargetLoadPackingArgs{});
  EXPECT_EQ(c.args.load_variation, LoadVariationRiskBalancingArgs{});
  EXPECT_EQ(c.args.load_aware, LoadAwareSchedulingArgs{});
}

// A Trimaran and a Koordinator pluginConfig, as their users write them, load unchanged.
TEST(LoadAwareConfig, TrimaranAndKoordinatorArgsLoad) {
  const Config c = parse_config(cfg(R"("plugins":{
      "filter":{"enabled":[{"name":"LoadAwareScheduling"}]},
      "score":{"enabled":[{"name":"TargetLoadPacking","weight":3},{"name":"LoadVariationRiskBalancing"}]}},
    "pluginConfig":[
      {"name":"TargetLoadPacking","args":{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"TargetLoadPackingArgs",
        "targetUtilization":70,"defaultRequests":{"cpu":"2"},"defaultRequestsMultiplier":"2.5",
        "metricProvider":{"type":"Prometheus","address":"http://prometheus:9090","insecureSkipVerify":true},
        "watcherAddress":"http://load-watcher:2020"}},
      {"name":"LoadVariationRiskBalancing","args":{"kind":"LoadVariationRiskBalancingArgs",
        "safeVarianceMargin":1.5,"safeVarianceSensitivity":2,"metricProvider":{"type":"KubernetesMetricsServer"}}},
      {"name":"LoadAwareScheduling","args":{"apiVersion":"kubescheduler.config.k8s.io/v1beta3",
        "kind":"LoadAwareSchedulingArgs","usageThresholds":{"cpu":80}}}])"));
  EXPECT_TRUE(has(c.filters, "LoadAwareScheduling"));
  EXPECT_TRUE(has(c.scores, "TargetLoadPacking"));
  EXPECT_TRUE(has(c.scores, "LoadVariationRiskBalancing"));
  EXPECT_EQ(c.args.target_load_packing, (TargetLoadPackingArgs{70, 2000, 2.5}));
  EXPECT_EQ(c.args.load_variation, (LoadVariationRiskBalancingArgs{1.5, 2}));
  // A map given replaces Koordinator's defaults: memory has no threshold.
  EXPECT_EQ(c.args.load_aware, (LoadAwareSchedulingArgs{80, 0}));
  const std::string written = config_to_json(c);
  EXPECT_EQ(parse_config(written), c) << written;
  EXPECT_EQ(config_to_json(parse_config(written)), written);
  // The profile builds with them.
  const Profile p = compile(c);
  (void)p;
}

// A KubeSchedulerConfiguration profile as scheduler-plugins' Trimaran documentation writes one.
TEST(LoadAwareConfig, TrimaranSchedulerConfigurationLoads) {
  const LoadedFile loaded = load_scheduling_file(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: trimaran
  plugins:
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}]
      enabled: [{name: TargetLoadPacking}]
  pluginConfig:
  - name: TargetLoadPacking
    args:
      defaultRequests: {cpu: "2000m"}
      defaultRequestsMultiplier: "2"
      targetUtilization: 70
      metricProvider: {type: Prometheus, address: "http://prometheus-k8s.monitoring.svc.cluster.local:9090"}
)");
  bool found = false;
  for (const auto& s : loaded.profile.engine.scores())
    found = found || s.plugin->name() == "TargetLoadPacking";
  EXPECT_TRUE(found);
}

TEST(LoadAwareConfig, CpuQuantities) {
  for (const auto& [text, want] : std::vector<std::pair<std::string, int64_t>>{
           {R"("1500m")", 1500}, {R"("1.5")", 1500}, {"2", 2000}, {"0.25", 250}}) {
    const Config c = parse_config(cfg(
        R"("pluginConfig":[{"name":"TargetLoadPacking","args":{"defaultRequests":{"cpu":)" + text + "}}}]"));
    EXPECT_EQ(c.args.target_load_packing.default_requests_milli_cpu, want) << text;
  }
}

TEST(LoadAwareConfig, StrictDecodingNamesTheField) {
  struct Case {
    std::string text;
    std::string want;
  };
  auto pc = [](const std::string& name, const std::string& args) {
    return cfg(R"("pluginConfig":[{"name":")" + name + R"(","args":)" + args + "}]");
  };
  const std::vector<Case> cases = {
      {pc("TargetLoadPacking", R"({"targetUtilisation":50})"),
       "pluginConfig[0].args.targetUtilisation: unknown field"},
      {pc("TargetLoadPacking", R"({"targetUtilization":"50"})"),
       "pluginConfig[0].args.targetUtilization: must be an integer, got string"},
      {pc("TargetLoadPacking", R"({"targetUtilization":0})"),
       "pluginConfig[0].args.targetUtilization: must be in 1..100, got 0"},
      {pc("TargetLoadPacking", R"({"defaultRequestsMultiplier":"x1"})"),
       "pluginConfig[0].args.defaultRequestsMultiplier: must be a decimal at least 0, got \"x1\""},
      {pc("TargetLoadPacking", R"({"defaultRequestsMultiplier":1.5})"),
       "pluginConfig[0].args.defaultRequestsMultiplier: must be a string, got number (not an integer)"},
      {pc("TargetLoadPacking", R"({"defaultRequests":{"memory":"1Gi"}})"),
       "pluginConfig[0].args.defaultRequests.memory: only cpu is read (TargetLoadPacking predicts CPU)"},
      {pc("TargetLoadPacking", R"({"defaultRequests":{"cpu":"1Gi"}})"),
       "pluginConfig[0].args.defaultRequests.cpu: must be a CPU quantity such as \"1000m\" or \"1\""},
      {pc("TargetLoadPacking", R"({"metricProvider":{"typ":"Prometheus"}})"),
       "pluginConfig[0].args.metricProvider.typ: unknown field"},
      {pc("TargetLoadPacking", R"({"watcherAddress":5})"),
       "pluginConfig[0].args.watcherAddress: must be a string, got number"},
      {pc("TargetLoadPacking", R"({"kind":"LoadVariationRiskBalancingArgs"})"),
       "pluginConfig[0].args.kind: must be \"TargetLoadPackingArgs\", got "
       "\"LoadVariationRiskBalancingArgs\""},
      {pc("LoadVariationRiskBalancing", R"({"safeVarianceMargin":-1})"),
       "pluginConfig[0].args.safeVarianceMargin: must be a number at least 0"},
      {pc("LoadVariationRiskBalancing", R"({"safeVarianceSensitivity":"1"})"),
       "pluginConfig[0].args.safeVarianceSensitivity: must be a number, got string"},
      {pc("LoadAwareScheduling", R"({"usageThresholds":{"cpu":101}})"),
       "pluginConfig[0].args.usageThresholds.cpu: must be in 0..100, got 101"},
      {pc("LoadAwareScheduling", R"({"usageThresholds":{"gpu":50}})"),
       "pluginConfig[0].args.usageThresholds.gpu: unknown field"},
      {pc("LoadAwareScheduling", R"({"apiVersion":"v1"})"),
       "pluginConfig[0].args.apiVersion: must be \"kubescheduler.config.k8s.io/<version>\", got \"v1\""},
      {cfg(R"("plugins":{"score":{"enabled":[{"name":"LoadAwareScheduling"}]}})"),
       "plugins.score.enabled[0].name: unknown score plugin \"LoadAwareScheduling\""},
  };
  for (const Case& c : cases) {
    const std::string got = error_of(c.text);
    EXPECT_EQ(got.substr(0, c.want.size()), c.want) << c.text;
  }
}

}  // namespace
}  // namespace load_aware_config_test
}  // namespace kext
