#include "algorithms/catalogue.h"

#include <algorithm>
#include <array>
#include <utility>

#include "algorithms/filters/check_node_unschedulable.h"
#include "algorithms/filters/inter_pod_affinity.h"
#include "algorithms/filters/load_aware_scheduling.h"
#include "algorithms/filters/match_node_selector.h"
#include "algorithms/filters/node_ports.h"
#include "algorithms/filters/pod_fits_host.h"
#include "algorithms/filters/pod_fits_resources.h"
#include "algorithms/filters/pod_tolerates_node_taints.h"
#include "algorithms/filters/pod_topology_spread.h"
#include "algorithms/gpu/gpu_share.h"
#include "algorithms/scores/balanced_resource_allocation.h"
#include "algorithms/scores/image_locality.h"
#include "algorithms/scores/inter_pod_affinity.h"
#include "algorithms/scores/least_requested.h"
#include "algorithms/scores/load_variation_risk_balancing.h"
#include "algorithms/scores/most_requested.h"
#include "algorithms/scores/node_affinity.h"
#include "algorithms/scores/node_resources_fit.h"
#include "algorithms/scores/pod_topology_spread.h"
#include "algorithms/scores/requested_to_capacity_ratio.h"
#include "algorithms/scores/taint_toleration.h"
#include "algorithms/scores/target_load_packing.h"

namespace kext {

namespace {

// The factories; each plugin's name is its name(), written once in the plugin. The order they run in
// is filter_rank's, not this table's.
constexpr std::array kFilters{
    &make_check_node_unschedulable_filter,  &make_pod_fits_host_filter,
    &make_match_node_selector_filter,       &make_pod_fits_resources_filter,
    &make_pod_tolerates_node_taints_filter, &make_node_ports_filter,
};

// shown_as: the name the plugin is shown under (AliasedScore), empty for its own.
using ScoreFactory = std::unique_ptr<ScorePlugin> (*)(const ScoreArgs&, std::string_view shown_as);
constexpr auto kScores = std::to_array<ScoreFactory>({
    [](const ScoreArgs&, std::string_view as) { return make_least_requested_score(as); },
    [](const ScoreArgs&, std::string_view as) { return make_most_requested_score(as); },
    [](const ScoreArgs&, std::string_view as) { return make_balanced_resource_allocation_score(as); },
    [](const ScoreArgs& a, std::string_view as) {
      return make_requested_to_capacity_ratio_score(
          a.requested_to_capacity_ratio.value_or(RequestedToCapacityRatioArgs{}), as);
    },
    [](const ScoreArgs&, std::string_view as) { return make_node_affinity_score(as); },
    [](const ScoreArgs&, std::string_view as) { return make_taint_toleration_score(as); },
    [](const ScoreArgs&, std::string_view as) { return make_image_locality_score(as); },
});

// One filter under its names: the current plugin, and the legacy predicates that select it ("" = none).
struct FilterNames {
  std::string_view plugin;
  std::array<std::string_view, 2> predicates;
};

constexpr FilterNames kNodeUnschedulable{kNodeUnschedulablePlugin, {kCheckNodeUnschedulablePredicate}};
// v1.16 registered PodFitsHost under the predicate name HostName (HostNamePred).
constexpr FilterNames kNodeName{kNodeNamePlugin, {kPodFitsHostPredicate, "HostName"}};
constexpr FilterNames kTaintToleration{kTaintTolerationPlugin, {kPodToleratesNodeTaintsPredicate}};
constexpr FilterNames kNodeAffinity{kNodeAffinityPlugin, {kMatchNodeSelectorPredicate}};
constexpr FilterNames kNodePorts{kNodePortsPlugin, {kPodFitsHostPortsPredicate}};
constexpr FilterNames kNodeResourcesFit{kNodeResourcesFitPlugin, {kPodFitsResourcesPredicate}};
// Framework plugins only: the v1.16 predicates they replaced (EvenPodsSpread, MatchInterPodAffinity)
// are not offered under the old names.
constexpr FilterNames kPodTopologySpread{kPodTopologySpreadPlugin, {}};
constexpr FilterNames kInterPodAffinity{kInterPodAffinityPlugin, {}};

// pkg/scheduler/apis/config/v1/default_plugins.go getDefaultPlugins: the MultiPoint plugins that filter,
// in their listed order (the framework runs Filter plugins in that order).
constexpr std::array kCurrentFilterOrder{&kNodeUnschedulable, &kNodeName,        &kTaintToleration,
                                         &kNodeAffinity,      &kNodePorts,       &kNodeResourcesFit,
                                         &kPodTopologySpread, &kInterPodAffinity};
// v1.16 pkg/scheduler/algorithm/predicates/predicates.go predicatesOrdering (ordered by "restrictiveness
// & complexity"), restricted to these filters: taints after resources.
constexpr std::array kV1_16FilterOrder{&kNodeUnschedulable, &kNodeName,         &kNodePorts,
                                       &kNodeAffinity,      &kNodeResourcesFit, &kTaintToleration,
                                       &kPodTopologySpread, &kInterPodAffinity};

// The names in table order, asked of one instance of each plugin (name() returns a literal).
const std::vector<std::string_view>& filter_table() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (auto make : kFilters) out.push_back(make({})->name());
    return out;
  }();
  return names;
}

