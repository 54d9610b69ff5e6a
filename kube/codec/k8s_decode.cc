#include "kube/codec/k8s_decode.h"

#include <ctime>

#include "common/rfc3339.h"
#include "kube/codec/gpu_decode.h"
#include "kube/codec/quantity.h"

namespace kext {

namespace {

using json::expect_array;
using json::expect_object;
using json::find_non_null;
using json::get_string;
using json::join_path;
using json::Value;

std::string index_path(std::string_view path, size_t i) {
  return std::string(path) + "[" + std::to_string(i) + "]";
}

// Optional int32 member (Go's int32 fields): nullopt when absent or null, an error outside the range.
std::optional<int32_t> get_int32(const Value& obj, std::string_view key, std::string_view path) {
  const std::optional<int64_t> v = json::get_int(obj, key, path);
  if (!v) return std::nullopt;
  if (*v < INT32_MIN || *v > INT32_MAX) throw DecodeError(join_path(path, key) + ": out of int32 range");
  return static_cast<int32_t>(*v);
}

}  // namespace

Labels decode_string_map(const Value& obj, std::string_view key, std::string_view path) {
  Labels out;
  const Value* v = find_non_null(obj, key);
  if (!v) return out;
  std::string p = join_path(path, key);
  expect_object(*v, p);
  for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) {
    std::string_view k = json::view(it->name);
    if (it->value.IsNull()) continue;
    if (!it->value.IsString()) json::fail_type(join_path(p, k), "string", it->value);
    out.insert_or_assign(std::string(k), std::string(json::view(it->value)));
  }
  return out;
}

namespace {

// Calls fn(element, element_path) for each element of an optional array member.
template <typename Fn>
void for_each_element(const Value& obj, std::string_view key, std::string_view path, Fn&& fn) {
  const Value* v = find_non_null(obj, key);
  if (!v) return;
  std::string p = join_path(path, key);
  expect_array(*v, p);
  for (rapidjson::SizeType i = 0; i < v->Size(); ++i) fn((*v)[i], index_path(p, i));
}

// Calls fn(member, member_path) when the optional member `key` is present; it must be an object.
template <typename Fn>
void with_object(const Value& obj, std::string_view key, std::string_view path, Fn&& fn) {
  const Value* v = find_non_null(obj, key);
  if (!v) return;
  std::string p = join_path(path, key);
  expect_object(*v, p);
  fn(*v, p);
}

}  // namespace

std::vector<std::string> decode_string_array(const Value& obj, std::string_view key, std::string_view path) {
  std::vector<std::string> out;
  for_each_element(obj, key, path, [&](const Value& e, const std::string& p) {
    out.emplace_back(json::expect_string(e, p));
  });
  return out;
}

namespace {

std::vector<SelectorRequirement> decode_requirements(const Value& obj, std::string_view key,
                                                     std::string_view path) {
  std::vector<SelectorRequirement> out;
  for_each_element(obj, key, path, [&](const Value& e, const std::string& p) {
    expect_object(e, p);
    SelectorRequirement r;
    r.key = get_string(e, "key", p);
    r.op = get_string(e, "operator", p);
    r.values = decode_string_array(e, "values", p);
    out.push_back(std::move(r));
  });
  return out;
}

}  // namespace

// metav1.LabelSelector, the one decoder for every selector (PDBs, pod affinity terms, spread
// constraints). nullopt when the member is absent or null: metav1.LabelSelectorAsSelector turns nil
// into labels.Nothing() and {} into labels.Everything(), so the two stay apart.
std::optional<LabelSelector> decode_label_selector(const Value& obj, std::string_view key,
                                                   std::string_view path) {
  std::optional<LabelSelector> out;
  with_object(obj, key, path, [&](const Value& sel, const std::string& p) {
    LabelSelector ls;
    ls.match_labels = decode_string_map(sel, "matchLabels", p);
    ls.match_expressions = decode_requirements(sel, "matchExpressions", p);
    out = std::move(ls);
  });
  return out;
}

