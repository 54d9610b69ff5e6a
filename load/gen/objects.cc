#include "load/gen/objects.h"

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace kext::gen {

namespace {

using kubeobjects::FieldPath;

uint64_t fnv1a(std::string_view s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// `n` hex digits that depend only on `seed`: stable ids (digests, container ids) without the PRNG, so
// the rest of the generated cluster does not shift.
std::string hex_digest(std::string_view seed, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  uint64_t h = fnv1a(seed);
  while (out.size() < n) {
    h = fnv1a(std::string_view(reinterpret_cast<const char*>(&h), sizeof h), h);
    for (int i = 0; i < 16 && out.size() < n; ++i) out += kHex[(h >> (4 * i)) & 15];
  }
  return out;
}

// `prefix` + each of `leaves` into `paths`.
void add_fields(std::vector<FieldPath>& paths, const FieldPath& prefix,
                std::initializer_list<std::string_view> leaves) {
  for (std::string_view leaf : leaves) {
    FieldPath p = prefix;
    p.emplace_back(leaf);
    paths.push_back(std::move(p));
  }
}

// What kube-controller-manager's ReplicaSet controller wrote: the pod as its template made it.
std::vector<FieldPath> controller_fields(const PodSpec& p) {
  std::vector<FieldPath> f;
  add_fields(f, {"f:metadata"}, {"f:generateName"});
  add_fields(f, {"f:metadata", "f:labels"}, {".", "f:app", "f:pod-template-hash"});
  add_fields(f, {"f:metadata", "f:ownerReferences"}, {".", R"(k:{"uid":")" + p.owner_uid + "\"}"});
  const FieldPath c = {"f:spec", "f:containers", R"(k:{"name":"app"})"};
  add_fields(f, c,
             {".", "f:image", "f:imagePullPolicy", "f:name", "f:terminationMessagePath",
              "f:terminationMessagePolicy"});
  FieldPath ports = c;
  ports.emplace_back("f:ports");
  add_fields(f, ports, {"."});
  ports.emplace_back(R"(k:{"containerPort":8080,"protocol":"TCP"})");
  add_fields(f, ports, {".", "f:containerPort", "f:name", "f:protocol"});
  FieldPath resources = c;
  resources.emplace_back("f:resources");
  add_fields(f, resources, {"."});
  resources.emplace_back("f:limits");
  add_fields(f, resources, {".", "f:memory"});
  resources.back() = "f:requests";
  add_fields(f, resources, {".", "f:cpu", "f:memory"});
  add_fields(f, {"f:spec"},
             {"f:dnsPolicy", "f:enableServiceLinks", "f:priorityClassName", "f:restartPolicy",
              "f:schedulerName", "f:securityContext", "f:terminationGracePeriodSeconds"});
  return f;
}

// What the kubelet wrote through the status subresource.
std::vector<FieldPath> kubelet_fields(const std::string& pod_ip) {
  std::vector<FieldPath> f;
  for (const char* type : {"ContainersReady", "Initialized", "Ready"}) {
    add_fields(f, {"f:status", "f:conditions", std::string(R"(k:{"type":")") + type + "\"}"},
               {".", "f:lastProbeTime", "f:lastTransitionTime", "f:status", "f:type"});
  }
  add_fields(f, {"f:status"}, {"f:containerStatuses", "f:hostIP", "f:phase", "f:podIP", "f:startTime"});
  add_fields(f, {"f:status", "f:podIPs"}, {"."});
  add_fields(f, {"f:status", "f:podIPs", R"(k:{"ip":")" + pod_ip + "\"}"}, {".", "f:ip"});
  return f;
}

}  // namespace

const char* priority_class_name(int32_t priority) {
  switch (priority) {
    case 0: return "best-effort";
    case 100: return "low";
    case 1000: return "standard";
    case 10000: return "critical";
    default: return "preemptor";
  }
}

