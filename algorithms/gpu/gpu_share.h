#pragma once
// GPUShare: HAMi's GPU sharing as a filter and a score beside kube-scheduler's own plugins
// (algorithms/gpu/device_fit.h). Off in every default profile; a configuration enables it by name.
#include <memory>
#include <string_view>

#include "algorithms/gpu/devices.h"
#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"

namespace kext {

inline constexpr std::string_view kGpuSharePlugin = "GPUShare";

// Passes a node when every container's cards fit on its HAMi-registered GPUs, as HAMi's Filter would
// find them (pkg/scheduler/score.go calcScore); a pod that asks for no GPU passes every node. A node
// whose cards can never take the pod (too few, unhealthy, cordoned, of another type) is unresolvable;
// one whose cards are in use is unschedulable, so that preemption may free them. From the minor that
// requeues a pod an extender rejected on every cluster event (since::extender_rejection_requeues), a
// node whose lock names another pod still being set up is unschedulable too: the lock's removal brings
// the pod back. Before it, such a pod would wait for the queue's flush, so the node passes and the
// bind waits for the lock (extender/gpu/gpu_binder.h).
std::unique_ptr<FilterPlugin> make_gpu_share_filter(gpu::SharingConfig config,
                                                    KubeVersion version = KubeVersion::newest());

// 0..100 from HAMi's node score before placing (policy/node_policy.go ComputeDefaultScore, 0..30):
// binpack scores the busiest node highest, spread the idlest. 0 for a pod that asks for no GPU, and for
// a node setting up another pod's cards, whose device plugin serves one allocation at a time.
std::unique_ptr<ScorePlugin> make_gpu_share_score(gpu::SharingConfig config);

}  // namespace kext
