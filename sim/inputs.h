#pragma once
// extender-sim's inputs: the cluster (what `kubectl get nodes,pods,pdb,namespaces,services,rc,rs,sts
// -A -o json` prints) and the workload (Pods and the controllers that create them), decoded with the
// extender's own decoders (kube/codec/k8s_decode.h, workload_decode.h) into the simulator's model.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "algorithms/gang/gatekeeper.h"
#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "json/json.h"
#include "sim/core/clock.h"
#include "sim/core/cluster.h"
#include "sim/core/usage.h"

namespace kext::simtool {

// What a pod's object says about its life that the model's Pod does not keep.
struct PodTraits {
  // Owned by a controller (metadata.ownerReferences with controller: true, or expanded from a
  // Deployment, ReplicaSet or Job in the workload): replaced when preempted.
  bool controlled = false;
  // spec.terminationGracePeriodSeconds; nullopt: the default (30 s).
  std::optional<sim::SimDuration> grace_period;
  // spec.priorityClassName, for a pod whose spec.priority is unset (resolve_priorities).
  std::string priority_class;
  // metadata.deletionTimestamp, Unix seconds: a terminating pod is gone by then (the API server sets
  // it to the deletion request's time plus the grace period).
  std::optional<int64_t> deletion_unix_seconds;
  // The kRuntimeAnnotation of the pod, its template or its controller (the first found): how long
  // it runs once bound, overriding --runtime.
  std::optional<sim::SimDuration> runtime;
  // "Kind/name" of the controller (the ownerReference with controller: true, or the workload's
  // Deployment, ReplicaSet or Job it was expanded from); "" for none. The report counts by it.
  std::string owner;
  // The kUsageAnnotation of the pod, its template or its controller (the first found): the share of
  // its requests it uses, overriding --usage. nullptr: none.
  std::shared_ptr<const sim::UsageProfile> usage = nullptr;
};

// A workload's own runtime (--runtime per workload, from a field): decimal seconds,
// e.g. "600" or "0.5", on a Pod, a controller or its pod template.
inline constexpr std::string_view kRuntimeAnnotation = "sim.kube-extender.io/runtime-seconds";
// A workload's own usage (--usage per workload), as sim::parse_usage_profile reads it: a fraction of
// its requests ("0.6") or steps from offsets since the pod started ("0s:0.2,60s:0.8,120s:0.4").
inline constexpr std::string_view kUsageAnnotation = "sim.kube-extender.io/usage";

// scheduling.k8s.io/v1 PriorityClass: what the Priority admission plugin sets a pod's priority from.
struct PriorityClass {
  std::string name;
  int32_t value = 0;
  bool global_default = false;
  std::string preemption_policy;  // "" for the default (PreemptLowerPriority)
};

struct InputPod {
  Pod pod;
  PodTraits traits;
};

struct ClusterInput {
  sim::SimCluster cluster;  // the nodes, the pods bound to them, the PDBs
  // By UID, the bound pods' traits; terminating ones (deletionTimestamp set) hold their node until
  // their deletionTimestamp.
  std::vector<std::pair<std::string, PodTraits>> running;
  // Pods with no spec.nodeName that are neither terminal (Succeeded, Failed) nor being deleted:
  // pending when the snapshot was taken, so they arrive at time 0.
  std::vector<InputPod> pending;
  // The snapshot's "now": the latest status.startTime among its pods (0 without any), so that the
  // pods the simulation starts are younger than every pod already running (preemption evicts the
  // youngest first).
  int64_t epoch_unix_seconds = 0;
  std::vector<PriorityClass> priority_classes;  // the file's, if it lists any
  // Node name -> its status.images array as JSON text, when decode_cluster was asked to keep them:
  // the model keeps only hashes of image names (algorithms/image_names.h), and a running extender
  // served these nodes must score ImageLocality on the same images.
  std::unordered_map<std::string, std::string> node_images;
  // The namespaces' labels and the objects that select pods (those with a nil or empty selector are
  // dropped): what PodTopologySpread's system default constraints and InterPodAffinity's
  // namespaceSelector read (ClusterView, algorithms/plugin.h), for the simulator to hand to the engine.
  std::map<std::string, Labels, std::less<>> namespace_labels;
  std::vector<WorkloadSelector> services;
  std::vector<WorkloadSelector> replication_controllers;
  std::vector<WorkloadSelector> replica_sets;
  std::vector<WorkloadSelector> stateful_sets;
  // scheduler-plugins' PodGroups (scheduling.x-k8s.io/v1alpha1): gang scheduling's groups.
  gang::GroupMap pod_groups;
};

// A List (kubectl's output, Lists nested in it too), a JSON array of objects, or one object. Kinds
// other than Node, Pod, PodDisruptionBudget, PriorityClass, Namespace, Service, ReplicationController,
// ReplicaSet, StatefulSet and PodGroup are skipped. Nodes are added first, whatever
// the order of the items. A pod without metadata.uid gets "<namespace>/<name>"; an empty namespace is
// "default". Throws DecodeError naming the item and field, or sim::ClusterError (a duplicate node or
// UID, a pod bound to a node the file does not have) naming the pod.
// With keep_node_images, ClusterInput::node_images holds each node's status.images as written (for
// --extender, which serves the nodes to a running extender).
ClusterInput decode_cluster(std::string_view text, bool keep_node_images = false);

// One Pod object of a cluster (a list's item, a watch event's object) as decode_cluster decodes it,
// and one PriorityClass. Throw DecodeError naming `path` and the field.
InputPod decode_cluster_pod(const json::Value& item, const std::string& path);
PriorityClass decode_priority_class(const json::Value& item, const std::string& path);

struct WorkloadInput {
  std::vector<InputPod> pods;
  std::vector<PriorityClass> priority_classes;
  // Services in the file, and the selectors of the ReplicaSets (a Deployment's too) and StatefulSets
  // its pods come from: PodTopologySpread's system default constraints read them (DefaultSelector).
  std::vector<WorkloadSelector> services;
  std::vector<WorkloadSelector> replica_sets;
  std::vector<WorkloadSelector> stateful_sets;
  gang::GroupMap pod_groups;  // as ClusterInput's
};

// The same envelopes, of Pods, Deployments, ReplicaSets, Jobs (apps/v1, batch/v1), PodGroups and
// PriorityClasses (for the pods' priorityClassName: resolve_priorities). A controller becomes spec.replicas
// pods (Deployment, ReplicaSet; default 1) or spec.parallelism pods (Job; default 1) of its spec.template,
// named "<name>-<index>" from 0, in its namespace, with the template's labels and priority, and controlled.
// In file order, each controller's pods in index order. Pods get UIDs as decode_cluster gives them. Throws
// DecodeError naming the item and field (another kind, a negative count, a missing template, a pod with
// spec.nodeName).
WorkloadInput decode_workload(std::string_view text);

// The pod of an extender request body: ExtenderArgs (filter, prioritize) or ExtenderPreemptionArgs
// (preempt), whose "Pod" is the whole v1.Pod kube-scheduler holds (k8s.io/kube-scheduler/extender/v1
// types.go). Decoded as a workload Pod (traits from its own object; a UID, else namespace/name);
// throws DecodeError naming the field ("Pod.spec.nodeName" for a pod already bound).
InputPod decode_request_pod(std::string_view body);

// What the Priority admission plugin (plugin/pkg/admission/priority/admission.go, admitPod) does to a
// pod created without spec.priority: the value of its priorityClassName's class (among `classes` and
// the two built-in system-cluster-critical and system-node-critical), whose preemptionPolicy it also
// takes when the pod has none; without a class name, the globalDefault class's (the lowest value if
// several are, as getDefaultPriorityClass), else 0. Pods with spec.priority keep it. Throws
// DecodeError naming the pod for an unknown class.
void resolve_priorities(std::vector<InputPod>& pods, const std::vector<PriorityClass>& classes);

}  // namespace kext::simtool
