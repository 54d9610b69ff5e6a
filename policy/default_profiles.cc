#include "policy/default_profiles.h"

#include <algorithm>

#include "algorithms/catalogue.h"

namespace kext {
namespace {

constexpr std::string_view kVolumes =
    "volume plugin: a pod without volumes passes it and scores alike everywhere";
constexpr std::string_view kCloudVolumes =
    "in-tree cloud volume limit: a pod without such volumes passes it (removed from the default in 1.31)";
constexpr std::string_view kQueueOnly = "queue or binding only: no filter or score";
constexpr std::string_view kPreemption =
    "PostFilter: the simulator's own DefaultPreemption (sim/core/cycle.cc)";
constexpr std::string_view kClaims = "a pod without resource claims passes it and scores 0 everywhere";
constexpr std::string_view kFeatures = "a pod that needs no declared node feature passes it";

// getDefaultPlugins' list of 1.26: the MultiPoint plugins with their weights.
std::vector<DefaultPlugin> base_plugins() {
  return {
      {"PrioritySort", 0, kQueueOnly},
      {"NodeUnschedulable", 0, {}},
      {"NodeName", 0, {}},
      {"TaintToleration", 3, {}},
      {"NodeAffinity", 2, {}},
      {"NodePorts", 0, {}},
      {"NodeResourcesFit", 1, {}},
      {"VolumeRestrictions", 0, kVolumes},
      {"EBSLimits", 0, kCloudVolumes},
      {"GCEPDLimits", 0, kCloudVolumes},
      {"NodeVolumeLimits", 0, kVolumes},
      {"AzureDiskLimits", 0, kCloudVolumes},
      {"VolumeBinding", 0, kVolumes},
      {"VolumeZone", 0, kVolumes},
      {"PodTopologySpread", 2, {}},
      {"InterPodAffinity", 2, {}},
      {"DefaultPreemption", 0, kPreemption},
      {"NodeResourcesBalancedAllocation", 1, {}},
      {"ImageLocality", 1, {}},
      {"DefaultBinder", 0, kQueueOnly},
  };
}

void erase(std::vector<DefaultPlugin>& plugins, std::string_view name) {
  std::erase_if(plugins, [&](const DefaultPlugin& p) { return p.name == name; });
}

void insert_before(std::vector<DefaultPlugin>& plugins, std::string_view before, DefaultPlugin p) {
  auto it =
      std::find_if(plugins.begin(), plugins.end(), [&](const DefaultPlugin& q) { return q.name == before; });
  plugins.insert(it, p);
}

}  // namespace

std::vector<DefaultPlugin> default_plugins(KubeVersion version) {
  std::vector<DefaultPlugin> out = base_plugins();
  // 1.27: PodSchedulingReadiness beta, on: SchedulingGates (PreEnqueue only; first in the list from
  // the minor that listed it directly, where it stays).
  if (version.at_least(27)) out.insert(out.begin(), {"SchedulingGates", 0, kQueueOnly});
  // 1.31: the in-tree cloud volume limits left the default list (their CSI migration is complete).
  if (version.at_least(31)) {
    for (std::string_view name : {"EBSLimits", "GCEPDLimits", "AzureDiskLimits"}) erase(out, name);
  }
  // 1.36: NodeDeclaredFeatures beta, on: applyFeatureGates appends it first, so it comes last.
  if (version.at_least(36)) out.push_back({"NodeDeclaredFeatures", 0, kFeatures});
  // 1.34: DynamicResourceAllocation GA, on: DynamicResources before DefaultPreemption
  // (applyDynamicResources); 1.35 gives its score weight 2.
  if (version.at_least(34))
    insert_before(out, "DefaultPreemption", {"DynamicResources", version.at_least(35) ? 2 : 0, kClaims});
  return out;
}

std::vector<PluginEntry> default_plugin_entries(KubeVersion version, bool score) {
  const std::vector<std::string_view> known = score ? plugin_score_names() : plugin_filter_names();
  std::vector<PluginEntry> out;
  for (const DefaultPlugin& p : default_plugins(version)) {
    if (!p.runs() || std::find(known.begin(), known.end(), p.name) == known.end()) continue;
    // The framework counts a score plugin listed without a weight with weight 1; filters have none.
    const int64_t weight = score ? std::max<int64_t>(p.weight, 1) : 1;
    out.push_back({std::string(p.name), weight, Arithmetic::kCurrent});
  }
  return out;
}

}  // namespace kext
