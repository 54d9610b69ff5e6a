#pragma once
// The arguments of the plugins that read the whole cluster (pkg/scheduler/apis/config/types_pluginargs.go),
// with kube-scheduler's v1 defaults (pkg/scheduler/apis/config/v1/defaults.go).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/model.h"

namespace kext {

inline constexpr std::string_view kPodTopologySpreadPlugin = "PodTopologySpread";
inline constexpr std::string_view kInterPodAffinityPlugin = "InterPodAffinity";

// Well-known node labels (k8s.io/api/core/v1 well_known_labels.go).
inline constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";
inline constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";

// PodTopologySpreadArgs.defaultingType.
enum class SpreadDefaulting { kSystem, kList };

// PodTopologySpreadArgs: the constraints a pod without its own gets (when a Service, ReplicationController,
// ReplicaSet or StatefulSet selects it). kSystem: the system defaults below, whatever
// default_constraints says; kList: default_constraints (possibly none).
struct TopologySpreadArgs {
  SpreadDefaulting defaulting = SpreadDefaulting::kSystem;
  std::vector<TopologySpreadConstraint> default_constraints;
  bool operator==(const TopologySpreadArgs&) const = default;
};

// pkg/scheduler/framework/plugins/podtopologyspread/plugin.go systemDefaultConstraints.
inline std::vector<TopologySpreadConstraint> system_default_spread_constraints() {
  TopologySpreadConstraint zone, host;
  zone.topology_key = std::string(kZoneLabel);
  zone.when_unsatisfiable = "ScheduleAnyway";
  zone.max_skew = 5;
  host.topology_key = std::string(kHostnameLabel);
  host.when_unsatisfiable = "ScheduleAnyway";
  host.max_skew = 3;
  return {zone, host};
}

// InterPodAffinityArgs.
struct InterPodAffinityArgs {
  // The weight of an existing pod's required affinity term when scoring an incoming pod it matches
  // (0..100).
  int32_t hard_pod_affinity_weight = 1;
  bool ignore_preferred_terms_of_existing_pods = false;
  bool operator==(const InterPodAffinityArgs&) const = default;
};

}  // namespace kext
