#pragma once
// NodeResourcesFit's score (kube-scheduler noderesources/fit.go with least_allocated.go,
// most_allocated.go, requested_to_capacity_ratio.go) on the framework's 0..100 scale.
#include <memory>

#include "algorithms/catalogue.h"
#include "algorithms/plugin.h"

namespace kext {

// "NodeResourcesFit", 0..100. For each of the strategy's resources (requested_and_capacity, non-zero
// requests; a resource with allocatable 0 is skipped):
//   LeastAllocated: (c - r) * 100 / c (0 if r > c); MostAllocated: r * 100 / c (r clamped to c);
//   node score = Σ score·weight / Σ weight, integer division (0 when nothing was scored).
//   RequestedToCapacityRatio: the shape's scores times 10, then requested_to_capacity_ratio's mean.
// No reduce.
std::unique_ptr<ScorePlugin> make_node_resources_fit_score(const ScoringStrategy& strategy);

}  // namespace kext
