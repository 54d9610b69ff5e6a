#pragma once
// Name -> plugin factories: the legacy Policy names (0..10 v1.16 arithmetic) and kube-scheduler's
// framework plugin names (0..100 arithmetic, divided by 10 on the wire), and the typed arguments.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/gpu/devices.h"
#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"
#include "algorithms/plugin_args.h"
#include "algorithms/semantics.h"

namespace kext {

struct UtilizationShapePoint {
  int64_t utilization = 0;  // 0..100
  int64_t score = 0;        // 0..10
  bool operator==(const UtilizationShapePoint&) const = default;
};

struct ResourceWeight {
  std::string name;
  int64_t weight = 1;
  bool operator==(const ResourceWeight&) const = default;
};

struct RequestedToCapacityRatioArgs {
  std::vector<UtilizationShapePoint> shape;
  std::vector<ResourceWeight> resources;  // default: cpu 1, memory 1
};

// Arguments a priority may carry in the policy; each plugin reads only its own.
struct ScoreArgs {
  std::optional<RequestedToCapacityRatioArgs> requested_to_capacity_ratio;
};

// NodeResourcesFitArgs (pkg/scheduler/apis/config/types_pluginargs.go): what the filter skips.
struct FitFilterArgs {
  std::vector<std::string> ignored_resources;        // extended resource names
  std::vector<std::string> ignored_resource_groups;  // extended resource domains ("example.com")
  bool operator==(const FitFilterArgs&) const = default;
};

enum class ScoringStrategyType { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };

// NodeResourcesFitArgs.scoringStrategy, defaults as kube-scheduler's v1 SetDefaults_NodeResourcesFitArgs.
struct ScoringStrategy {
  ScoringStrategyType type = ScoringStrategyType::kLeastAllocated;
  std::vector<ResourceWeight> resources = {{"cpu", 1}, {"memory", 1}};
  std::vector<UtilizationShapePoint> shape;  // RequestedToCapacityRatio only; scores 0..10
  bool operator==(const ScoringStrategy&) const = default;
};

// NodeResourcesBalancedAllocationArgs.
struct BalancedAllocationArgs {
  std::vector<ResourceWeight> resources = {{"cpu", 1}, {"memory", 1}};
  bool operator==(const BalancedAllocationArgs&) const = default;
};

// Everything a framework plugin may be configured with (a profile's pluginConfig).
struct PluginArgs {
  FitFilterArgs fit_filter;
  ScoringStrategy fit_scoring;
  BalancedAllocationArgs balanced;
  TopologySpreadArgs topology_spread;
  InterPodAffinityArgs inter_pod_affinity;
  TargetLoadPackingArgs target_load_packing;
  LoadVariationRiskBalancingArgs load_variation;
  LoadAwareSchedulingArgs load_aware;
  gpu::SharingConfig gpu_share;  // GPUShare (algorithms/gpu/gpu_share.h)
  // The kube-scheduler minor whose semantics every plugin reproduces (kube_version.h since::).
  KubeVersion version;
  bool operator==(const PluginArgs&) const = default;
};

// Which arithmetic a framework score plugin runs: kube-scheduler's current 0..100 (sent as score / 10),
// or the legacy priority it replaced, 0..10 as v1.16 computed it.
enum class Arithmetic { kCurrent, kV1_16 };

// nullptr for an unknown name. Filters take legacy and framework names; NodeResourcesFit,
// PodTopologySpread and InterPodAffinity read args.
std::unique_ptr<FilterPlugin> make_filter(std::string_view name, const PluginArgs& args = {});
// Legacy priority names.
std::unique_ptr<ScorePlugin> make_score(std::string_view name, const ScoreArgs& args);
// Framework score plugin names, on the wire's 0..10 scale. nullptr for an unknown name, or for
// kV1_16 arithmetic that no legacy priority had (e.g. NodeResourcesFit scoring a resource other than
// cpu and memory with LeastAllocated): legacy_score_for says why.
std::unique_ptr<ScorePlugin> make_plugin_score(std::string_view name, const PluginArgs& args,
                                               Arithmetic arithmetic = Arithmetic::kCurrent);

std::vector<std::string_view> filter_names();  // legacy predicate names
std::vector<std::string_view> score_names();   // legacy priority names
std::vector<std::string_view> plugin_filter_names();
std::vector<std::string_view> plugin_score_names();  // kube-scheduler's default order
// Plugins in no default profile, taken when a configuration enables them: the load-aware ones.
std::vector<std::string_view> optional_plugin_filter_names();
std::vector<std::string_view> optional_plugin_score_names();
// The weight kube-scheduler's default profile gives a score plugin (default_plugins.go): 0 if unknown.
int64_t plugin_default_weight(std::string_view plugin);

// The v1.16 predicate a framework filter replaced, and back ("" when none).
std::string_view legacy_filter_name(std::string_view plugin);
std::string_view plugin_for_legacy_filter(std::string_view legacy);

// The v1.16 priority that computes `plugin` with kV1_16 arithmetic: its name and the ScoreArgs it
// takes; on failure the name is empty and `why` says what the legacy priority could not express.
struct LegacyScore {
  std::string_view name;
  ScoreArgs args;
  std::string why;
};
LegacyScore legacy_score_for(std::string_view plugin, const PluginArgs& args);

// The framework plugin a legacy priority maps to, with the args it needs (fit_scoring for the three
// resource priorities). Empty name for an unknown legacy name.
struct PluginScore {
  std::string_view name;
  PluginArgs args;
};
PluginScore plugin_for_legacy_score(std::string_view legacy, const ScoreArgs& args);

// Where a filter runs under the semantics, whatever order the configuration lists it in: lower runs
// first. Knows each filter by its legacy predicate name (PodFitsResources) and by its current plugin
// name (NodeResourcesFit), both at the same rank; unknown names rank last, after every known one.
//   kCurrent: the default profile's filter order (pkg/scheduler/apis/config/v1/default_plugins.go
//             getDefaultPlugins): NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
//             NodePorts, NodeResourcesFit.
//   kV1_16:   v1.16 predicatesOrdering (pkg/scheduler/algorithm/predicates/predicates.go):
//             CheckNodeUnschedulable, HostName, PodFitsHostPorts, MatchNodeSelector,
//             PodFitsResources, PodToleratesNodeTaints.
int filter_rank(std::string_view name, Semantics semantics);

}  // namespace kext