namespace {

NodeSelectorTerm decode_term(const Value& v, std::string_view path) {
  expect_object(v, path);
  NodeSelectorTerm t;
  t.match_expressions = decode_requirements(v, "matchExpressions", path);
  t.match_fields = decode_requirements(v, "matchFields", path);
  return t;
}

// `affinity`: spec.affinity, at `ap`.
std::optional<NodeAffinity> decode_node_affinity(const Value& affinity, const std::string& ap) {
  const Value* na = find_non_null(affinity, "nodeAffinity");
  if (!na) return std::nullopt;
  std::string np = join_path(ap, "nodeAffinity");
  expect_object(*na, np);
  NodeAffinity out;
  with_object(*na, "requiredDuringSchedulingIgnoredDuringExecution", np,
              [&](const Value& req, const std::string& rp) {
                std::vector<NodeSelectorTerm> terms;
                for_each_element(req, "nodeSelectorTerms", rp, [&](const Value& e, const std::string& p) {
                  terms.push_back(decode_term(e, p));
                });
                out.required = std::move(terms);
              });
  for_each_element(*na, "preferredDuringSchedulingIgnoredDuringExecution", np,
                   [&](const Value& e, const std::string& p) {
                     expect_object(e, p);
                     PreferredSchedulingTerm t;
                     t.weight = get_int32(e, "weight", p).value_or(0);
                     if (const Value* pref = find_non_null(e, "preference")) {
                       t.preference = decode_term(*pref, join_path(p, "preference"));
                     }
                     out.preferred.push_back(std::move(t));
                   });
  return out;
}

// core/v1 PodAffinityTerm.
PodAffinityTerm decode_pod_affinity_term(const Value& v, std::string_view path) {
  expect_object(v, path);
  PodAffinityTerm t;
  t.label_selector = decode_label_selector(v, "labelSelector", path);
  t.namespaces = decode_string_array(v, "namespaces", path);
  t.namespace_selector = decode_label_selector(v, "namespaceSelector", path);
  t.topology_key = get_string(v, "topologyKey", path);
  t.match_label_keys = decode_string_array(v, "matchLabelKeys", path);
  t.mismatch_label_keys = decode_string_array(v, "mismatchLabelKeys", path);
  return t;
}

// spec.affinity.podAffinity or podAntiAffinity (`key`): its terms appended to `required` and `preferred`.
void decode_pod_affinity(const Value& affinity, std::string_view key, const std::string& ap,
                         std::vector<PodAffinityTerm>& required,
                         std::vector<WeightedPodAffinityTerm>& preferred) {
  with_object(affinity, key, ap, [&](const Value& pa, const std::string& pp) {
    for_each_element(
        pa, "requiredDuringSchedulingIgnoredDuringExecution", pp,
        [&](const Value& e, const std::string& p) { required.push_back(decode_pod_affinity_term(e, p)); });
    for_each_element(pa, "preferredDuringSchedulingIgnoredDuringExecution", pp,
                     [&](const Value& e, const std::string& p) {
                       expect_object(e, p);
                       WeightedPodAffinityTerm w;
                       w.weight = get_int32(e, "weight", p).value_or(0);
                       if (const Value* term = find_non_null(e, "podAffinityTerm")) {
                         w.term = decode_pod_affinity_term(*term, join_path(p, "podAffinityTerm"));
                       }
                       preferred.push_back(std::move(w));
                     });
  });
}

// core/v1 TopologySpreadConstraint. maxSkew and whenUnsatisfiable are required by the API server
// (pkg/apis/core/validation/validation.go: validateTopologySpreadConstraints), so the model's
// defaults stand in only for hand-written objects that leave them out.
TopologySpreadConstraint decode_spread_constraint(const Value& v, std::string_view path) {
  expect_object(v, path);
  TopologySpreadConstraint c;
  if (auto skew = get_int32(v, "maxSkew", path)) c.max_skew = *skew;
  c.topology_key = get_string(v, "topologyKey", path);
  if (std::string when = get_string(v, "whenUnsatisfiable", path); !when.empty()) {
    c.when_unsatisfiable = std::move(when);
  }
  c.label_selector = decode_label_selector(v, "labelSelector", path);
  c.min_domains = get_int32(v, "minDomains", path);
  c.node_affinity_policy = get_string(v, "nodeAffinityPolicy", path);
  c.node_taints_policy = get_string(v, "nodeTaintsPolicy", path);
  c.match_label_keys = decode_string_array(v, "matchLabelKeys", path);
  return c;
}

// A container's ports with a hostPort (> 0) appended to `out`; the others are only checked.
void decode_host_ports(const Value& container, std::string_view path, std::vector<HostPort>* out) {
  for_each_element(container, "ports", path, [&](const Value& e, const std::string& p) {
    expect_object(e, p);
    const int32_t port = get_int32(e, "hostPort", p).value_or(0);
    std::string protocol = get_string(e, "protocol", p);
    std::string host_ip = get_string(e, "hostIP", p);
    if (port <= 0 || !out) return;
    // The API server defaults an empty protocol to TCP (pkg/apis/core/v1/defaults.go
    // SetDefaults_ContainerPort); HostPortInfo.sanitize does the same for the scheduler.
    out->push_back(HostPort{port, protocol.empty() ? "TCP" : std::move(protocol), std::move(host_ip)});
  });
}

Container decode_container(const Value& v, std::string_view path) {
  expect_object(v, path);
  Container c;
  c.name = get_string(v, "name", path);
  c.image = get_string(v, "image", path);
  c.restartable = get_string(v, "restartPolicy", path) == "Always";
  with_object(v, "resources", path, [&](const Value& res, const std::string& rp) {
    if (const Value* req = find_non_null(res, "requests")) {
      std::string qp = join_path(rp, "requests");
      c.requests = decode_resource_list(*req, qp);
      c.has_cpu_request = find_non_null(*req, "cpu") != nullptr;
      c.has_memory_request = find_non_null(*req, "memory") != nullptr;
    }
  });
  return c;
}

// A resource list and whether it names cpu and memory (a present key, even "0", gets no scoring default).
Resources decode_named_list(const Value& list, std::string_view path, bool& names_cpu, bool& names_memory) {
  Resources r = decode_resource_list(list, path);
  names_cpu = names_cpu || find_non_null(list, "cpu") != nullptr;
  names_memory = names_memory || find_non_null(list, "memory") != nullptr;
  return r;
}

// spec.resources.requests (pod-level resources), when present.
std::optional<PodLevelRequests> decode_pod_level_requests(const Value& spec, std::string_view sp) {
  std::optional<PodLevelRequests> out;
  with_object(spec, "resources", sp, [&](const Value& res, const std::string& rp) {
    const Value* req = find_non_null(res, "requests");
    if (!req) return;
    PodLevelRequests p;
    p.amounts = decode_named_list(*req, join_path(rp, "requests"), p.names_cpu, p.names_memory);
    out = std::move(p);
  });
  return out;
}

// One status.containerStatuses / initContainerStatuses entry: its resources for the container of its
// name, when the kubelet reported them (`resources` present: component-helpers reads a status only
// then).
void decode_container_status(const Value& e, std::string_view p, Pod& pod) {
  expect_object(e, p);
  const std::string name = get_string(e, "name", p);
  const Value* res = find_non_null(e, "resources");
  if (!res) return;
  const std::string rp = join_path(p, "resources");
  expect_object(*res, rp);
  ContainerResourceStatus st;
  if (const Value* req = find_non_null(*res, "requests"))
    st.requests = decode_named_list(*req, join_path(rp, "requests"), st.names_cpu, st.names_memory);
  if (const Value* alloc = find_non_null(e, "allocatedResources"))
    st.allocated =
        decode_named_list(*alloc, join_path(p, "allocatedResources"), st.names_cpu, st.names_memory);
  for (auto* list : {&pod.containers, &pod.init_containers})
    for (Container& c : *list)
      if (c.name == name) c.status = st;
}

// status.conditions: the first PodResizePending says whether the resize is infeasible
// (component-helpers IsPodResizeInfeasible).
bool decode_resize_infeasible(const Value& status, std::string_view stp) {
  std::optional<bool> infeasible;
  for_each_element(status, "conditions", stp, [&](const Value& e, const std::string& p) {
    expect_object(e, p);
    if (infeasible || get_string(e, "type", p) != "PodResizePending") return;
    infeasible = get_string(e, "reason", p) == "Infeasible";
  });
  return infeasible.value_or(false);
}

}  // namespace

