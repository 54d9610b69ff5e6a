#pragma once
// The domain model the algorithms read: plain value types decoded once from Kubernetes objects.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/gpu/devices.h"
#include "algorithms/image_names.h"
#include "algorithms/kube_version.h"
#include "algorithms/resources.h"

namespace kext {

using Labels = std::map<std::string, std::string, std::less<>>;

// One requirement of a node selector term or a label selector: {key, operator, values}.
struct SelectorRequirement {
  std::string key;
  std::string op;  // In, NotIn, Exists, DoesNotExist, Gt, Lt (Gt/Lt only for node selectors)
  std::vector<std::string> values;
  bool operator==(const SelectorRequirement&) const = default;
};

struct NodeSelectorTerm {
  std::vector<SelectorRequirement> match_expressions;
  std::vector<SelectorRequirement> match_fields;  // only metadata.name is a valid key
};

struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
};

struct NodeAffinity {
  // nullopt = no required affinity (matches every node); an empty vector matches nothing.
  std::optional<std::vector<NodeSelectorTerm>> required;
  std::vector<PreferredSchedulingTerm> preferred;
};

struct Toleration {
  std::string key;
  std::string op;  // "Equal" (also when empty) or "Exists"
  std::string value;
  std::string effect;  // empty = every effect
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

// A container's entry in status.containerStatuses (initContainerStatuses for an init container) once
// the kubelet reports its resources, as in-place resize (InPlacePodVerticalScaling) reads it
// (core/v1 ContainerStatus.Resources.Requests and AllocatedResources).
struct ContainerResourceStatus {
  Resources requests;   // .resources.requests: what the container runs with
  Resources allocated;  // .allocatedResources: what the kubelet admitted
  // Whether either list names cpu / memory (the scoring default fills only a missing key).
  bool names_cpu = false;
  bool names_memory = false;
};

// spec.resources.requests (pod-level resources): what replaces the containers' sum for the resources it
// names.
struct PodLevelRequests {
  Resources amounts;
  bool names_cpu = false;
  bool names_memory = false;
};

struct Container {
  std::string name;
  std::string image;
  Resources requests;
  // Whether the requests map named cpu/memory at all: a missing key gets the scoring default,
  // an explicit "0" stays 0.
  bool has_cpu_request = false;
  bool has_memory_request = false;
  bool restartable = false;  // init container with restartPolicy: Always (a sidecar)
  // Its status entry when that has `resources` (nullopt otherwise: PodRequests then reads the spec).
  std::optional<ContainerResourceStatus> status;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<SelectorRequirement> match_expressions;
  bool operator==(const LabelSelector&) const = default;
};

// A container port with a hostPort (core/v1 ContainerPort): what the NodePorts filter compares.
struct HostPort {
  int32_t port = 0;              // hostPort, > 0
  std::string protocol = "TCP";  // TCP, UDP, SCTP
  std::string host_ip;           // "" and "0.0.0.0" are the wildcard
  bool operator==(const HostPort&) const = default;
};

// core/v1 PodAffinityTerm.
struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;  // nullopt (nil) matches no pod
  std::vector<std::string> namespaces;
  // nullopt (nil): only `namespaces`, or the pod's own namespace when both are empty; an empty
  // selector matches every namespace.
  std::optional<LabelSelector> namespace_selector;
  std::string topology_key;
  // matchLabelKeys / mismatchLabelKeys (beta since 1.31): keys whose values in the incoming pod's
  // labels are added to label_selector as In / NotIn when the pod is created.
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;
  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;  // 1..100
  PodAffinityTerm term;
  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

// spec.affinity.podAffinity and podAntiAffinity.
struct PodAffinityRules {
  std::vector<PodAffinityTerm> required_affinity;
  std::vector<WeightedPodAffinityTerm> preferred_affinity;
  std::vector<PodAffinityTerm> required_anti_affinity;
  std::vector<WeightedPodAffinityTerm> preferred_anti_affinity;
  bool operator==(const PodAffinityRules&) const = default;
  bool empty() const {
    return required_affinity.empty() && preferred_affinity.empty() && required_anti_affinity.empty() &&
           preferred_anti_affinity.empty();
  }
};

// core/v1 TopologySpreadConstraint.
struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  std::string when_unsatisfiable = "DoNotSchedule";  // or ScheduleAnyway
  std::optional<LabelSelector> label_selector;       // nullopt (nil) matches no pod
  std::optional<int32_t> min_domains;                // nullopt: 1
  std::string node_affinity_policy;                  // "" (Honor), Honor, Ignore
  std::string node_taints_policy;                    // "" (Ignore), Honor, Ignore
  std::vector<std::string> match_label_keys;
  bool operator==(const TopologySpreadConstraint&) const = default;
};

// A pod's labels, shared between pods that have the same ones (the replicas of a ReplicaSet): the
// cache interns them, which is most of a cached pod's size otherwise. Reads like a const map;
// assigning a map replaces it.
class SharedLabels {
 public:
  SharedLabels() = default;
  SharedLabels(Labels l) : p_(l.empty() ? nullptr : std::make_shared<const Labels>(std::move(l))) {}
  explicit SharedLabels(std::shared_ptr<const Labels> p) : p_(std::move(p)) {}