const std::vector<std::string_view>& score_table() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (auto make : kScores) out.push_back(make(ScoreArgs{}, {})->name());
    return out;
  }();
  return names;
}

// The framework filters, in kube-scheduler's default plugin order (pkg/scheduler/apis/config/v1
// default_plugins.go), each with the v1.16 predicate it replaced: the same check under the new name.
struct FilterMapping {
  std::string_view plugin;
  std::string_view legacy;
};
// PodTopologySpread and InterPodAffinity have no legacy predicate here ("").
constexpr std::array<FilterMapping, 8> kFilterMappings{{
    {"NodeUnschedulable", "CheckNodeUnschedulable"},
    {"NodeName", "PodFitsHost"},
    {"TaintToleration", "PodToleratesNodeTaints"},
    {"NodeAffinity", "MatchNodeSelector"},
    {"NodePorts", "PodFitsHostPorts"},
    {"NodeResourcesFit", "PodFitsResources"},
    {"PodTopologySpread", ""},
    {"InterPodAffinity", ""},
}};

// The framework score plugins in kube-scheduler's default order, each with the v1.16 priority that
// computes it with kV1_16 arithmetic (NodeResourcesFit: one per scoring strategy, see legacy_score_for).
// default_weight: the weight kube-scheduler's default profile gives it.
struct ScoreMapping {
  std::string_view plugin;
  std::string_view legacy;
  int64_t default_weight;
};
constexpr std::array<ScoreMapping, 7> kScoreMappings{{
    {"TaintToleration", "TaintTolerationPriority", 3},
    {"NodeAffinity", "NodeAffinityPriority", 2},
    {"NodeResourcesFit", "", 1},
    {"PodTopologySpread", "", 2},
    {"InterPodAffinity", "", 2},
    {"NodeResourcesBalancedAllocation", "BalancedResourceAllocation", 1},
    {"ImageLocality", "ImageLocalityPriority", 1},
}};

// The legacy predicate `name`'s filter, shown as `shown_as` (empty: as itself).
std::unique_ptr<FilterPlugin> make_legacy_filter(std::string_view name, std::string_view shown_as = {}) {
  const auto& names = filter_table();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return kFilters[i](shown_as);
  }
  return nullptr;
}

// The legacy priority `name`, shown as `shown_as` (empty: as itself).
std::unique_ptr<ScorePlugin> make_legacy_score(std::string_view name, const ScoreArgs& args,
                                               std::string_view shown_as = {}) {
  const auto& names = score_table();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return kScores[i](args, shown_as);
  }
  return nullptr;
}

// The framework score plugin's name as a literal (kScoreMappings'), for AliasedScore; empty if unknown.
std::string_view plugin_score_literal(std::string_view plugin) {
  for (const auto& m : kScoreMappings) {
    if (m.plugin == plugin) return m.plugin;
  }
  return {};
}