std::optional<int64_t> decode_time(const Value& obj, std::string_view key, std::string_view path) {
  const Value* v = find_non_null(obj, key);
  if (!v) return std::nullopt;
  std::string p = join_path(path, key);
  auto t = parse_rfc3339(json::expect_string(*v, p));
  if (!t) throw DecodeError(p + ": not an RFC 3339 time");
  return t;
}

Resources decode_resource_list(const Value& v, std::string_view path) {
  expect_object(v, path);
  Resources r;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    std::string_view name = json::view(it->name);
    const Value& q = it->value;
    if (q.IsNull()) continue;
    const auto p = [&] { return join_path(path, name); };  // for an error only
    std::optional<Quantity> quantity;
    std::string error;
    if (q.IsString()) {
      // Quantity.UnmarshalJSON trims surrounding spaces before parsing.
      std::string_view text = json::view(q);
      while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
      while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
      quantity = parse_quantity(text, &error);
    } else if (q.IsNumber()) {
      // Go's Quantity also accepts a bare JSON number; reuse the string grammar on its text.
      rapidjson::StringBuffer buf;
      rapidjson::Writer<rapidjson::StringBuffer> w(buf);
      q.Accept(w);
      quantity = parse_quantity(std::string_view(buf.GetString(), buf.GetSize()), &error);
    } else {
      json::fail_type(p(), "quantity string", q);
    }
    if (!quantity) throw DecodeError(p() + ": invalid quantity: " + error);
    // The API server refuses negative requests, overhead and allocatable
    // (pkg/apis/core/validation/validation.go: ValidateResourceQuantityValue). Refusing them here too
    // keeps every amount the algorithms add up non-negative, where a saturating sum is the true sum
    // clamped to int64 whatever the order (8Ei + 8Ei - 8Ei would otherwise come out as 0).
    if (quantity->nanos < 0) throw DecodeError(p() + ": must not be negative");
    set_named_resource(r, name, name == "cpu" ? quantity->milli_value() : quantity->value());
  }
  return r;
}

