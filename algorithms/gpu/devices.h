#pragma once
// GPU sharing as HAMi (Project-HAMi/HAMi) does it: the cards a node's device plugin registers, the share of
// them each pod holds, and what a pod asks for. Plain value types, decoded from annotations by
// kube/codec/gpu_decode.h; the fit and the scores are algorithms/gpu/device_fit.h.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kext::gpu {

// The annotations and resources, as HAMi names them (pkg/device/nvidia/device.go, pkg/util/types.go).
inline constexpr std::string_view kRegisterAnnotation = "hami.io/node-nvidia-register";
inline constexpr std::string_view kPairScoreAnnotation = "hami.io/node-nvidia-score";
inline constexpr std::string_view kCordonAnnotation = "hami.io/device-cordon";
inline constexpr std::string_view kUseTypeAnnotation = "nvidia.com/use-gputype";
inline constexpr std::string_view kNoUseTypeAnnotation = "nvidia.com/nouse-gputype";
inline constexpr std::string_view kUseUuidAnnotation = "nvidia.com/use-gpuuuid";
inline constexpr std::string_view kNoUseUuidAnnotation = "nvidia.com/nouse-gpuuuid";
inline constexpr std::string_view kModeAnnotation = "nvidia.com/vgpu-mode";
inline constexpr std::string_view kNumaBindAnnotation = "nvidia.com/numa-bind";
inline constexpr std::string_view kNodePolicyAnnotation = "hami.io/node-scheduler-policy";
inline constexpr std::string_view kGpuPolicyAnnotation = "hami.io/gpu-scheduler-policy";
inline constexpr std::string_view kWeightsAnnotation = "hami.io/device-scoring-weights";
inline constexpr std::string_view kAssignedNodeAnnotation = "hami.io/vgpu-node";
inline constexpr std::string_view kAssignedTimeAnnotation = "hami.io/vgpu-time";
inline constexpr std::string_view kToAllocateAnnotation = "hami.io/vgpu-devices-to-allocate";
inline constexpr std::string_view kAllocatedAnnotation = "hami.io/vgpu-devices-allocated";
inline constexpr std::string_view kBindPhaseAnnotation = "hami.io/bind-phase";
inline constexpr std::string_view kBindTimeAnnotation = "hami.io/bind-time";
inline constexpr std::string_view kNodeLockAnnotation = "hami.io/mutex.lock";
// The device type HAMi's NVIDIA plugin writes into a pod's allocation (NvidiaGPUDevice).
inline constexpr std::string_view kVendor = "NVIDIA";

// One card as the device plugin registers it (pkg/device/devices.go DeviceInfo).
struct Device {
  std::string id;  // the card's UUID
  uint32_t index = 0;
  int32_t count = 0;   // slots: how many pods may share it (deviceSplitCount)
  int32_t memory = 0;  // MiB (devmem)
  int32_t cores = 0;   // devcore: 100 is the whole card
  std::string type;    // e.g. "NVIDIA-NVIDIA A100-SXM4-40GB"
  int numa = 0;
  bool health = false;
  std::string mode;  // "hami-core", "mig", "mps"
  // hami.io/node-nvidia-score: the NVLink score to each other card, by UUID.
  std::vector<std::pair<std::string, int>> pair_scores;
  bool operator==(const Device&) const = default;

  int pair_score(std::string_view other) const {
    for (const auto& [id_, s] : pair_scores)
      if (id_ == other) return s;
    return 0;
  }
};

// What a node's annotations say about its cards.
struct NodeDevices {
  std::vector<Device> devices;
  std::vector<std::string> cordoned;  // hami.io/device-cordon: UUIDs no new pod may use
  // hami.io/mutex.lock's owner, "namespace/name" ("" when unlocked or the lock names no pod): the pod whose
  // cards the device plugin is setting up.
  std::string locked_by;
  // Why the annotations did not decode ("" when they did): the node then offers no card, and says why.
  std::string error;
  bool operator==(const NodeDevices&) const = default;
};

