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

// The load-aware plugins (node_usage.h), off in every default profile. Their names and args are
// Trimaran's (scheduler-plugins apis/config/types.go, v1/defaults.go) and Koordinator's
// (pkg/scheduler/apis/config/types.go LoadAwareSchedulingArgs), so that their configurations load here.
inline constexpr std::string_view kTargetLoadPackingPlugin = "TargetLoadPacking";
inline constexpr std::string_view kLoadVariationRiskBalancingPlugin = "LoadVariationRiskBalancing";
inline constexpr std::string_view kLoadAwareSchedulingPlugin = "LoadAwareScheduling";

// TargetLoadPackingArgs: the CPU utilization (percent) to pack nodes up to, and what a container is
// predicted to use from its CPU request.
struct TargetLoadPackingArgs {
  int64_t target_utilization = 40;            // percent, 1..100
  int64_t default_requests_milli_cpu = 1000;  // defaultRequests.cpu: a container without a CPU request
  double default_requests_multiplier = 1.5;   // defaultRequestsMultiplier (a string in Trimaran)
  bool operator==(const TargetLoadPackingArgs&) const = default;
};

// LoadVariationRiskBalancingArgs.
struct LoadVariationRiskBalancingArgs {
  double safe_variance_margin = 1;
  double safe_variance_sensitivity = 1;
  bool operator==(const LoadVariationRiskBalancingArgs&) const = default;
};

// LoadAwareSchedulingArgs.usageThresholds: percent of allocatable, 0 = no threshold for the resource.
// Koordinator's defaults; a usageThresholds map given replaces both (its
// SetDefaults_LoadAwareSchedulingArgs).
struct LoadAwareSchedulingArgs {
  int64_t cpu_percent = 65;
  int64_t memory_percent = 95;
  bool operator==(const LoadAwareSchedulingArgs&) const = default;
};

}  // namespace kext