  const Labels& get() const { return p_ ? *p_ : empty_labels(); }
  operator const Labels&() const { return get(); }
  const std::shared_ptr<const Labels>& shared() const { return p_; }

  bool empty() const { return get().empty(); }
  size_t size() const { return get().size(); }
  Labels::const_iterator find(std::string_view k) const { return get().find(k); }
  Labels::const_iterator begin() const { return get().begin(); }
  Labels::const_iterator end() const { return get().end(); }
  const std::string& at(const std::string& k) const { return get().at(k); }
  bool operator==(const SharedLabels& o) const { return get() == o.get(); }

 private:
  static const Labels& empty_labels() {
    static const Labels kEmpty;
    return kEmpty;
  }
  std::shared_ptr<const Labels> p_;
};

// What decisions read about a pod that is already in the cluster (a potential victim, a pod counted
// on its node): identity, labels for disruption budgets, priority and start time for preemption. The
// cache keeps only this much of each pod.
struct PodMeta {
  std::string name;
  std::string namespace_;
  std::string uid;
  SharedLabels labels;
  std::string node_name;              // spec.nodeName
  std::string phase;                  // status.phase
  std::optional<int32_t> priority;    // spec.priority; absent means 0
  std::optional<int64_t> start_time;  // status.startTime, Unix seconds
  bool terminating = false;           // metadata.deletionTimestamp set
  // status.conditions: the first DisruptionTarget condition is True with reason PreemptionByScheduler,
  // which the scheduler sets on the victims it deletes (preemption reads it from 1.27).
  bool preemption_victim = false;
  // spec.schedulingGroup.podGroupName: the pod's upstream PodGroup (algorithms/gang/pod_group.h).
  std::string scheduling_group;
  // Read about every pod on a node by InterPodAffinity (the existing pods' terms) and NodePorts.
  std::shared_ptr<const PodAffinityRules> affinity;  // null when the pod has none (most pods)
  std::vector<HostPort> host_ports;                  // containers' ports with a hostPort
  // The GPU shares hami.io/vgpu-devices-allocated gives it (algorithms/gpu), null for most pods.
  std::shared_ptr<const gpu::PodShares> gpu_shares;

  int32_t effective_priority() const { return priority.value_or(0); }
  bool is_terminal() const { return phase == "Succeeded" || phase == "Failed"; }
};

// The pod being scheduled: everything the filters and scores read.
struct Pod : PodMeta {
  std::string nominated_node_name;  // status.nominatedNodeName
  std::string preemption_policy;    // "" / PreemptLowerPriority / Never
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  Resources overhead;
  std::optional<PodLevelRequests> pod_level_requests;  // spec.resources.requests, when present
  // status.conditions has PodResizePending with reason Infeasible: the spec's requests are not counted.
  bool resize_infeasible = false;
  Labels node_selector;
  std::optional<NodeAffinity> node_affinity;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  // The controller owner reference (metadata.ownerReferences with controller: true): the system
  // default spreading reads its ReplicaSet's or StatefulSet's selector (helper.DefaultSelector).
  std::string controller_kind;
  std::string controller_name;
  // What its annotations ask of GPUs (algorithms/gpu), null when they ask nothing.
  std::shared_ptr<const gpu::PodPreferences> gpu_preferences;
};

struct Node {
  std::string name;
  Labels labels;
  Resources allocatable;
  std::vector<Taint> taints;
  bool unschedulable = false;
  NodeImages images;  // status.images, one entry per name (image_names.h)
  // The cards HAMi's device plugin registered (algorithms/gpu), null on a node without the annotation.
  std::shared_ptr<const gpu::NodeDevices> gpus;
};

// A pod with its requests computed once (they never change for a given pod object).
struct PodInfo {
  std::shared_ptr<const PodMeta> pod;
  Resources requests;          // effective requests, as the fit filter uses them
  Resources nonzero_requests;  // with the 100m / 200Mi per-container defaults, for scoring
};

// The requests as `version`'s kube-scheduler computes them (algorithms/pod_requests.h).
PodInfo make_pod_info(std::shared_ptr<const Pod> pod, KubeVersion version = KubeVersion::newest());

// A node with the aggregate of the pods assigned to it.
struct NodeInfo {
  std::shared_ptr<const Node> node;
  std::vector<std::shared_ptr<const PodInfo>> pods;
  // The sums of the pods' requests, saturated at the int64 limits; add_pod/remove_pod keep them.
  Resources requested;
  Resources nonzero_requested;
  // The exact sums behind the two above, so that removing a pod from a saturated node restores the
  // true total instead of subtracting from the clamped one (see ResourceTotals).
  ResourceTotals requested_totals;
  ResourceTotals nonzero_requested_totals;

  const std::string& name() const { return node->name; }
  void add_pod(std::shared_ptr<const PodInfo> p);
  // Removes by UID; returns false if the pod was not on this node.
  bool remove_pod(const std::string& uid);
  // Removes this exact pod object; returns false if it is not on this node.
  bool remove_pod(const PodInfo* p);
};

struct PodDisruptionBudget {
  std::string name;
  std::string namespace_;
  // nullopt = nil selector. The scheduler matches nothing for both nil and empty selectors.
  std::optional<LabelSelector> selector;
  int32_t disruptions_allowed = 0;
  std::vector<std::string> disrupted_pods;  // status.disruptedPods keys (pod names)
};

}  // namespace kext