kubeobjects::Pod pod_object(const PodSpec& p) {
  kubeobjects::Pod pod;
  const std::string rs = p.app + "-" + p.template_hash;
  const std::string token = "kube-api-access-" + p.uid.substr(0, 5);
  auto& m = pod.metadata;
  m.name = p.name;
  m.generate_name = rs + "-";
  m.namespace_ = p.namespace_;
  m.uid = p.uid;
  m.resource_version = std::to_string(100000 + p.created % 900000);
  m.created = p.created;
  m.labels = {{"app", p.app}, {"pod-template-hash", p.template_hash}};
  m.owner_references.push_back({"apps/v1", "ReplicaSet", rs, p.owner_uid, true, true});

  pod.volumes.push_back({token});
  kubeobjects::Container c;
  c.name = "app";
  c.image = p.image;
  c.ports.push_back({"http", 8080, "TCP"});
  const std::string mem = std::to_string(p.memory_mi) + "Mi";
  c.limits = {{"memory", mem}};
  c.requests = {{"cpu", std::to_string(p.cpu_milli) + "m"}, {"memory", mem}};
  c.volume_mounts.push_back({token, true, "/var/run/secrets/kubernetes.io/serviceaccount"});
  c.termination_message_path = "/dev/termination-log";
  c.termination_message_policy = "File";
  c.image_pull_policy = "IfNotPresent";
  pod.containers.push_back(std::move(c));
  pod.restart_policy = "Always";
  pod.termination_grace_period_seconds = 30;
  pod.dns_policy = "ClusterFirst";
  pod.service_account_name = "default";
  pod.node_name = p.node;
  pod.security_context = true;
  pod.scheduler_name = "default-scheduler";
  if (p.tolerates_dedicated)
    pod.tolerations.push_back({"dedicated", "Equal", "batch", "NoSchedule", std::nullopt});
  // The DefaultTolerationSeconds admission plugin's (plugin/pkg/admission/defaulttolerationseconds).
  pod.tolerations.push_back({"node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300});
  pod.tolerations.push_back({"node.kubernetes.io/unreachable", "Exists", "", "NoExecute", 300});
  pod.priority_class_name = priority_class_name(p.priority);
  pod.priority = p.priority;
  pod.enable_service_links = true;
  pod.preemption_policy = "PreemptLowerPriority";
  pod.qos_class = "Burstable";
  if (p.node.empty()) {
    pod.phase = "Pending";
    return pod;
  }
  // A running pod as the API serves it (and a watch delivers it): the kubelet's status and the
  // managedFields of the two writers. Without them the objects would be a third smaller than real ones.
  const uint64_t node_hash = fnv1a(p.node), uid_hash = fnv1a(p.uid);
  pod.host_ip = "10.0." + std::to_string(node_hash % 250) + "." + std::to_string(node_hash / 250 % 250 + 1);
  pod.pod_ip = "10." + std::to_string(64 + node_hash % 64) + "." + std::to_string(uid_hash % 256) + "." +
               std::to_string(uid_hash / 256 % 254 + 1);
  const int64_t scheduled = p.created + 1, started = p.created + 5, ready = p.created + 20;
  m.managed_fields.push_back(
      {"kube-controller-manager", "Update", "v1", p.created, controller_fields(p), ""});
  m.managed_fields.push_back({"kubelet", "Update", "v1", ready, kubelet_fields(pod.pod_ip), "status"});
  pod.phase = "Running";
  pod.conditions = {{"Initialized", "True", started},
                    {"Ready", "True", ready},
                    {"ContainersReady", "True", ready},
                    {"PodScheduled", "True", scheduled}};
  pod.start_time = started;
  kubeobjects::ContainerStatus s;
  s.name = "app";
  s.running_since = p.created + 12;
  s.ready = true;
  s.image = p.image;
  s.image_id = p.image.substr(0, p.image.rfind(':')) + "@sha256:" + hex_digest(p.image, 64);
  s.container_id = "containerd://" + hex_digest(p.uid, 64);
  s.started = true;
  pod.container_statuses.push_back(std::move(s));
  return pod;
}

kubeobjects::PodDisruptionBudget pdb_object(const PdbSpec& p) {
  kubeobjects::PodDisruptionBudget pdb;
  pdb.metadata.name = p.name;
  pdb.metadata.namespace_ = p.namespace_;
  pdb.metadata.uid = p.uid;
  pdb.metadata.resource_version = "4242";
  pdb.metadata.generation = 1;
  pdb.metadata.created = 1767225600;  // 2026-01-01T00:00:00Z
  pdb.min_available = p.min_available;
  pdb.match_labels = {{"app", p.app}};
  pdb.observed_generation = 1;
  pdb.disruptions_allowed = p.disruptions_allowed;
  pdb.current_healthy = p.min_available + p.disruptions_allowed;
  pdb.desired_healthy = p.min_available;
  pdb.expected_pods = p.min_available + p.disruptions_allowed;
  return pdb;
}

std::string pod_json(const PodSpec& p) { return kubeobjects::to_json(pod_object(p)); }

}  // namespace kext::gen