// A card's share held by a pod already placed, over all its containers as HAMi counts it
// (pkg/device/initContainer.go CollapseInitContainerUsage: the larger of the init containers' peak and
// the containers' sum).
struct DeviceShare {
  std::string uuid;
  int32_t slots = 1;
  int32_t memory = 0;  // MiB
  int32_t cores = 0;
  bool operator==(const DeviceShare&) const = default;
};

// A pod's cards, from hami.io/vgpu-devices-allocated.
struct PodShares {
  std::vector<DeviceShare> shares;
  // Why hami.io/vgpu-devices-allocated did not decode (then `shares` is empty): the node's card use is
  // unknown while this pod is on it.
  std::string error;
  bool operator==(const PodShares&) const = default;
};

// A pod's shares that did not decode: its node's card use is unknown (device_fit.h fit_on_node).
inline bool cards_undecoded(const std::shared_ptr<const PodShares>& shares) {
  return shares && !shares->error.empty();
}

// The cards one container asks for (pkg/device/nvidia/device.go GenerateResourceRequests).
struct ContainerRequest {
  int32_t nums = 0;            // nvidia.com/gpu: how many cards
  int32_t memory = 0;          // nvidia.com/gpumem, MiB per card; 0: by memory_percent
  int32_t memory_percent = 0;  // nvidia.com/gpumem-percentage (101: none asked, HAMi's sentinel)
  int32_t cores = 0;           // nvidia.com/gpucores, percent of a card
  bool operator==(const ContainerRequest&) const = default;
};

// HAMi's per-pod scoring weights (hami.io/device-scoring-weights "slot=1,core=1,memory=1").
struct Weights {
  int64_t slot = 1;
  int64_t core = 1;
  int64_t memory = 1;
  bool operator==(const Weights&) const = default;
};

// What a pod's annotations ask of its cards (the pod being scheduled).
struct PodPreferences {
  std::string use_types;    // nvidia.com/use-gputype: comma-separated, a case-insensitive substring each
  std::string nouse_types;  // nvidia.com/nouse-gputype
  std::string use_uuids;    // nvidia.com/use-gpuuuid: comma-separated UUIDs
  std::string nouse_uuids;  // nvidia.com/nouse-gpuuuid
  std::optional<std::string> mode;         // nvidia.com/vgpu-mode: the card's mode must be a substring
  bool numa_bind = false;                  // nvidia.com/numa-bind: a container's cards from one NUMA node
  std::optional<std::string> node_policy;  // hami.io/node-scheduler-policy: binpack, spread
  std::optional<std::string>
      gpu_policy;  // hami.io/gpu-scheduler-policy: binpack, spread, topology-aware, ...
  Weights weights;
  // Why an annotation was refused ("" when none was): the pod then fits no node, and says why.
  std::string error;
  bool operator==(const PodPreferences&) const = default;
};

// A card chosen for a container: what hami.io/vgpu-devices-allocated says of it.
struct ContainerDevice {
  std::string uuid;
  int32_t memory = 0;  // MiB
  int32_t cores = 0;
  bool operator==(const ContainerDevice&) const = default;
};

// The cards chosen for each container of a pod, init containers first (HAMi's PodSingleDevice).
using PodAllocation = std::vector<std::vector<ContainerDevice>>;

// HAMi's scheduler configuration (cmd/scheduler/main.go flags, charts/hami/values.yaml): the resource
// names, what a request without memory or cores takes, and the default policies.
struct SharingConfig {
  std::string count_resource = "nvidia.com/gpu";
  std::string memory_resource = "nvidia.com/gpumem";
  std::string memory_percent_resource = "nvidia.com/gpumem-percentage";
  std::string cores_resource = "nvidia.com/gpucores";
  int32_t default_memory = 0;  // MiB; 0: a request without memory takes the whole card
  int32_t default_cores = 0;
  std::string node_policy = "binpack";  // binpack, spread
  std::string gpu_policy = "spread";    // binpack, spread, topology-aware, mutex, numa, or a chain
  bool operator==(const SharingConfig&) const = default;
};

}  // namespace kext::gpu