// The legacy resource priorities score cpu and memory with one unweighted mean; a strategy that
// scores exactly those two with equal weights is the same product.
bool cpu_and_memory_equally(const std::vector<ResourceWeight>& resources) {
  if (resources.size() != 2 || resources[0].weight != resources[1].weight) return false;
  const bool cpu_first = resources[0].name == "cpu" && resources[1].name == "memory";
  const bool mem_first = resources[0].name == "memory" && resources[1].name == "cpu";
  return cpu_first || mem_first;
}

}  // namespace

std::unique_ptr<FilterPlugin> make_filter(std::string_view name, const PluginArgs& args) {
  if (auto legacy = make_legacy_filter(name)) return legacy;
  if (name == kPodTopologySpreadPlugin)
    return make_pod_topology_spread_filter(args.topology_spread, args.version);
  if (name == kInterPodAffinityPlugin)
    return make_inter_pod_affinity_filter(args.inter_pod_affinity, args.version);
  if (name == kLoadAwareSchedulingPlugin) return make_load_aware_scheduling_filter(args.load_aware);
  if (name == kGpuSharePlugin) return make_gpu_share_filter(args.gpu_share, args.version);
  const std::string_view legacy = legacy_filter_name(name);
  if (legacy.empty()) return nullptr;
  for (const auto& m : kFilterMappings) {
    if (m.plugin != name) continue;
    // The legacy check under the framework name (the check is the same, only what logs call it differs).
    return m.legacy == kPodFitsResourcesPredicate
               ? make_node_resources_fit_filter(args.fit_filter, m.plugin, args.version)
               : make_legacy_filter(m.legacy, m.plugin);
  }
  return nullptr;
}

std::string_view legacy_filter_name(std::string_view plugin) {
  for (const auto& m : kFilterMappings) {
    if (m.plugin == plugin) return m.legacy;
  }
  return {};
}

std::string_view plugin_for_legacy_filter(std::string_view legacy) {
  for (const auto& m : kFilterMappings) {
    if (m.legacy == legacy) return m.plugin;
  }
  return {};
}

std::vector<std::string_view> plugin_filter_names() {
  std::vector<std::string_view> out;
  for (const auto& m : kFilterMappings) out.push_back(m.plugin);
  return out;
}

std::vector<std::string_view> plugin_score_names() {
  std::vector<std::string_view> out;
  for (const auto& m : kScoreMappings) out.push_back(m.plugin);
  return out;
}

std::vector<std::string_view> optional_plugin_filter_names() {
  return {kLoadAwareSchedulingPlugin, kGpuSharePlugin};
}

std::vector<std::string_view> optional_plugin_score_names() {
  return {kTargetLoadPackingPlugin, kLoadVariationRiskBalancingPlugin, kGpuSharePlugin};
}

int64_t plugin_default_weight(std::string_view plugin) {
  for (const auto& m : kScoreMappings) {
    if (m.plugin == plugin) return m.default_weight;
  }
  return 0;
}

LegacyScore legacy_score_for(std::string_view plugin, const PluginArgs& args) {
  LegacyScore out;
  if (plugin == "NodeResourcesFit") {
    const ScoringStrategy& st = args.fit_scoring;
    if (st.type == ScoringStrategyType::kRequestedToCapacityRatio) {
      out.name = "RequestedToCapacityRatioPriority";
      out.args.requested_to_capacity_ratio = RequestedToCapacityRatioArgs{st.shape, st.resources};
      return out;
    }
    if (!cpu_and_memory_equally(st.resources)) {
      out.why =
          "v1.16 LeastRequestedPriority and MostRequestedPriority score cpu and memory with equal weights "
          "only";
      return out;
    }
    out.name =
        st.type == ScoringStrategyType::kMostAllocated ? "MostRequestedPriority" : "LeastRequestedPriority";
    return out;
  }
  if (plugin == "NodeResourcesBalancedAllocation" && !cpu_and_memory_equally(args.balanced.resources)) {
    out.why = "v1.16 BalancedResourceAllocation scores cpu and memory only";
    return out;
  }
  for (const auto& m : kScoreMappings) {
    if (m.plugin == plugin) out.name = m.legacy;
  }
  if (out.name.empty() && !plugin_score_literal(plugin).empty())
    out.why = "v1.16 arithmetic is offered for the plugins that replaced a v1.16 node-level priority only";
  else if (out.name.empty())
    out.why = "unknown plugin";
  return out;
}

