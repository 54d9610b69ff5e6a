#include "kubeobjects/objects.h"

#include <memory>

#include "common/rfc3339.h"
#include "kubeobjects/write.h"

namespace kext::kubeobjects {

namespace {

// An `omitempty` string.
void member_if(JsonWriter& w, const char* key, std::string_view s) {
  if (!s.empty()) json::write_member(w, key, s);
}

void type_meta(JsonWriter& w, TypeMeta t, const char* kind, const char* api_version) {
  if (t == TypeMeta::kOmit) return;
  json::write_member(w, "kind", kind);
  json::write_member(w, "apiVersion", api_version);
}

// The set of paths as a tree: every level's keys in std::map (bytewise) order, every leaf {}.
struct FieldTree {
  std::map<std::string, std::unique_ptr<FieldTree>> children;
};

void write_tree(JsonWriter& w, const FieldTree& t) {
  w.StartObject();
  for (const auto& [key, child] : t.children) {
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    write_tree(w, *child);
  }
  w.EndObject();
}

void write_fields(JsonWriter& w, const std::vector<FieldPath>& paths) {
  FieldTree root;
  for (const auto& path : paths) {
    FieldTree* t = &root;
    for (const auto& key : path) {
      auto& child = t->children[key];
      if (!child) child = std::make_unique<FieldTree>();
      t = child.get();
    }
  }
  write_tree(w, root);
}

// metav1.ObjectMeta (apimachinery/pkg/apis/meta/v1/types.go).
void write_meta(JsonWriter& w, const ObjectMeta& m) {
  w.Key("metadata");
  w.StartObject();
  member_if(w, "name", m.name);
  member_if(w, "generateName", m.generate_name);
  member_if(w, "namespace", m.namespace_);
  member_if(w, "uid", m.uid);
  member_if(w, "resourceVersion", m.resource_version);
  if (m.generation != 0) {
    w.Key("generation");
    w.Int64(m.generation);
  }
  time_member(w, "creationTimestamp", m.created);
  map_member(w, "labels", m.labels);
  map_member(w, "annotations", m.annotations);
  if (!m.owner_references.empty()) {
    w.Key("ownerReferences");
    w.StartArray();
    for (const auto& r : m.owner_references) {
      w.StartObject();
      json::write_member(w, "apiVersion", r.api_version);
      json::write_member(w, "kind", r.kind);
      json::write_member(w, "name", r.name);
      json::write_member(w, "uid", r.uid);
      if (r.controller) {
        w.Key("controller");
        w.Bool(true);
      }
      if (r.block_owner_deletion) {
        w.Key("blockOwnerDeletion");
        w.Bool(true);
      }
      w.EndObject();
    }
    w.EndArray();
  }
  if (!m.managed_fields.empty()) {
    w.Key("managedFields");
    w.StartArray();
    for (const auto& f : m.managed_fields) {
      w.StartObject();
      member_if(w, "manager", f.manager);
      member_if(w, "operation", f.operation);
      member_if(w, "apiVersion", f.api_version);
      time_member(w, "time", f.time);
      if (!f.fields.empty()) {
        json::write_member(w, "fieldsType", "FieldsV1");
        w.Key("fieldsV1");
        write_fields(w, f.fields);
      }
      member_if(w, "subresource", f.subresource);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

void write_node_spec(JsonWriter& w, const Node& n) {
  w.Key("spec");
  w.StartObject();
  member_if(w, "podCIDR", n.pod_cidr);
  if (!n.pod_cidrs.empty()) {
    w.Key("podCIDRs");
    w.StartArray();
    for (const auto& c : n.pod_cidrs) json::write_string(w, c);
    w.EndArray();
  }
  member_if(w, "providerID", n.provider_id);
  if (n.unschedulable) {
    w.Key("unschedulable");
    w.Bool(true);
  }
  if (!n.taints.empty()) {
    w.Key("taints");
    w.StartArray();
    for (const auto& t : n.taints) {
      w.StartObject();
      json::write_member(w, "key", t.key);
      member_if(w, "value", t.value);
      json::write_member(w, "effect", t.effect);
      time_member(w, "timeAdded", t.time_added);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

void write_node_status(JsonWriter& w, const Node& n) {
  w.Key("status");
  w.StartObject();
  map_member(w, "capacity", n.capacity);
  map_member(w, "allocatable", n.allocatable);
  if (!n.conditions.empty()) {
    w.Key("conditions");
    w.StartArray();
    for (const auto& c : n.conditions) {
      w.StartObject();
      json::write_member(w, "type", c.type);
      json::write_member(w, "status", c.status);
      time_member(w, "lastHeartbeatTime", c.last_heartbeat);
      time_member(w, "lastTransitionTime", c.last_transition);
      member_if(w, "reason", c.reason);
      member_if(w, "message", c.message);
      w.EndObject();
    }
    w.EndArray();
  }
  if (!n.addresses.empty()) {
    w.Key("addresses");
    w.StartArray();
    for (const auto& a : n.addresses) {
      w.StartObject();
      json::write_member(w, "type", a.type);
      json::write_member(w, "address", a.address);
      w.EndObject();
    }
    w.EndArray();
  }
  if (n.kubelet_port != 0) {
    w.Key("daemonEndpoints");
    w.StartObject();
    w.Key("kubeletEndpoint");
    w.StartObject();
    w.Key("Port");
    w.Int(n.kubelet_port);
    w.EndObject();
    w.EndObject();
  }
  if (n.node_info) {
    const NodeSystemInfo& i = *n.node_info;
    w.Key("nodeInfo");
    w.StartObject();
    json::write_member(w, "machineID", i.machine_id);
    json::write_member(w, "systemUUID", i.system_uuid);
    json::write_member(w, "bootID", i.boot_id);
    json::write_member(w, "kernelVersion", i.kernel_version);
    json::write_member(w, "osImage", i.os_image);
    json::write_member(w, "containerRuntimeVersion", i.container_runtime_version);
    json::write_member(w, "kubeletVersion", i.kubelet_version);
    json::write_member(w, "kubeProxyVersion", i.kube_proxy_version);
    json::write_member(w, "operatingSystem", i.operating_system);
    json::write_member(w, "architecture", i.architecture);
    w.EndObject();
  }
  if (!n.images.empty()) {
    w.Key("images");
    w.StartArray();
    for (const auto& im : n.images) {
      w.StartObject();
      w.Key("names");
      w.StartArray();
      for (const auto& name : im.names) json::write_string(w, name);
      w.EndArray();
      w.Key("sizeBytes");
      w.Int64(im.size_bytes);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

void write_volume(JsonWriter& w, const ServiceAccountTokenVolume& v) {
  w.StartObject();
  json::write_member(w, "name", v.name);
  w.Key("projected");
  w.StartObject();
  w.Key("sources");
  w.StartArray();
  w.StartObject();
  w.Key("serviceAccountToken");
  w.StartObject();
  w.Key("expirationSeconds");
  w.Int64(v.expiration_seconds);
  json::write_member(w, "path", "token");
  w.EndObject();
  w.EndObject();
  w.StartObject();
  w.Key("configMap");
  w.StartObject();
  json::write_member(w, "name", "kube-root-ca.crt");
  w.Key("items");
  w.StartArray();
  w.StartObject();
  json::write_member(w, "key", "ca.crt");
  json::write_member(w, "path", "ca.crt");
  w.EndObject();
  w.EndArray();
  w.EndObject();
  w.EndObject();
  w.EndArray();
  w.Key("defaultMode");
  w.Int(v.default_mode);
  w.EndObject();
  w.EndObject();
}

void write_container(JsonWriter& w, const Container& c) {
  w.StartObject();
  json::write_member(w, "name", c.name);
  member_if(w, "image", c.image);
  if (!c.ports.empty()) {
    w.Key("ports");
    w.StartArray();
    for (const auto& p : c.ports) {
      w.StartObject();
      member_if(w, "name", p.name);
      w.Key("containerPort");
      w.Int(p.container_port);
      member_if(w, "protocol", p.protocol);
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("resources");
  w.StartObject();
  map_member(w, "limits", c.limits);
  map_member(w, "requests", c.requests);
  w.EndObject();
  if (!c.volume_mounts.empty()) {
    w.Key("volumeMounts");
    w.StartArray();
    for (const auto& m : c.volume_mounts) {
      w.StartObject();
      json::write_member(w, "name", m.name);
      if (m.read_only) {
        w.Key("readOnly");
        w.Bool(true);
      }
      json::write_member(w, "mountPath", m.mount_path);
      w.EndObject();
    }
    w.EndArray();
  }
  member_if(w, "terminationMessagePath", c.termination_message_path);
  member_if(w, "terminationMessagePolicy", c.termination_message_policy);
  member_if(w, "imagePullPolicy", c.image_pull_policy);
  w.EndObject();
}

void write_pod_spec(JsonWriter& w, const Pod& p) {
  w.Key("spec");
  w.StartObject();
  if (!p.volumes.empty()) {
    w.Key("volumes");
    w.StartArray();
    for (const auto& v : p.volumes) write_volume(w, v);
    w.EndArray();
  }
  w.Key("containers");
  w.StartArray();
  for (const auto& c : p.containers) write_container(w, c);
  w.EndArray();
  member_if(w, "restartPolicy", p.restart_policy);
  if (p.termination_grace_period_seconds) {
    w.Key("terminationGracePeriodSeconds");
    w.Int64(*p.termination_grace_period_seconds);
  }
  member_if(w, "dnsPolicy", p.dns_policy);
  member_if(w, "serviceAccountName", p.service_account_name);
  member_if(w, "serviceAccount", p.service_account_name);
  member_if(w, "nodeName", p.node_name);
  if (p.security_context) {
    w.Key("securityContext");
    w.StartObject();
    w.EndObject();
  }
  member_if(w, "schedulerName", p.scheduler_name);
  if (!p.tolerations.empty()) {
    w.Key("tolerations");
    w.StartArray();
    for (const auto& t : p.tolerations) {
      w.StartObject();
      member_if(w, "key", t.key);
      member_if(w, "operator", t.operator_);
      member_if(w, "value", t.value);
      member_if(w, "effect", t.effect);
      if (t.toleration_seconds) {
        w.Key("tolerationSeconds");
        w.Int64(*t.toleration_seconds);
      }
      w.EndObject();
    }
    w.EndArray();
  }
  member_if(w, "priorityClassName", p.priority_class_name);
  if (p.priority) {
    w.Key("priority");
    w.Int(*p.priority);
  }
  if (p.enable_service_links) {
    w.Key("enableServiceLinks");
    w.Bool(*p.enable_service_links);
  }
  member_if(w, "preemptionPolicy", p.preemption_policy);
  w.EndObject();
}

void write_pod_status(JsonWriter& w, const Pod& p) {
  w.Key("status");
  w.StartObject();
  member_if(w, "phase", p.phase);
  if (!p.conditions.empty()) {
    w.Key("conditions");
    w.StartArray();
    for (const auto& c : p.conditions) {
      w.StartObject();
      json::write_member(w, "type", c.type);
      json::write_member(w, "status", c.status);
      w.Key("lastProbeTime");
      w.Null();
      json::write_member(w, "lastTransitionTime", rfc3339_seconds(c.last_transition));
      w.EndObject();
    }
    w.EndArray();
  }
  member_if(w, "hostIP", p.host_ip);
  if (!p.pod_ip.empty()) {
    json::write_member(w, "podIP", p.pod_ip);
    w.Key("podIPs");
    w.StartArray();
    w.StartObject();
    json::write_member(w, "ip", p.pod_ip);
    w.EndObject();
    w.EndArray();
  }
  time_member(w, "startTime", p.start_time);
  if (!p.container_statuses.empty()) {
    w.Key("containerStatuses");
    w.StartArray();
    for (const auto& s : p.container_statuses) {
      w.StartObject();
      json::write_member(w, "name", s.name);
      w.Key("state");
      w.StartObject();
      if (s.running_since != 0) {
        w.Key("running");
        w.StartObject();
        json::write_member(w, "startedAt", rfc3339_seconds(s.running_since));
        w.EndObject();
      }
      w.EndObject();
      w.Key("lastState");
      w.StartObject();
      w.EndObject();
      w.Key("ready");
      w.Bool(s.ready);
      w.Key("restartCount");
      w.Int(s.restart_count);
      json::write_member(w, "image", s.image);
      json::write_member(w, "imageID", s.image_id);
      member_if(w, "containerID", s.container_id);
      if (s.started) {
        w.Key("started");
        w.Bool(*s.started);
      }
      w.EndObject();
    }
    w.EndArray();
  }
  member_if(w, "qosClass", p.qos_class);
  w.EndObject();
}

template <typename T>
std::string serialise(const T& object, TypeMeta t) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  write(w, object, t);
  return {buf.GetString(), buf.GetSize()};
}

void optional_int(JsonWriter& w, const char* key, const std::optional<int32_t>& v) {
  if (!v) return;
  w.Key(key);
  w.Int(*v);
}

}  // namespace

void write_raw(JsonWriter& w, std::string_view json) {
  w.RawValue(json.data(), json.size(),
             json.empty() || json.front() != '[' ? rapidjson::kObjectType : rapidjson::kArrayType);
}

void write(JsonWriter& w, const Node& n, TypeMeta t) {
  w.StartObject();
  type_meta(w, t, "Node", "v1");
  write_meta(w, n.metadata);
  write_node_spec(w, n);
  write_node_status(w, n);
  w.EndObject();
}

void write(JsonWriter& w, const Pod& p, TypeMeta t) {
  w.StartObject();
  type_meta(w, t, "Pod", "v1");
  write_meta(w, p.metadata);
  write_pod_spec(w, p);
  write_pod_status(w, p);
  w.EndObject();
}

void write(JsonWriter& w, const PodDisruptionBudget& p, TypeMeta t) {
  w.StartObject();
  type_meta(w, t, "PodDisruptionBudget", "policy/v1");
  write_meta(w, p.metadata);
  w.Key("spec");
  w.StartObject();
  optional_int(w, "minAvailable", p.min_available);
  w.Key("selector");
  w.StartObject();
  map_member(w, "matchLabels", p.match_labels);
  w.EndObject();
  w.EndObject();
  w.Key("status");
  w.StartObject();
  if (p.observed_generation != 0) {
    w.Key("observedGeneration");
    w.Int64(p.observed_generation);
  }
  w.Key("disruptionsAllowed");
  w.Int(p.disruptions_allowed);
  optional_int(w, "currentHealthy", p.current_healthy);
  optional_int(w, "desiredHealthy", p.desired_healthy);
  optional_int(w, "expectedPods", p.expected_pods);
  w.EndObject();
  w.EndObject();
}

std::string to_json(const Node& node, TypeMeta t) { return serialise(node, t); }
std::string to_json(const Pod& pod, TypeMeta t) { return serialise(pod, t); }
std::string to_json(const PodDisruptionBudget& pdb, TypeMeta t) { return serialise(pdb, t); }

}  // namespace kext::kubeobjects
