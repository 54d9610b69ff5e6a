#pragma once
// RequestedToCapacityRatioPriority: the modern piecewise-linear shape
// (pkg/scheduler/framework/plugins/helper/shape_score.go BuildBrokenLinearFunction,
// noderesources/requested_to_capacity_ratio.go) on the extender's 0..10 scale.
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "algorithms/catalogue.h"
#include "algorithms/plugin.h"

namespace kext {

// BuildBrokenLinearFunction: the first point with p <= utilization decides; before the first point
// its score, past the last point the last score, in between integer linear interpolation. An empty
// shape scores 0.
int64_t broken_linear(std::span<const UtilizationShapePoint> shape, int64_t utilization);

// "RequestedToCapacityRatioPriority". Per resource: f(100) if requested > allocatable, else
// f(requested * 100 / allocatable). The shape's scores are used as given (0..10): the ×10 that
// kube-scheduler ≥ v1.17 applies only exists to reach its 0..100 scale. Resources with allocatable 0
// and resources scoring 0 add nothing to the weight sum; the node score is the weighted mean,
// rounded half away from zero. Requested = non-zero requests for cpu/memory, actual requests for
// everything else; a scalar the pod does not request is skipped. Empty resources = cpu 1, memory 1;
// weight 0 means 1. No reduce. shown_as: the name it is shown under (a literal); empty = its own.
std::unique_ptr<ScorePlugin> make_requested_to_capacity_ratio_score(const RequestedToCapacityRatioArgs& args,
                                                                    std::string_view shown_as = {});

// The same arithmetic with the shape's scores multiplied by shape_scale first: 10 is kube-scheduler
// >= v1.17's NodeResourcesFit RequestedToCapacityRatio strategy on the 0..100 scale (the weighted mean
// is then rounded from the scaled scores, so the result is not the 0..10 one times 10). `name` must
// outlive the plugin (a literal).
std::unique_ptr<ScorePlugin> make_requested_to_capacity_ratio_score(const RequestedToCapacityRatioArgs& args,
                                                                    int64_t shape_scale,
                                                                    std::string_view name);

}  // namespace kext