Pod decode_pod(const Value& v, std::string_view path) {
  expect_object(v, path);
  Pod pod;
  const Value* annotations = nullptr;
  with_object(v, "metadata", path, [&](const Value& md, const std::string& mp) {
    annotations = find_non_null(md, "annotations");
    pod.name = get_string(md, "name", mp);
    pod.namespace_ = get_string(md, "namespace", mp);
    pod.uid = get_string(md, "uid", mp);
    pod.labels = decode_string_map(md, "labels", mp);
    pod.terminating = find_non_null(md, "deletionTimestamp") != nullptr;
    // The first reference with controller: true, as metav1.GetControllerOf picks it.
    bool have_controller = false;
    for_each_element(md, "ownerReferences", mp, [&](const Value& e, const std::string& p) {
      expect_object(e, p);
      std::string kind = get_string(e, "kind", p);
      std::string name = get_string(e, "name", p);
      if (have_controller || !json::get_bool(e, "controller", p)) return;
      have_controller = true;
      pod.controller_kind = std::move(kind);
      pod.controller_name = std::move(name);
    });
  });
  with_object(v, "spec", path, [&](const Value& spec, const std::string& sp) {
    pod.node_name = get_string(spec, "nodeName", sp);
    pod.preemption_policy = get_string(spec, "preemptionPolicy", sp);
    pod.priority = get_int32(spec, "priority", sp);
    with_object(spec, "schedulingGroup", sp, [&](const Value& g, const std::string& gp) {
      pod.scheduling_group = get_string(g, "podGroupName", gp);
    });
    // Host ports as kube-scheduler collects them (pkg/scheduler/util/utils.go GetHostPorts, read by
    // NodePorts PreFilter and NodeInfo.updateUsedPorts): the containers' and the sidecars' (init
    // containers with restartPolicy: Always, which run as long as the pod). The other init containers'
    // ports are checked but not kept: those have exited before the containers start. (The order is
    // the containers' first here; no check depends on it.)
    for_each_element(spec, "containers", sp, [&](const Value& e, const std::string& p) {
      pod.containers.push_back(decode_container(e, p));
      decode_host_ports(e, p, &pod.host_ports);
    });
    for_each_element(spec, "initContainers", sp, [&](const Value& e, const std::string& p) {
      pod.init_containers.push_back(decode_container(e, p));
      decode_host_ports(e, p, pod.init_containers.back().restartable ? &pod.host_ports : nullptr);
    });
    if (const Value* oh = find_non_null(spec, "overhead")) {
      pod.overhead = decode_resource_list(*oh, join_path(sp, "overhead"));
    }
    pod.pod_level_requests = decode_pod_level_requests(spec, sp);
    pod.node_selector = decode_string_map(spec, "nodeSelector", sp);
    with_object(spec, "affinity", sp, [&](const Value& affinity, const std::string& ap) {
      pod.node_affinity = decode_node_affinity(affinity, ap);
      PodAffinityRules rules;
      decode_pod_affinity(affinity, "podAffinity", ap, rules.required_affinity, rules.preferred_affinity);
      decode_pod_affinity(affinity, "podAntiAffinity", ap, rules.required_anti_affinity,
                          rules.preferred_anti_affinity);
      // Most pods have no terms: they keep a null pointer, not an empty rules object (the cache keeps
      // every pod).
      if (!rules.empty()) pod.affinity = std::make_shared<const PodAffinityRules>(std::move(rules));
    });
    for_each_element(spec, "tolerations", sp, [&](const Value& e, const std::string& p) {
      expect_object(e, p);
      pod.tolerations.push_back(Toleration{get_string(e, "key", p), get_string(e, "operator", p),
                                           get_string(e, "value", p), get_string(e, "effect", p)});
    });
    for_each_element(spec, "topologySpreadConstraints", sp, [&](const Value& e, const std::string& p) {
      pod.topology_spread_constraints.push_back(decode_spread_constraint(e, p));
    });
  });
  with_object(v, "status", path, [&](const Value& status, const std::string& stp) {
    pod.phase = get_string(status, "phase", stp);
    pod.nominated_node_name = get_string(status, "nominatedNodeName", stp);
    pod.start_time = decode_time(status, "startTime", stp);
    // preemption.go podTerminatingByPreemption reads the first DisruptionTarget condition only.
    bool seen_disruption_target = false;
    for_each_element(status, "conditions", stp, [&](const Value& e, const std::string& p) {
      expect_object(e, p);
      if (seen_disruption_target || get_string(e, "type", p) != "DisruptionTarget") return;
      seen_disruption_target = true;
      pod.preemption_victim =
          get_string(e, "status", p) == "True" && get_string(e, "reason", p) == "PreemptionByScheduler";
    });
    // In-place resize (algorithms/pod_requests.h): what each container runs with and was allocated.
    for_each_element(status, "containerStatuses", stp,
                     [&](const Value& e, const std::string& p) { decode_container_status(e, p, pod); });
    for_each_element(status, "initContainerStatuses", stp,
                     [&](const Value& e, const std::string& p) { decode_container_status(e, p, pod); });
    pod.resize_infeasible = decode_resize_infeasible(status, stp);
  });
  pod.gpu_preferences = decode_gpu_preferences(annotations);
  pod.gpu_shares = decode_gpu_shares(annotations, pod.init_containers.size());
  return pod;
}

