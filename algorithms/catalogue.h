#pragma once
// Name -> plugin factories for the legacy Policy names, and the typed arguments some take.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/plugin.h"
#include "algorithms/semantics.h"

namespace kext {

struct UtilizationShapePoint {
  int64_t utilization = 0;  // 0..100
  int64_t score = 0;        // 0..10
};

struct ResourceWeight {
  std::string name;
  int64_t weight = 1;
};

struct RequestedToCapacityRatioArgs {
  std::vector<UtilizationShapePoint> shape;
  std::vector<ResourceWeight> resources;  // default: cpu 1, memory 1
};

// Arguments a priority may carry in the policy; each plugin reads only its own.
struct ScoreArgs {
  std::optional<RequestedToCapacityRatioArgs> requested_to_capacity_ratio;
};

// nullptr for an unknown name.
std::unique_ptr<FilterPlugin> make_filter(std::string_view name);
std::unique_ptr<ScorePlugin> make_score(std::string_view name, const ScoreArgs& args);

std::vector<std::string_view> filter_names();
std::vector<std::string_view> score_names();

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