PluginScore plugin_for_legacy_score(std::string_view legacy, const ScoreArgs& args) {
  PluginScore out;
  if (legacy == "LeastRequestedPriority" || legacy == "MostRequestedPriority") {
    out.name = "NodeResourcesFit";
    out.args.fit_scoring.type = legacy == "MostRequestedPriority" ? ScoringStrategyType::kMostAllocated
                                                                  : ScoringStrategyType::kLeastAllocated;
    return out;
  }
  if (legacy == "RequestedToCapacityRatioPriority") {
    out.name = "NodeResourcesFit";
    out.args.fit_scoring.type = ScoringStrategyType::kRequestedToCapacityRatio;
    const RequestedToCapacityRatioArgs rtcr =
        args.requested_to_capacity_ratio.value_or(RequestedToCapacityRatioArgs{});
    out.args.fit_scoring.shape = rtcr.shape;
    // The legacy priority's own defaults: no resources = cpu 1, memory 1; weight 0 = 1.
    if (!rtcr.resources.empty()) out.args.fit_scoring.resources = rtcr.resources;
    for (auto& r : out.args.fit_scoring.resources) {
      if (r.weight == 0) r.weight = 1;
    }
    return out;
  }
  for (const auto& m : kScoreMappings) {
    if (!m.legacy.empty() && m.legacy == legacy) out.name = m.plugin;
  }
  return out;
}

std::unique_ptr<ScorePlugin> make_plugin_score(std::string_view name, const PluginArgs& args,
                                               Arithmetic arithmetic) {
  if (arithmetic == Arithmetic::kV1_16) {
    // The legacy arithmetic under the framework name the configuration used, as make_filter does for
    // filters: the decision log, metrics and --write-config then call it the same.
    const LegacyScore legacy = legacy_score_for(name, args);
    return legacy.name.empty() ? nullptr
                               : make_legacy_score(legacy.name, legacy.args, plugin_score_literal(name));
  }
  std::unique_ptr<ScorePlugin> plugin;
  if (name == "NodeResourcesFit") {
    plugin = make_node_resources_fit_score(args.fit_scoring);
  } else if (name == "NodeResourcesBalancedAllocation") {
    plugin = make_node_resources_balanced_allocation_score(args.balanced, args.version);
  } else if (name == "ImageLocality") {
    plugin = make_image_locality_plugin_score(args.version);
  } else if (name == "NodeAffinity") {
    plugin = make_node_affinity_plugin_score();
  } else if (name == "TaintToleration") {
    plugin = make_taint_toleration_plugin_score();
  } else if (name == kPodTopologySpreadPlugin) {
    plugin = make_pod_topology_spread_score(args.topology_spread, args.version);
  } else if (name == kInterPodAffinityPlugin) {
    plugin = make_inter_pod_affinity_score(args.inter_pod_affinity, args.version);
  } else if (name == kTargetLoadPackingPlugin) {
    plugin = make_target_load_packing_score(args.target_load_packing);
  } else if (name == kLoadVariationRiskBalancingPlugin) {
    plugin = make_load_variation_risk_balancing_score(args.load_variation);
  } else if (name == kGpuSharePlugin) {
    plugin = make_gpu_share_score(args.gpu_share);
  } else {
    return nullptr;
  }
  return on_wire_scale(std::move(plugin));
}

std::unique_ptr<ScorePlugin> make_score(std::string_view name, const ScoreArgs& args) {
  return make_legacy_score(name, args);
}

std::vector<std::string_view> filter_names() { return filter_table(); }

std::vector<std::string_view> score_names() { return score_table(); }

int filter_rank(std::string_view name, Semantics semantics) {
  const auto& order = semantics == Semantics::kV1_16 ? kV1_16FilterOrder : kCurrentFilterOrder;
  for (size_t i = 0; !name.empty() && i < order.size(); ++i) {
    if (order[i]->plugin == name ||
        std::ranges::find(order[i]->predicates, name) != order[i]->predicates.end())
      return static_cast<int>(i);
  }
  return static_cast<int>(order.size());
}

}  // namespace kext
