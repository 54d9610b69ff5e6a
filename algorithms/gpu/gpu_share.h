#pragma once
// GPUShare: HAMi's GPU sharing as a filter and a score beside kube-scheduler's own plugins
// (algorithms/gpu/device_fit.h). Off in every default profile; a configuration enables it by name.
#include <memory>
#include <string_view>

#include "algorithms/gpu/devices.h"
#include "algorithms/plugin.h"

namespace kext {

inline constexpr std::string_view kGpuSharePlugin = "GPUShare";

// Passes a node when every container's cards fit on its HAMi-registered GPUs, as HAMi's Filter would
// find them (pkg/scheduler/score.go calcScore); a pod that asks for no GPU passes every node. A node
// whose cards can never take the pod (too few, unhealthy, cordoned, of another type) is unresolvable;
// one whose cards are in use is unschedulable, so that preemption may free them.
std::unique_ptr<FilterPlugin> make_gpu_share_filter(gpu::SharingConfig config);

// 0..100 from HAMi's node score before placing (policy/node_policy.go ComputeDefaultScore, 0..30):
// binpack scores the busiest node highest, spread the idlest. 0 for a pod that asks for no GPU.
std::unique_ptr<ScorePlugin> make_gpu_share_score(gpu::SharingConfig config);

}  // namespace kext
