#pragma once
// Kubernetes objects as values, and the one place their JSON is written: extender-gen, the benchmarks and
// the tests all build their Nodes, Pods and PodDisruptionBudgets here.
//
// The structs mirror the subset of k8s.io/api/core/v1 and k8s.io/api/policy/v1 (types.go) the project
// generates, and the writers follow Go's encoding/json on those types: fields in struct order, map keys
// sorted bytewise, `omitempty` fields left out at their zero value. Where Go would write a field whose
// value is empty here (creationTimestamp, nodeInfo, daemonEndpoints, a pod's securityContext), the
// writer leaves it out too, so that a test can build a minimal object.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "json/json.h"

namespace kext::kubeobjects {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
// map[string]string and ResourceList (quantities as their canonical strings): Go marshals map keys
// sorted, as std::map orders them.
using StringMap = std::map<std::string, std::string>;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
};

// One path of a FieldsV1 set, e.g. {"f:metadata", "f:labels", "f:app"}; "." marks the field itself.
using FieldPath = std::vector<std::string>;

struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;  // "Update", "Apply"
  std::string api_version;
  int64_t time = 0;  // Unix seconds
  // fieldsV1, as its paths: written as nested objects, every path ending in {}, each level's keys sorted
  // bytewise ("." first, then the f: fields, then the k: keys; for the single-key k: entries generated
  // here, the order in which sigs.k8s.io/structured-merge-diff fieldpath serialises a set).
  std::vector<FieldPath> fields;
  std::string subresource;  // "" = the main resource
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  int64_t created = 0;  // creationTimestamp, Unix seconds; 0 = left out
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<ManagedFieldsEntry> managed_fields;
};

// core/v1 Node.

struct Taint {
  std::string key;
  std::string value;
  std::string effect;
  int64_t time_added = 0;  // Unix seconds; 0 = left out
};

struct NodeCondition {
  std::string type;
  std::string status;
  int64_t last_heartbeat = 0;  // Unix seconds
  int64_t last_transition = 0;
  std::string reason;
  std::string message;
};

struct NodeAddress {
  std::string type;
  std::string address;
};

struct NodeSystemInfo {
  std::string machine_id;
  std::string system_uuid;
  std::string boot_id;
  std::string kernel_version;
  std::string os_image;
  std::string container_runtime_version;
  std::string kubelet_version;
  std::string kube_proxy_version;
  std::string operating_system;
  std::string architecture;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
};

struct Node {
  ObjectMeta metadata;
  // spec
  std::string pod_cidr;
  std::vector<std::string> pod_cidrs;
  std::string provider_id;
  bool unschedulable = false;
  std::vector<Taint> taints;
  // status
  StringMap capacity;
  StringMap allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;
  int32_t kubelet_port = 0;  // daemonEndpoints.kubeletEndpoint.Port; 0 = no daemonEndpoints
  std::optional<NodeSystemInfo> node_info;
  std::vector<ContainerImage> images;
};

// core/v1 Pod.

// The projected volume the ServiceAccount admission plugin adds (kube-api-access-*: the bound token,
// kube-root-ca.crt; plugin/pkg/admission/serviceaccount/admission.go, TokenVolumeSource).
struct ServiceAccountTokenVolume {
  std::string name;
  int64_t expiration_seconds = 3607;
  int32_t default_mode = 420;
};

struct ContainerPort {
  std::string name;
  int32_t container_port = 0;
  std::string protocol;
};

struct VolumeMount {
  std::string name;
  bool read_only = false;
  std::string mount_path;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<ContainerPort> ports;
  StringMap limits;  // resources.limits
  StringMap requests;
  std::vector<VolumeMount> volume_mounts;
  std::string termination_message_path;
  std::string termination_message_policy;
  std::string image_pull_policy;
};

struct Toleration {
  std::string key;
  std::string operator_;
  std::string value;
  std::string effect;
  std::optional<int64_t> toleration_seconds;
};

struct PodCondition {
  std::string type;
  std::string status;
  int64_t last_transition = 0;  // Unix seconds; lastProbeTime is written null, as the kubelet leaves it
};

struct ContainerStatus {
  std::string name;
  int64_t running_since = 0;  // state.running.startedAt, Unix seconds; 0 = an empty state
  bool ready = false;
  int32_t restart_count = 0;
  std::string image;
  std::string image_id;
  std::string container_id;
  std::optional<bool> started;
};

struct Pod {
  ObjectMeta metadata;
  // spec
  std::vector<ServiceAccountTokenVolume> volumes;
  std::vector<Container> containers;
  std::string restart_policy;
  std::optional<int64_t> termination_grace_period_seconds;
  std::string dns_policy;
  std::string service_account_name;  // also written as the deprecated serviceAccount, as the API does
  std::string node_name;
  bool security_context = false;  // an empty PodSecurityContext, as the API server defaults it
  std::string scheduler_name;
  std::vector<Toleration> tolerations;
  std::string priority_class_name;
  std::optional<int32_t> priority;
  std::optional<bool> enable_service_links;
  std::string preemption_policy;
  // status
  std::string phase;
  std::vector<PodCondition> conditions;
  std::string host_ip;
  std::string pod_ip;      // also written as the single entry of podIPs
  int64_t start_time = 0;  // Unix seconds; 0 = left out
  std::vector<ContainerStatus> container_statuses;
  std::string qos_class;
};

// policy/v1 PodDisruptionBudget.

struct PodDisruptionBudget {
  ObjectMeta metadata;
  std::optional<int32_t> min_available;  // an IntOrString, here always the int
  StringMap match_labels;                // spec.selector.matchLabels
  int64_t observed_generation = 0;
  int32_t disruptions_allowed = 0;
  // currentHealthy, desiredHealthy, expectedPods: Go always writes them; left out when unset here.
  std::optional<int32_t> current_healthy;
  std::optional<int32_t> desired_healthy;
  std::optional<int32_t> expected_pods;
};

// Whether the object starts with its TypeMeta (kind, apiVersion), as kubectl and the API server print
// it; the objects inside a scheduler's ExtenderArgs carry none.
enum class TypeMeta { kOmit, kWrite };

void write(JsonWriter& w, const Node& node, TypeMeta type_meta = TypeMeta::kOmit);
void write(JsonWriter& w, const Pod& pod, TypeMeta type_meta = TypeMeta::kOmit);
void write(JsonWriter& w, const PodDisruptionBudget& pdb, TypeMeta type_meta = TypeMeta::kOmit);

std::string to_json(const Node& node, TypeMeta type_meta = TypeMeta::kOmit);
std::string to_json(const Pod& pod, TypeMeta type_meta = TypeMeta::kOmit);
std::string to_json(const PodDisruptionBudget& pdb, TypeMeta type_meta = TypeMeta::kOmit);

// An already-serialised JSON value (an object from to_json) written in place, e.g. as a List item.
void write_raw(JsonWriter& w, std::string_view json);

}  // namespace kext::kubeobjects
