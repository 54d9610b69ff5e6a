#pragma once
// HAMi's device fit: which of a node's cards a pod's containers get, in the order HAMi walks them, and
// why a node has none. Pure functions over algorithms/gpu/devices.h; the plugins are gpu_share.h.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "algorithms/gpu/devices.h"
#include "algorithms/model.h"

namespace kext::gpu {

// The container's request (GenerateResourceRequests); nums == 0 when it asks for no card.
ContainerRequest container_request(const Container& c, const SharingConfig& config);

// Every container's request, init containers first (device.Resourcereqs), and what the pod prefers.
struct PodRequest {
  std::vector<ContainerRequest> containers;  // one per init container, then one per container
  size_t init_containers = 0;
  PodPreferences preferences;
  std::string node_policy;
  std::string gpu_policy;
  bool asks() const {
    for (const auto& c : containers)
      if (c.nums > 0) return true;
    return false;
  }
};
PodRequest pod_request(const Pod& pod, const SharingConfig& config);

// A card as one scheduling decision sees it: its use by the node's pods, and its score for the request.
struct DeviceUsage {
  const Device* device = nullptr;
  int32_t used = 0;  // slots
  int32_t used_memory = 0;
  int32_t used_cores = 0;
  float score = 0;
};

// The node's cards with what its pods hold of them (getNodesUsage), in the annotation's order.
std::vector<DeviceUsage> node_usage(const NodeDevices& devices,
                                    std::span<const std::shared_ptr<const PodInfo>> pods);

// Why one container's cards did not fit: how many cards each check turned away (HAMi's reasons,
// pkg/device/common), and the most any card had free.
struct FitFailure {
  int unhealthy = 0;
  int cordoned = 0;
  int type_mismatch = 0;
  int uuid_mismatch = 0;
  int numa_mismatch = 0;
  int slots_exhausted = 0;
  int exclusive_conflict = 0;
  int memory_short = 0;
  int cores_short = 0;
  int cores_exhausted = 0;
  int mig_unsupported = 0;
  int too_small = 0;          // of memory_short and cores_short: cards too small even when idle
  int fitted = 0;             // cards that fit, fewer than asked
  int32_t cards_on_node = 0;  // every card of the node
  int32_t needed_cards = 0;
  int32_t needed_memory = 0;  // MiB per card, resolved against the best card short of memory
  int32_t needed_cores = 0;
  int32_t best_free_memory = -1;  // among the cards short of memory
  int32_t best_free_cores = -1;   // among the cards short of cores
  // No card of the node could ever take the request, whatever is evicted: unhealthy, cordoned, of another
  // type or mode, or too few cards.
  bool unresolvable() const;
  // The reason shown for the node, in the words kube-scheduler's own reasons use
  // ("node(s) had no GPU with 3000 MiB free: best card 2048 MiB").
  std::string reason() const;
};

// The pod's cards on a node, or why there are none.
struct NodeFit {
  bool fits = false;
  PodAllocation allocation;  // per container, init containers first; empty for one that asks none
  FitFailure failure;        // when !fits
  std::string error;         // a node or pod whose annotations did not decode
  // Of `error`: a pod on the node whose cards did not decode (undecoded_sharer), not the pod asking or
  // the node itself; it passes once that pod is gone or mended.
  bool use_unknown = false;
};

// Fit every container of the pod on the node as HAMi's scoreNode does (pkg/scheduler/score.go): each
// init container alone on the node's use, then the containers one after another on the same use.
NodeFit fit_pod(const PodRequest& request, const NodeDevices& devices, std::vector<DeviceUsage> usage);

// A pod on the node whose hami.io/vgpu-devices-allocated did not decode: "namespace/name: why", or "".
std::string undecoded_sharer(const NodeInfo& node);

// fit_pod on the node as its pods use it: HAMi's Filter for one node. The node has cards (node.node->gpus).
// Where a pod's cards did not decode (undecoded_sharer) no card's use is known, so none is given. HAMi
// logs the error and leaves the pod out of its usage (pkg/scheduler/scheduler.go onAddPod), counting
// its cards free: a card given twice.
NodeFit fit_on_node(const PodRequest& request, const NodeInfo& node);

// The shares the pod takes on the node as a bind would choose them (fit_on_node, collapsed), for a
// placement that is not bound yet: a simulated bind, a gang member's held room. nullptr when the pod
// asks for no card, or the node has none that fit.
std::shared_ptr<const PodShares> shares_on_node(const Pod& pod, const NodeInfo& node,
                                                const SharingConfig& config);

// HAMi's node score before placing (policy/node_policy.go ComputeDefaultScore): 10 × (slots used /
// slots + cores used / cores + memory used / memory), float32 as HAMi computes it; 0..30.
float node_score(std::span<const DeviceUsage> usage);

// The cards as hami.io/vgpu-devices-allocated writes them (device.EncodePodSingleDevice): a card is
// "UUID,NVIDIA,memory,cores:", a container ends with ";".
std::string encode_allocation(const PodAllocation& allocation);

// A pod's cards as its node counts them, from each container's (the first `init_containers` entries are
// init containers): the shares hami.io/vgpu-devices-allocated gives it, and a simulated bind records.
PodShares collapse_allocation(const PodAllocation& allocation, size_t init_containers);

}  // namespace kext::gpu
