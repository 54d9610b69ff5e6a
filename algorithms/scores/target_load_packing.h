#pragma once
// TargetLoadPacking (scheduler-plugins pkg/trimaran/targetloadpacking/targetloadpacking.go Score): a
// best-fit bin packing on measured CPU, around a target utilization.
#include <cstdint>
#include <memory>

#include "algorithms/plugin.h"
#include "algorithms/plugin_args.h"

namespace kext {

// 0..100, no reduce. With U the node's predicted CPU utilization in percent (its usage as
// estimated_usage gives it, plus what the pod is predicted to use, over allocatable) and T the target:
// U <= T scores round((100 - T) * U / T + T); T < U <= 100 scores round(T * (100 - U) / (100 - T));
// U > 100 scores 0. A node without a sample scores 0, as Trimaran scores a node without metrics, and
// so does every node when the request has no fresh usage (usage_lookup.h).
std::unique_ptr<ScorePlugin> make_target_load_packing_score(const TargetLoadPackingArgs& args);

// What the pod is predicted to use, in millicores (targetloadpacking.go PredictUtilisation, summed over
// the containers, plus the pod's CPU overhead): a container's CPU request times the multiplier, rounded,
// or the default when it has none. Trimaran takes a CPU limit first; the model keeps no limits.
int64_t predicted_pod_milli_cpu(const Pod& pod, const TargetLoadPackingArgs& args);

}  // namespace kext
