// --config given kube-scheduler's own KubeSchedulerConfiguration (policy/config.h
// load_scheduling_file): one profile's plugins and pluginConfig, read as an ExtenderConfiguration's,
// --scheduler-name to pick the profile, strict decoding, and the extenders entries checked against the
// extender's flags (extender_entry_warnings).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "policy/config.h"

namespace kext {
namespace {

const std::string kHead = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

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

std::string error_of(const std::string& text, const std::string& scheduler_name = "") {
  try {
    load_scheduling_file(text, scheduler_name);
  } catch (const PolicyError& e) {
    return e.what();
  }
  return "";
}

TEST(SchedulerConfig, OneProfileIsReadAsAnExtenderConfiguration) {
  const std::string text = kHead + R"(parallelism: 16
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
      load_scheduling_file(kHead).effective_config,
      load_scheduling_file(R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})")
          .effective_config);
}

TEST(SchedulerConfig, SchedulerNamePicksTheProfile) {
  const std::string text =
      kHead + "profiles:\n  - schedulerName: gpu-scheduler\n" + kPlugins +
      "  - plugins: {score: {disabled: [{name: '*'}], enabled: [{name: ImageLocality}]}}\n";
  // The second profile has no schedulerName: kube-scheduler's default one.
  const LoadedFile second = load_scheduling_file(text, "default-scheduler");
  EXPECT_EQ(second.scores, 1u);
  EXPECT_NE(second.effective_config.find("ImageLocality"), std::string::npos);
  EXPECT_EQ(load_scheduling_file(text, "gpu-scheduler").effective_config,
            load_scheduling_file(kExtenderConfig).effective_config);

  const std::string several = error_of(text);
  EXPECT_NE(several.find("profiles: 2 profiles (gpu-scheduler, default-scheduler)"), std::string::npos)
      << several;
  EXPECT_NE(several.find("--scheduler-name"), std::string::npos) << several;
  const std::string unknown = error_of(text, "other");
  EXPECT_NE(unknown.find("no profile has schedulerName \"other\""), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("gpu-scheduler, default-scheduler"), std::string::npos) << unknown;
  // --scheduler-name means nothing to another kind of file.
  EXPECT_NE(error_of(kExtenderConfig, "gpu-scheduler").find("--scheduler-name"), std::string::npos);
}

TEST(SchedulerConfig, StrictDecodingNamesTheField) {
  struct Case {
    std::string text;
    std::string want;
  };
  const std::vector<Case> cases = {
      {kHead + "paralelism: 3\n", "paralelism: unknown field"},
      {kHead + "profiles:\n- schedulerName: a\n  plugin: {}\n", "profiles[0].plugin: unknown field"},
      {kHead + "profiles:\n- plugins: {score: {enabled: [{name: Nope}]}}\n",
       "profiles[0].plugins.score.enabled[0].name: unknown score plugin \"Nope\""},
      {kHead + "profiles:\n- pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {typ: x}}}]\n",
       "profiles[0].pluginConfig[0].args.scoringStrategy.typ: unknown field"},
      {kHead + "profiles:\n- schedulerName: a\n- schedulerName: a\n",
       "profiles[1].schedulerName: duplicate profile \"a\""},
      {kHead + "extenders:\n- urlPrefix: http://x\n  nodeCacheCapabel: true\n",
       "extenders[0].nodeCacheCapabel: unknown field"},
      {kHead + "extenders:\n- nodeCacheCapable: yes\n", "extenders[0].nodeCacheCapable: must be a boolean"},
      {kHead + "extenders:\n- tlsConfig: {insecur: true}\n", "extenders[0].tlsConfig.insecur: unknown field"},
      {kHead + "extenders:\n- weight: 0\n", "extenders[0].weight"},
      {"apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
       "apiVersion: must be \"kubescheduler.config.k8s.io/v1\""},
      {"apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy\n",
       "kind: must be \"KubeSchedulerConfiguration\""},
  };
  for (const auto& c : cases) {
    const std::string err = error_of(c.text);
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

}  // namespace
}  // namespace kext
