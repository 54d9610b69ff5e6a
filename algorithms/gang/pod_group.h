#pragma once
// Gang scheduling's unit: a pod group whose members run all together or not at all. Groups are
// written as their users already write them, in either of two APIs:
//   - scheduler-plugins' Coscheduling (the PodGroup CRD scheduling.x-k8s.io/v1alpha1 and its pod label:
//     sigs.k8s.io/scheduler-plugins pkg/apis/scheduling/v1alpha1/types.go, pkg/coscheduling/core/core.go),
//     so that a Kubeflow training job's groups need no change;
//   - upstream's (scheduling.k8s.io/v1alpha2 PodGroup, spec.schedulingPolicy.gang.minCount, and the
//     pod's spec.schedulingGroup.podGroupName: k8s.io/api scheduling/v1alpha2 types.go, core/v1
//     PodSchedulingGroup), where the cluster serves it.
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

// Upstream's GangScheduling plugin waits at Permit for a fixed five minutes
// (pkg/scheduler/framework/plugins/gangscheduling Permit); its PodGroup has no timeout field.
inline constexpr int64_t kWorkloadTimeoutSeconds = 300;

// The API a PodGroup is written in. Two groups of one name in one namespace, one in each API, are
// two groups: a pod names its group's API by how it names the group (label or schedulingGroup).
enum class GroupApi : uint8_t {
  kCoscheduling,  // scheduling.x-k8s.io/v1alpha1; pods by the kPodGroupLabel label
  kWorkload,      // scheduling.k8s.io/v1alpha2; pods by spec.schedulingGroup.podGroupName
};

// A group's key: "namespace/name" for Coscheduling's, "namespace/name (scheduling.k8s.io)" for
// upstream's. Reasons and decision logs print it.
std::string group_key(GroupApi api, std::string_view namespace_, std::string_view name);

// The annotations that give a PodGroup of either API a topology constraint: a node label key.
inline constexpr std::string_view kRequiredTopologyAnnotation = "kube-extender.io/required-topology";
inline constexpr std::string_view kPreferredTopologyAnnotation = "kube-extender.io/preferred-topology";

// Where a group's members must, or should, run together (algorithms/gang/topology.h): node label keys.
struct TopologyConstraint {
  // Every member on nodes that share one value of this label; nodes without it are never used. From
  // upstream's spec.schedulingConstraints.topology[0].key, else kRequiredTopologyAnnotation.
  std::string required;
  // As few domains of this label as possible, one if any fits (kPreferredTopologyAnnotation).
  std::string preferred;
  // Why an annotation's value was refused (not a node label key), "" when none was: the group's
  // members wait with it as their reason, rather than the group being dropped as an object that does
  // not decode.
  std::string invalid;
  bool empty() const { return required.empty() && preferred.empty(); }
  bool operator==(const TopologyConstraint&) const = default;
};

// One PodGroup object.
struct PodGroupSpec {
  GroupApi api = GroupApi::kCoscheduling;
  // False for upstream's basic policy (spec.schedulingPolicy.basic): its pods schedule one by one, as
  // any pod.
  bool all_or_nothing = true;
  std::string namespace_;
  std::string name;
  int32_t min_member = 1;                           // spec.minMember; upstream's gang.minCount
  Resources min_resources;                          // spec.minResources; zero: not set
  std::optional<int32_t> schedule_timeout_seconds;  // spec.scheduleTimeoutSeconds
  int64_t creation_unix_seconds = 0;                // metadata.creationTimestamp: the admission order
  TopologyConstraint topology;

  std::string key() const { return group_key(api, namespace_, name); }
  // The field min_member comes from, as reasons name it.
  std::string_view min_field() const { return api == GroupApi::kWorkload ? "minCount" : "minMember"; }
  int64_t timeout_seconds() const {
    if (api == GroupApi::kWorkload) return kWorkloadTimeoutSeconds;
    return schedule_timeout_seconds && *schedule_timeout_seconds > 0 ? *schedule_timeout_seconds
                                                                     : kDefaultScheduleTimeoutSeconds;
  }
  bool operator==(const PodGroupSpec&) const = default;
};

// The key of the pod's group (group_key), or nullopt for a pod of no group (an ordinary pod):
// spec.schedulingGroup.podGroupName names an upstream group, else the label a Coscheduling one. An
// empty label value is no group, as Coscheduling's util.GetPodGroupLabel reads it.
std::optional<std::string> pod_group_key(const PodMeta& pod);

// How a pod counts among the members of the group keyed `group` (a key pod_group_key gives): not at
// all (another group or none, or terminating), pending (no node yet), or bound. Allocates nothing:
// callers walk every pod of the cluster with it.
enum class Membership { kNone, kPending, kBound };
Membership membership_in(const PodMeta& pod, std::string_view group);

// Whether group `a` is admitted before group `b` when both wait: the higher priority first (the
// priority of their members), then the older group, then the name, so that the order is total and
// stable (Coscheduling's QueueSort Less: priority, then the group's creation time, then its key).
bool admitted_before(const PodGroupSpec& a, int32_t a_priority, const PodGroupSpec& b, int32_t b_priority);

}  // namespace kext::gang
