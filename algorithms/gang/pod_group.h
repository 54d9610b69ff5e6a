#pragma once
// Gang scheduling's unit: a pod group whose members run all together or not at all. Groups are
// written as scheduler-plugins' Coscheduling reads them (the PodGroup CRD scheduling.x-k8s.io/v1alpha1
// and its pod label: sigs.k8s.io/scheduler-plugins pkg/apis/scheduling/v1alpha1/types.go,
// pkg/coscheduling/core/core.go), so that a Kubeflow training job's groups need no change.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "algorithms/model.h"

namespace kext::gang {

// The pod label naming the pod's group in its namespace (v1alpha1.PodGroupLabel).
inline constexpr std::string_view kPodGroupLabel = "scheduling.x-k8s.io/pod-group";
// How long a group's members wait at bind for the rest when its PodGroup sets no
// scheduleTimeoutSeconds: Coscheduling's default PermitWaitingTimeSeconds (apis/config/v1beta3
// defaults.go, 60).
inline constexpr int64_t kDefaultScheduleTimeoutSeconds = 60;

// One PodGroup object.
struct PodGroupSpec {
  std::string namespace_;
  std::string name;
  int32_t min_member = 1;                           // spec.minMember
  Resources min_resources;                          // spec.minResources; zero: not set
  std::optional<int32_t> schedule_timeout_seconds;  // spec.scheduleTimeoutSeconds
  int64_t creation_unix_seconds = 0;                // metadata.creationTimestamp: the admission order

  std::string key() const { return namespace_ + "/" + name; }
  int64_t timeout_seconds() const {
    return schedule_timeout_seconds && *schedule_timeout_seconds > 0 ? *schedule_timeout_seconds
                                                                     : kDefaultScheduleTimeoutSeconds;
  }
  bool operator==(const PodGroupSpec&) const = default;
};

// "namespace/name" of the pod's group, or nullopt for a pod of no group (an ordinary pod). An empty
// label value is no group, as Coscheduling's util.GetPodGroupLabel reads it.
std::optional<std::string> pod_group_key(const PodMeta& pod);

// Whether group `a` is admitted before group `b` when both wait: the higher priority first (the
// priority of their members), then the older group, then the name, so that the order is total and
// stable (Coscheduling's QueueSort Less: priority, then the group's creation time, then its key).
bool admitted_before(const PodGroupSpec& a, int32_t a_priority, const PodGroupSpec& b, int32_t b_priority);

}  // namespace kext::gang
