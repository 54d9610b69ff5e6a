#pragma once
// Effective pod requests exactly as a kube-scheduler minor computes them: component-helpers
// resource/helpers.go PodRequests with the options pkg/scheduler/framework/types.go calculateResource
// passes (UseStatusResources from InPlacePodVerticalScaling, SkipPodLevelResources unless
// PodLevelResources, NonMissingContainerRequests for the scoring defaults).
#include "algorithms/kube_version.h"
#include "algorithms/model.h"

namespace kext {

inline constexpr int64_t kDefaultMilliCpuRequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;

// max(sum of containers incl. sidecars, max over init containers incl. earlier sidecars), the
// pod-level requests in place of that for the resources they name, + overhead. What `version` reads:
// sidecars from 1.28 (the field exists; before it is a plain init container), each container's
// allocated and actual resources beside its spec from 1.33, pod-level requests from 1.34.
// With non_zero, a container without a cpu/memory key counts the default (scoring only); with
// pod-level requests, only a resource that neither level nor the overhead names does.
Resources compute_pod_requests(const Pod& pod, bool non_zero, KubeVersion version = KubeVersion::newest());

// The pod being scheduled as the scores count it (noderesources/resource_allocation.go
// calculatePodResourceRequest): every container's missing cpu / memory defaults, pod-level requests or
// not; a node's pods count compute_pod_requests(pod, true) (framework/types.go calculateResource).
Resources compute_scored_pod_requests(const Pod& pod, KubeVersion version = KubeVersion::newest());

// The pod being scheduled as NodeResourcesFit's score counts it: as compute_scored_pod_requests without
// pod-level requests or status resources. noderesources/fit.go NewFit builds its resourceAllocationScorer
// (getScorer) without enablePodLevelResources and enableInPlacePodVerticalScaling, which only
// BalancedAllocation's sets, so Fit's PreScore sums the containers from 1.34 as before it.
Resources compute_fit_scored_pod_requests(const Pod& pod, KubeVersion version = KubeVersion::newest());

// An init container with restartPolicy: Always (fit.go hasRestartableInitContainer).
bool has_restartable_init_container(const Pod& pod);

}  // namespace kext
