// policy/default_profiles.cc: kube-scheduler's default profile per minor (v1 default_plugins.go),
// each change shown at its minor and the one before.
#include "policy/default_profiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "algorithms/catalogue.h"

namespace kext {
namespace default_profiles_test {
namespace {

std::vector<std::string> names(KubeVersion v) {
  std::vector<std::string> out;
  for (const DefaultPlugin& p : default_plugins(v)) out.emplace_back(p.name);
  return out;
}

const DefaultPlugin* find(const std::vector<DefaultPlugin>& plugins, std::string_view name) {
  auto it =
      std::find_if(plugins.begin(), plugins.end(), [&](const DefaultPlugin& p) { return p.name == name; });
  return it == plugins.end() ? nullptr : &*it;
}

TEST(DefaultProfiles, TheMinor126ListInUpstreamOrder) {
  EXPECT_EQ(
      names(KubeVersion{26}),
      (std::vector<std::string>{"PrioritySort",     "NodeUnschedulable",  "NodeName",
                                "TaintToleration",  "NodeAffinity",       "NodePorts",
                                "NodeResourcesFit", "VolumeRestrictions", "EBSLimits",
                                "GCEPDLimits",      "NodeVolumeLimits",   "AzureDiskLimits",
                                "VolumeBinding",    "VolumeZone",         "PodTopologySpread",
                                "InterPodAffinity", "DefaultPreemption",  "NodeResourcesBalancedAllocation",
                                "ImageLocality",    "DefaultBinder"}));
}

TEST(DefaultProfiles, TheMinor136ListInUpstreamOrder) {
  EXPECT_EQ(names(KubeVersion{36}), (std::vector<std::string>{"SchedulingGates",
                                                              "PrioritySort",
                                                              "NodeUnschedulable",
                                                              "NodeName",
                                                              "TaintToleration",
                                                              "NodeAffinity",
                                                              "NodePorts",
                                                              "NodeResourcesFit",
                                                              "VolumeRestrictions",
                                                              "NodeVolumeLimits",
                                                              "VolumeBinding",
                                                              "VolumeZone",
                                                              "PodTopologySpread",
                                                              "InterPodAffinity",
                                                              "DynamicResources",
                                                              "DefaultPreemption",
                                                              "NodeResourcesBalancedAllocation",
                                                              "ImageLocality",
                                                              "DefaultBinder",
                                                              "NodeDeclaredFeatures"}));
}

// One row per change: the plugin, the minor that changed it, and what it is before and from then on
// (-1: not in the list; otherwise its weight).
struct Change {
  std::string_view plugin;
  int minor;
  int before;
  int from;
};

TEST(DefaultProfiles, EachChangeAtItsMinorAndNotBefore) {
  const Change changes[] = {
      {"SchedulingGates", 27, -1, 0},      // PodSchedulingReadiness beta, on
      {"EBSLimits", 31, 0, -1},            // cloud volume limits out of the default
      {"GCEPDLimits", 31, 0, -1},          //
      {"AzureDiskLimits", 31, 0, -1},      //
      {"DynamicResources", 34, -1, 0},     // DynamicResourceAllocation GA, on
      {"DynamicResources", 35, 0, 2},      // score weight 2
      {"NodeDeclaredFeatures", 36, -1, 0}  // beta, on
  };
  for (const Change& c : changes) {
    const auto weight_at = [&](int minor) {
      const std::vector<DefaultPlugin> plugins = default_plugins(KubeVersion{minor});
      const DefaultPlugin* p = find(plugins, c.plugin);
      return p == nullptr ? -1 : p->weight;
    };
    EXPECT_EQ(weight_at(c.minor - 1), c.before) << c.plugin << " at 1." << c.minor - 1;
    EXPECT_EQ(weight_at(c.minor), c.from) << c.plugin << " at 1." << c.minor;
  }
}

// The plugins this project runs are the same at every minor, with the weights the catalogue gives:
// every change above is to a plugin that is neutral for the pods placed here.
TEST(DefaultProfiles, ThePluginsRunAreTheSameAtEveryMinor) {
  for (int minor = KubeVersion::kOldestMinor; minor <= KubeVersion::kNewestMinor; ++minor) {
    const KubeVersion v{minor};
    std::vector<PluginEntry> filters;
    for (std::string_view n : plugin_filter_names())
      filters.push_back({std::string(n), 1, Arithmetic::kCurrent});
    std::vector<PluginEntry> scores;
    for (std::string_view n : plugin_score_names())
      scores.push_back({std::string(n), plugin_default_weight(n), Arithmetic::kCurrent});
    EXPECT_EQ(default_plugin_entries(v, false), filters) << v.str();
    EXPECT_EQ(default_plugin_entries(v, true), scores) << v.str();
    const std::vector<std::string_view> filter_names = plugin_filter_names();
    for (const DefaultPlugin& p : default_plugins(v)) {
      const bool implemented =
          std::find(filter_names.begin(), filter_names.end(), p.name) != filter_names.end() ||
          plugin_default_weight(p.name) != 0;
      EXPECT_EQ(p.runs(), implemented) << p.name << " at " << v.str();
    }
  }
}

TEST(DefaultProfiles, ALoadedDefaultProfileRunsTheMinorsPlugins) {
  Config c = parse_config(R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})");
  EXPECT_EQ(c.filters, default_plugin_entries(c.args.version, false));
  EXPECT_EQ(c.scores, default_plugin_entries(c.args.version, true));
}

}  // namespace
}  // namespace default_profiles_test
}  // namespace kext