Node decode_node(const Value& v, std::string_view path) {
  expect_object(v, path);
  Node node;
  with_object(v, "metadata", path, [&](const Value& md, const std::string& mp) {
    node.name = get_string(md, "name", mp);
    node.labels = decode_string_map(md, "labels", mp);
    node.gpus = decode_node_gpus(find_non_null(md, "annotations"));
  });
  if (node.name.empty()) throw DecodeError(join_path(path, "metadata.name") + ": missing");
  with_object(v, "spec", path, [&](const Value& spec, const std::string& sp) {
    node.unschedulable = json::get_bool(spec, "unschedulable", sp);
    for_each_element(spec, "taints", sp, [&](const Value& e, const std::string& p) {
      expect_object(e, p);
      node.taints.push_back(
          Taint{get_string(e, "key", p), get_string(e, "value", p), get_string(e, "effect", p)});
    });
  });
  with_object(v, "status", path, [&](const Value& status, const std::string& stp) {
    if (const Value* alloc = find_non_null(status, "allocatable")) {
      node.allocatable = decode_resource_list(*alloc, join_path(stp, "allocatable"));
    }
    std::vector<NodeImage> images;
    for_each_element(status, "images", stp, [&](const Value& e, const std::string& p) {
      expect_object(e, p);
      const int64_t size = json::get_int(e, "sizeBytes", p).value_or(0);
      // Keys straight from the JSON strings: nodes list dozens of images, and only keys are kept.
      for_each_element(e, "names", p, [&](const Value& name, const std::string& np) {
        images.push_back(NodeImage{image_key(json::expect_string(name, np)), size});
      });
    });
    node.images = NodeImages(std::move(images));
  });
  return node;
}

PodDisruptionBudget decode_pdb(const Value& v, std::string_view path) {
  expect_object(v, path);
  PodDisruptionBudget pdb;
  with_object(v, "metadata", path, [&](const Value& md, const std::string& mp) {
    pdb.name = get_string(md, "name", mp);
    pdb.namespace_ = get_string(md, "namespace", mp);
  });
  with_object(v, "spec", path, [&](const Value& spec, const std::string& sp) {
    pdb.selector = decode_label_selector(spec, "selector", sp);
  });
  with_object(v, "status", path, [&](const Value& status, const std::string& stp) {
    pdb.disruptions_allowed =
        static_cast<int32_t>(json::get_int(status, "disruptionsAllowed", stp).value_or(0));
    if (const Value* dp = find_non_null(status, "disruptedPods")) {
      expect_object(*dp, join_path(stp, "disruptedPods"));
      for (auto it = dp->MemberBegin(); it != dp->MemberEnd(); ++it) {
        pdb.disrupted_pods.emplace_back(json::view(it->name));
      }
    }
  });
  return pdb;
}

}  // namespace kext
