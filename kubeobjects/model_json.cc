#include "kubeobjects/model_json.h"

#include <ctime>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "common/rfc3339.h"
#include "kubeobjects/write.h"

namespace kext::model_json {
namespace {

using json::write_member;
using json::write_string;

// A ResourceList: cpu in millicores ("250m"), every other resource as its integer value, which
// resource.Quantity parses back exactly (k8s_decode.cc decode_resource_list).
void write_resources(JsonWriter& w, const Resources& r, bool has_cpu = true, bool has_memory = true) {
  w.StartObject();
  if (has_cpu) write_member(w, "cpu", std::to_string(r.milli_cpu) + "m");
  if (r.ephemeral_storage != 0) write_member(w, "ephemeral-storage", std::to_string(r.ephemeral_storage));
  if (has_memory) write_member(w, "memory", std::to_string(r.memory));
  if (r.pods != 0) write_member(w, "pods", std::to_string(r.pods));
  for (const auto& s : r.scalars) {
    w.Key(s.name.c_str(), static_cast<rapidjson::SizeType>(s.name.size()));
    write_string(w, std::to_string(s.value));
  }
  w.EndObject();
}

void write_requirements(JsonWriter& w, const char* key, const std::vector<SelectorRequirement>& reqs) {
  if (reqs.empty()) return;
  w.Key(key);
  w.StartArray();
  for (const auto& r : reqs) {
    w.StartObject();
    write_member(w, "key", r.key);
    write_member(w, "operator", r.op);
    if (!r.values.empty()) {
      w.Key("values");
      w.StartArray();
      for (const auto& v : r.values) write_string(w, v);
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
}

// A metav1.LabelSelector under `key`, omitted when nil; an empty one is written as {}, which decodes
// back to an empty selector, not a nil one (k8s_decode.cc decode_label_selector).
void write_selector(JsonWriter& w, const char* key, const std::optional<LabelSelector>& s) {
  if (!s) return;
  w.Key(key);
  w.StartObject();
  kubeobjects::map_member(w, "matchLabels", s->match_labels);
  write_requirements(w, "matchExpressions", s->match_expressions);
  w.EndObject();
}

// An `omitempty` list of strings.
void write_strings(JsonWriter& w, const char* key, const std::vector<std::string>& v) {
  if (v.empty()) return;
  w.Key(key);
  w.StartArray();
  for (const auto& s : v) write_string(w, s);
  w.EndArray();
}

void write_pod_affinity_term(JsonWriter& w, const PodAffinityTerm& t) {
  w.StartObject();
  write_selector(w, "labelSelector", t.label_selector);
  write_strings(w, "namespaces", t.namespaces);
  write_member(w, "topologyKey", t.topology_key);
  write_selector(w, "namespaceSelector", t.namespace_selector);
  write_strings(w, "matchLabelKeys", t.match_label_keys);
  write_strings(w, "mismatchLabelKeys", t.mismatch_label_keys);
  w.EndObject();
}

// podAffinity / podAntiAffinity, omitted when it has no terms.
void write_pod_affinity(JsonWriter& w, const char* key, const std::vector<PodAffinityTerm>& required,
                        const std::vector<WeightedPodAffinityTerm>& preferred) {
  if (required.empty() && preferred.empty()) return;
  w.Key(key);
  w.StartObject();
  if (!required.empty()) {
    w.Key("requiredDuringSchedulingIgnoredDuringExecution");
    w.StartArray();
    for (const auto& t : required) write_pod_affinity_term(w, t);
    w.EndArray();
  }
  if (!preferred.empty()) {
    w.Key("preferredDuringSchedulingIgnoredDuringExecution");
    w.StartArray();
    for (const auto& p : preferred) {
      w.StartObject();
      write_member(w, "weight", static_cast<int64_t>(p.weight));
      w.Key("podAffinityTerm");
      write_pod_affinity_term(w, p.term);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

void write_term(JsonWriter& w, const NodeSelectorTerm& t) {
  w.StartObject();
  write_requirements(w, "matchExpressions", t.match_expressions);
  write_requirements(w, "matchFields", t.match_fields);
  w.EndObject();
}

// `host_ports`: the pod's (PodMeta::host_ports), written on its first container.
void write_container(JsonWriter& w, const Container& c, bool init,
                     std::span<const HostPort> host_ports = {}) {
  w.StartObject();
  write_member(w, "name", c.name);
  if (!c.image.empty()) write_member(w, "image", c.image);
  if (!host_ports.empty()) {
    w.Key("ports");
    w.StartArray();
    for (const auto& p : host_ports) {
      w.StartObject();
      write_member(w, "hostPort", static_cast<int64_t>(p.port));
      // containerPort is required; the model keeps only the host side, and hostNetwork pods must
      // use the same number anyway (pkg/apis/core/validation/validation.go validateHostNetwork).
      write_member(w, "containerPort", static_cast<int64_t>(p.port));
      write_member(w, "protocol", p.protocol);
      if (!p.host_ip.empty()) write_member(w, "hostIP", p.host_ip);
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("resources");
  w.StartObject();
  if (c.has_cpu_request || c.has_memory_request || !c.requests.requests_nothing()) {
    w.Key("requests");
    write_resources(w, c.requests, c.has_cpu_request, c.has_memory_request);
  }
  w.EndObject();
  if (init && c.restartable) write_member(w, "restartPolicy", "Always");
  w.EndObject();
}

// ObjectMeta (k8s.io/api core/v1): what the model keeps of it.
void write_pod_metadata(JsonWriter& w, const Pod& pod, std::optional<int64_t> deletion_unix_seconds) {
  w.StartObject();
  write_member(w, "name", pod.name);
  write_member(w, "namespace", pod.namespace_);
  write_member(w, "uid", pod.uid);
  kubeobjects::map_member(w, "labels", pod.labels.get());
  if (pod.terminating)
    write_member(w, "deletionTimestamp", rfc3339_seconds(deletion_unix_seconds.value_or(0)));
  if (!pod.controller_kind.empty() || !pod.controller_name.empty()) {
    // The model keeps the controller's kind and name only, which is all the decoder reads; apiVersion
    // and uid are left out.
    w.Key("ownerReferences");
    w.StartArray();
    w.StartObject();
    write_member(w, "kind", pod.controller_kind);
    write_member(w, "name", pod.controller_name);
    write_member(w, "controller", true);
    w.EndObject();
    w.EndArray();
  }
  w.EndObject();
}

// NodeAffinity: the required node selector terms and the weighted preferred ones.
void write_node_affinity(JsonWriter& w, const NodeAffinity& na) {
  w.Key("nodeAffinity");
  w.StartObject();
  if (na.required) {
    w.Key("requiredDuringSchedulingIgnoredDuringExecution");
    w.StartObject();
    w.Key("nodeSelectorTerms");
    w.StartArray();
    for (const auto& t : *na.required) write_term(w, t);
    w.EndArray();
    w.EndObject();
  }
  if (!na.preferred.empty()) {
    w.Key("preferredDuringSchedulingIgnoredDuringExecution");
    w.StartArray();
    for (const auto& p : na.preferred) {
      w.StartObject();
      write_member(w, "weight", static_cast<int64_t>(p.weight));
      w.Key("preference");
      write_term(w, p.preference);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

// Affinity: nodeAffinity, podAffinity and podAntiAffinity, when the pod has any.
void write_affinity(JsonWriter& w, const Pod& pod) {
  if (!pod.node_affinity && !pod.affinity) return;
  w.Key("affinity");
  w.StartObject();
  if (pod.node_affinity) write_node_affinity(w, *pod.node_affinity);
  if (pod.affinity) {
    const PodAffinityRules& a = *pod.affinity;
    write_pod_affinity(w, "podAffinity", a.required_affinity, a.preferred_affinity);
    write_pod_affinity(w, "podAntiAffinity", a.required_anti_affinity, a.preferred_anti_affinity);
  }
  w.EndObject();
}

void write_tolerations(JsonWriter& w, const Pod& pod) {
  if (pod.tolerations.empty()) return;
  w.Key("tolerations");
  w.StartArray();
  for (const auto& t : pod.tolerations) {
    w.StartObject();
    if (!t.key.empty()) write_member(w, "key", t.key);
    if (!t.op.empty()) write_member(w, "operator", t.op);
    if (!t.value.empty()) write_member(w, "value", t.value);
    if (!t.effect.empty()) write_member(w, "effect", t.effect);
    w.EndObject();
  }
  w.EndArray();
}

void write_spread_constraints(JsonWriter& w, const Pod& pod) {
  if (pod.topology_spread_constraints.empty()) return;
  w.Key("topologySpreadConstraints");
  w.StartArray();
  for (const auto& c : pod.topology_spread_constraints) {
    w.StartObject();
    write_member(w, "maxSkew", static_cast<int64_t>(c.max_skew));
    write_member(w, "topologyKey", c.topology_key);
    write_member(w, "whenUnsatisfiable", c.when_unsatisfiable);
    write_selector(w, "labelSelector", c.label_selector);
    if (c.min_domains) write_member(w, "minDomains", static_cast<int64_t>(*c.min_domains));
    if (!c.node_affinity_policy.empty()) write_member(w, "nodeAffinityPolicy", c.node_affinity_policy);
    if (!c.node_taints_policy.empty()) write_member(w, "nodeTaintsPolicy", c.node_taints_policy);
    write_strings(w, "matchLabelKeys", c.match_label_keys);
    w.EndObject();
  }
  w.EndArray();
}

// PodSpec: the fields the scheduler reads.
void write_pod_spec(JsonWriter& w, const Pod& pod) {
  w.StartObject();
  if (!pod.node_name.empty()) write_member(w, "nodeName", pod.node_name);
  if (pod.priority) write_member(w, "priority", static_cast<int64_t>(*pod.priority));
  if (!pod.preemption_policy.empty()) write_member(w, "preemptionPolicy", pod.preemption_policy);
  w.Key("containers");
  w.StartArray();
  // The model keeps the pod's host ports, not which container asked for them: all go on the first
  // container (none without one: a pod the API server accepted has one).
  for (size_t i = 0; i < pod.containers.size(); ++i) {
    write_container(w, pod.containers[i], false,
                    i == 0 ? std::span(pod.host_ports) : std::span<const HostPort>());
  }
  w.EndArray();
  if (!pod.init_containers.empty()) {
    w.Key("initContainers");
    w.StartArray();
    for (const auto& c : pod.init_containers) write_container(w, c, true);
    w.EndArray();
  }
  if (!pod.overhead.requests_nothing()) {
    w.Key("overhead");
    write_resources(w, pod.overhead);
  }
  kubeobjects::map_member(w, "nodeSelector", pod.node_selector);
  write_affinity(w, pod);
  write_tolerations(w, pod);
  write_spread_constraints(w, pod);
  w.EndObject();
}

void write_pod_status(JsonWriter& w, const Pod& pod) {
  w.StartObject();
  if (!pod.phase.empty()) write_member(w, "phase", pod.phase);
  if (!pod.nominated_node_name.empty()) write_member(w, "nominatedNodeName", pod.nominated_node_name);
  if (pod.start_time) write_member(w, "startTime", rfc3339_seconds(*pod.start_time));
  if (pod.preemption_victim) {
    // The condition the scheduler sets on the victims it deletes (preemption.go prepareCandidate).
    w.Key("conditions");
    w.StartArray();
    w.StartObject();
    write_member(w, "type", "DisruptionTarget");
    write_member(w, "status", "True");
    write_member(w, "reason", "PreemptionByScheduler");
    w.EndObject();
    w.EndArray();
  }
  w.EndObject();
}

}  // namespace

void write_pod(JsonWriter& w, const Pod& pod, std::optional<int64_t> deletion_unix_seconds) {
  w.StartObject();
  write_member(w, "kind", "Pod");
  write_member(w, "apiVersion", "v1");
  w.Key("metadata");
  write_pod_metadata(w, pod, deletion_unix_seconds);
  w.Key("spec");
  write_pod_spec(w, pod);
  w.Key("status");
  write_pod_status(w, pod);
  w.EndObject();
}

void write_node(JsonWriter& w, const Node& node, std::string_view images_json) {
  w.StartObject();
  write_member(w, "kind", "Node");
  write_member(w, "apiVersion", "v1");
  w.Key("metadata");
  w.StartObject();
  write_member(w, "name", node.name);
  kubeobjects::map_member(w, "labels", node.labels);
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  if (node.unschedulable) write_member(w, "unschedulable", true);
  if (!node.taints.empty()) {
    w.Key("taints");
    w.StartArray();
    for (const auto& t : node.taints) {
      w.StartObject();
      write_member(w, "key", t.key);
      if (!t.value.empty()) write_member(w, "value", t.value);
      write_member(w, "effect", t.effect);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  w.Key("status");
  w.StartObject();
  w.Key("allocatable");
  write_resources(w, node.allocatable);
  if (!images_json.empty()) {
    w.Key("images");
    w.RawValue(images_json.data(), images_json.size(), rapidjson::kArrayType);
  }
  w.EndObject();
  w.EndObject();
}

void write_pdb(JsonWriter& w, const PodDisruptionBudget& pdb) {
  w.StartObject();
  write_member(w, "kind", "PodDisruptionBudget");
  write_member(w, "apiVersion", "policy/v1");
  w.Key("metadata");
  w.StartObject();
  write_member(w, "name", pdb.name);
  write_member(w, "namespace", pdb.namespace_);
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  write_selector(w, "selector", pdb.selector);
  w.EndObject();
  w.Key("status");
  w.StartObject();
  write_member(w, "disruptionsAllowed", static_cast<int64_t>(pdb.disruptions_allowed));
  if (!pdb.disrupted_pods.empty()) {
    w.Key("disruptedPods");
    w.StartObject();
    for (const auto& p : pdb.disrupted_pods) {
      w.Key(p.c_str(), static_cast<rapidjson::SizeType>(p.size()));
      write_string(w, "1970-01-01T00:00:00Z");
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
}

namespace {

// A group's topology annotations (algorithms/gang/pod_group.h): the preferred key in either API, the
// required one where the API has no field for it (scheduler-plugins').
void write_topology_annotations(JsonWriter& w, const gang::PodGroupSpec& g) {
  std::vector<std::pair<std::string_view, std::string>> annotations;
  if (!g.topology.required.empty() && g.api != gang::GroupApi::kWorkload)
    annotations.emplace_back(gang::kRequiredTopologyAnnotation, g.topology.required);
  if (!g.topology.preferred.empty())
    annotations.emplace_back(gang::kPreferredTopologyAnnotation, g.topology.preferred);
  kubeobjects::map_member(w, "annotations", annotations);
}

// Upstream's spec.schedulingPolicy and spec.schedulingConstraints (k8s.io/api scheduling/v1alpha2).
void write_workload_spec(JsonWriter& w, const gang::PodGroupSpec& g) {
  w.Key("schedulingPolicy");
  w.StartObject();
  w.Key(g.all_or_nothing ? "gang" : "basic");
  w.StartObject();
  if (g.all_or_nothing) write_member(w, "minCount", static_cast<int64_t>(g.min_member));
  w.EndObject();
  w.EndObject();
  if (g.topology.required.empty()) return;
  w.Key("schedulingConstraints");
  w.StartObject();
  w.Key("topology");
  w.StartArray();
  w.StartObject();
  write_member(w, "key", g.topology.required);
  w.EndObject();
  w.EndArray();
  w.EndObject();
}

}  // namespace

void write_pod_group(JsonWriter& w, const gang::PodGroupSpec& g) {
  const bool workload = g.api == gang::GroupApi::kWorkload;
  w.StartObject();
  write_member(w, "kind", "PodGroup");
  write_member(w, "apiVersion", workload ? "scheduling.k8s.io/v1alpha2" : "scheduling.x-k8s.io/v1alpha1");
  w.Key("metadata");
  w.StartObject();
  write_member(w, "name", g.name);
  write_member(w, "namespace", g.namespace_);
  kubeobjects::time_member(w, "creationTimestamp", g.creation_unix_seconds);
  write_topology_annotations(w, g);
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  if (workload) {
    write_workload_spec(w, g);
  } else {
    write_member(w, "minMember", static_cast<int64_t>(g.min_member));
    if (g.schedule_timeout_seconds)
      write_member(w, "scheduleTimeoutSeconds", static_cast<int64_t>(*g.schedule_timeout_seconds));
    if (g.min_resources != Resources{}) {
      w.Key("minResources");
      write_resources(w, g.min_resources, g.min_resources.milli_cpu != 0, g.min_resources.memory != 0);
    }
  }
  w.EndObject();
  w.EndObject();
}

namespace {
template <typename F>
std::string to_text(F&& f) {
  rapidjson::StringBuffer sb;
  JsonWriter w(sb);
  f(w);
  return {sb.GetString(), sb.GetSize()};
}
}  // namespace

std::string pod_json(const Pod& pod, std::optional<int64_t> deletion_unix_seconds) {
  return to_text([&](JsonWriter& w) { write_pod(w, pod, deletion_unix_seconds); });
}
std::string node_json(const Node& node, std::string_view images_json) {
  return to_text([&](JsonWriter& w) { write_node(w, node, images_json); });
}
std::string pdb_json(const PodDisruptionBudget& pdb) {
  return to_text([&](JsonWriter& w) { write_pdb(w, pdb); });
}
std::string pod_group_json(const gang::PodGroupSpec& group) {
  return to_text([&](JsonWriter& w) { write_pod_group(w, group); });
}

}  // namespace kext::model_json
