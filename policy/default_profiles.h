#pragma once
// kube-scheduler's default profile of each minor this project reproduces: the MultiPoint list of
// pkg/scheduler/apis/config/v1 default_plugins.go getDefaultPlugins after applyFeatureGates with the
// minor's default feature gates, in order, with its weights. The plugins this project runs become a
// configuration's default filter and score lists (config.cc parse_plugin_set); the others are listed
// with why they are not run: each is neutral for the pods this project places (no volumes, no
// resource claims, no declared node features, no scheduling gates), so leaving it out moves no pod.
#include <cstdint>
#include <string_view>
#include <vector>

#include "algorithms/kube_version.h"
#include "policy/config.h"

namespace kext {

struct DefaultPlugin {
  std::string_view name;
  // The MultiPoint weight; 0 where upstream sets none (a score plugin then counts with weight 1).
  int32_t weight = 0;
  // Empty for a plugin this project runs; otherwise why leaving it out changes no placement.
  std::string_view not_run;
  bool runs() const { return not_run.empty(); }
};

// The default MultiPoint plugins of `version`'s minor, in upstream order.
std::vector<DefaultPlugin> default_plugins(KubeVersion version);

// The default profile's filters (`score` false) or scores this project runs, in upstream order, with
// the default weights: what a configuration's plugin lists merge into (mergePluginSet).
std::vector<PluginEntry> default_plugin_entries(KubeVersion version, bool score);

}  // namespace kext
