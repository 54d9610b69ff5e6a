#pragma once
// Name -> plugin factories for the legacy Policy names, and the typed arguments some take.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/plugin.h"

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

// Kubernetes predicate order (predicatesOrdering): the policy's filters run in this order whatever
// order the file lists them in. Returns a rank; unknown names rank last.
int filter_rank(std::string_view name);

}  // namespace kext
