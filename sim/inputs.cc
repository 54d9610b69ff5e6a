#include "sim/inputs.h"

#include <algorithm>
#include <charconv>
#include <functional>

#include "algorithms/namespaced_key.h"
#include "json/json.h"
#include "kube/codec/k8s_decode.h"
#include "kube/codec/pod_group_decode.h"
#include "kube/codec/workload_decode.h"

namespace kext::simtool {

namespace {

using json::Value;

// As kube/state/snapshot_loader.cc: kubectl prints one flat List, so a few levels are plenty and
// hostile nesting cannot exhaust the stack.
constexpr int kMaxListDepth = 8;

using ItemFn = std::function<void(std::string_view kind, const Value& item, const std::string& path)>;

// Calls `fn` for every object of a List (typed Lists: NodeList, ... whose items may omit kind), an
// array, or a single object, in document order.
void for_each_object(const Value& v, const std::string& path, const ItemFn& fn, int depth = 0) {
  if (depth > kMaxListDepth) {
    throw DecodeError(path + ": Lists nested deeper than " + std::to_string(kMaxListDepth) + " levels");
  }
  auto each = [&](const Value& items, const std::string& ip, std::string_view item_kind) {
    json::expect_array(items, ip);
    for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
      const std::string p = ip + "[" + std::to_string(i) + "]";
      const Value& child = items[i];
      if (!item_kind.empty() && child.IsObject() && json::find_non_null(child, "kind") == nullptr) {
        fn(item_kind, child, p);
      } else {
        for_each_object(child, p, fn, depth + 1);
      }
    }
  };
  if (v.IsArray()) {
    each(v, path, "");
    return;
  }
  json::expect_object(v, path.empty() ? std::string("(document)") : path);
  const std::string kind = json::get_string(v, "kind", path);
  if (kind.empty()) throw DecodeError(json::join_path(path, "kind") + ": missing");
  if (kind == "List" || kind.ends_with("List")) {
    const Value* items = json::find_non_null(v, "items");
    if (items == nullptr) return;
    each(*items, json::join_path(path, "items"),
         kind == "List" ? "" : std::string_view(kind).substr(0, kind.size() - 4));
    return;
  }
  fn(kind, v, path);
}

void parse(std::string_view text, rapidjson::Document& doc) {
  doc.Parse<json::kParseFlags>(text.data(), text.size());
  if (doc.HasParseError()) {
    throw DecodeError(std::string("invalid JSON at offset ") + std::to_string(doc.GetErrorOffset()) + ": " +
                      rapidjson::GetParseError_En(doc.GetParseError()));
  }
}

bool controlled_by_owner(const Value& item, const std::string& path) {
  const Value* md = json::find_non_null(item, "metadata");
  if (md == nullptr || !md->IsObject()) return false;
  const Value* refs = json::find_non_null(*md, "ownerReferences");
  if (refs == nullptr) return false;
  const std::string rp = json::join_path(json::join_path(path, "metadata"), "ownerReferences");
  json::expect_array(*refs, rp);
  for (rapidjson::SizeType i = 0; i < refs->Size(); ++i) {
    const std::string p = rp + "[" + std::to_string(i) + "]";
    json::expect_object((*refs)[i], p);
    if (json::get_bool((*refs)[i], "controller", p)) return true;
  }
  return false;
}

// "Kind/name" of the controller ownerReference (controlled_by_owner has checked the shapes); "" for none.
std::string controller_of(const Value& item) {
  const Value* md = json::find_non_null(item, "metadata");
  const Value* refs =
      md == nullptr || !md->IsObject() ? nullptr : json::find_non_null(*md, "ownerReferences");
  if (refs == nullptr || !refs->IsArray()) return {};
  for (const Value& ref : refs->GetArray()) {
    const auto controller = ref.FindMember("controller");
    if (controller == ref.MemberEnd() || !controller->value.IsTrue()) continue;
    const auto kind = ref.FindMember("kind");
    const auto name = ref.FindMember("name");
    const auto str = [&](auto it) {
      return it != ref.MemberEnd() && it->value.IsString() ? json::view(it->value) : std::string_view();
    };
    return std::string(str(kind)) + "/" + std::string(str(name));
  }
  return {};
}

std::optional<sim::SimDuration> grace_period(const Value& pod_or_template, const std::string& path) {
  const Value* spec = json::find_non_null(pod_or_template, "spec");
  if (spec == nullptr || !spec->IsObject()) return std::nullopt;
  const std::string sp = json::join_path(path, "spec");
  auto g = json::get_int(*spec, "terminationGracePeriodSeconds", sp);
  if (!g) return std::nullopt;
  // The API server refuses negative values (ValidateNonnegativeField); a year bounds the arithmetic.
  if (*g < 0 || *g > 365LL * 24 * 3600) {
    throw DecodeError(json::join_path(sp, "terminationGracePeriodSeconds") + ": " + std::to_string(*g) +
                      " is not between 0 and a year of seconds");
  }
  return std::chrono::seconds(*g);
}

std::string priority_class_name(const Value& pod_or_template, const std::string& path) {
  const Value* spec = json::find_non_null(pod_or_template, "spec");
  if (spec == nullptr || !spec->IsObject()) return {};
  return json::get_string(*spec, "priorityClassName", json::join_path(path, "spec"));
}

std::optional<int64_t> deletion_timestamp(const Value& pod, const std::string& path) {
  const Value* md = json::find_non_null(pod, "metadata");
  if (md == nullptr || !md->IsObject()) return std::nullopt;
  return decode_time(*md, "deletionTimestamp", json::join_path(path, "metadata"));
}

// The annotation `key` of an object with metadata, and its field path; nullopt without one.
std::optional<std::pair<std::string_view, std::string>> annotation(const Value& object,
                                                                   const std::string& path,
                                                                   std::string_view key) {
  const Value* md = json::find_non_null(object, "metadata");
  if (md == nullptr || !md->IsObject()) return std::nullopt;
  const Value* annotations = json::find_non_null(*md, "annotations");
  if (annotations == nullptr) return std::nullopt;
  const std::string ap = json::join_path(path, "metadata.annotations");
  json::expect_object(*annotations, ap);
  const Value* v = json::find_non_null(*annotations, key);
  if (v == nullptr) return std::nullopt;
  std::string p = json::join_path(ap, key);
  const std::string_view text = json::expect_string(*v, p);
  return std::make_pair(text, std::move(p));
}

// The kUsageAnnotation of an object with metadata, nullptr without one.
std::shared_ptr<const sim::UsageProfile> usage_annotation(const Value& object, const std::string& path) {
  const auto a = annotation(object, path, kUsageAnnotation);
  if (!a) return nullptr;
  std::string error;
  std::optional<sim::UsageProfile> profile = sim::parse_usage_profile(a->first, error);
  if (!profile) throw DecodeError(a->second + ": " + error);
  return std::make_shared<const sim::UsageProfile>(std::move(*profile));
}

// The kRuntimeAnnotation of an object with metadata, nullopt without one.
std::optional<sim::SimDuration> runtime_annotation(const Value& object, const std::string& path) {
  const auto a = annotation(object, path, kRuntimeAnnotation);
  if (!a) return std::nullopt;
  const std::string_view text = a->first;
  const std::string& p = a->second;
  double seconds = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  // The flags' bound (sim_options.cc kMaxSeconds), so that the clock cannot overflow.
  if (ec != std::errc() || end != text.data() + text.size() || !(seconds >= 0 && seconds <= 1e9)) {
    throw DecodeError(p + ": \"" + std::string(text) + "\" is not a number of seconds between 0 and 1e9");
  }
  return std::chrono::duration_cast<sim::SimDuration>(std::chrono::duration<double>(seconds));
}

PodTraits traits_of(const Value& pod_or_template, const std::string& path, bool controlled) {
  return PodTraits{controlled,
                   grace_period(pod_or_template, path),
                   priority_class_name(pod_or_template, path),
                   deletion_timestamp(pod_or_template, path),
                   runtime_annotation(pod_or_template, path),
                   std::string(),
                   usage_annotation(pod_or_template, path)};
}

// A pod's traits with its controller, if it names one.
PodTraits pod_traits(const Value& item, const std::string& path) {
  PodTraits t = traits_of(item, path, controlled_by_owner(item, path));
  t.owner = controller_of(item);
  return t;
}

// The identity defaults both inputs share.
// An object without metadata.namespace is in "default", as the API server places it.
constexpr std::string_view kDefaultNamespace = "default";

// A PodGroup, in its namespace ("default" when it names none); a second one of the same name replaces
// the first, as an apply would.
void add_pod_group(gang::GroupMap& into, const Value& item, const std::string& path) {
  gang::PodGroupSpec g = decode_pod_group(item, path);
  if (g.namespace_.empty()) g.namespace_ = std::string(kDefaultNamespace);
  into.insert_or_assign(g.key(), std::move(g));
}

// A Deployment's pod-template-hash: ten characters of rand.SafeEncodeString's alphabet from a hash of
// the Deployment (kube-controller-manager hashes the template, which a simulation need not match:
// only that the Deployment's pods share it).
std::string template_hash(std::string_view of) {
  constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = 14695981039346656037ULL;  // FNV-1a, as controller.ComputeHash uses
  for (char c : of) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  std::string out;
  for (int i = 0; i < 10; ++i, h /= kAlphabet.size()) out.push_back(kAlphabet[h % kAlphabet.size()]);
  return out;
}

void complete_identity(Pod& pod, const std::string& path) {
  if (pod.name.empty()) throw DecodeError(json::join_path(path, "metadata.name") + ": missing");
  if (pod.namespace_.empty()) pod.namespace_ = kDefaultNamespace;
  if (pod.uid.empty()) pod.uid = namespaced_key(pod.namespace_, pod.name);
}

// A controller's pod count: `field` of its spec, default 1.
int64_t replicas(const Value& item, const std::string& path, std::string_view field) {
  const Value* spec = json::find_non_null(item, "spec");
  if (spec == nullptr) return 1;
  const std::string sp = json::join_path(path, "spec");
  json::expect_object(*spec, sp);
  const int64_t n = json::get_int(*spec, field, sp).value_or(1);
  // A bound so that a typo cannot ask for billions of pods.
  constexpr int64_t kMaxReplicas = 1'000'000;
  if (n < 0 || n > kMaxReplicas) {
    throw DecodeError(json::join_path(sp, field) + ": " + std::to_string(n) + " is not between 0 and " +
                      std::to_string(kMaxReplicas));
  }
  return n;
}

}  // namespace

PriorityClass decode_priority_class(const Value& item, const std::string& path) {
  PriorityClass pc;
  if (const Value* md = json::find_non_null(item, "metadata")) {
    const std::string mp = json::join_path(path, "metadata");
    json::expect_object(*md, mp);
    pc.name = json::get_string(*md, "name", mp);
  }
  if (pc.name.empty()) throw DecodeError(json::join_path(path, "metadata.name") + ": missing");
  // PriorityClass.value is an int32 and required.
  const auto value = json::get_int(item, "value", path);
  if (!value) throw DecodeError(json::join_path(path, "value") + ": missing");
  if (*value < INT32_MIN || *value > INT32_MAX)
    throw DecodeError(json::join_path(path, "value") + ": out of int32 range");
  pc.value = static_cast<int32_t>(*value);
  pc.global_default = json::get_bool(item, "globalDefault", path);
  pc.preemption_policy = json::get_string(item, "preemptionPolicy", path);
  return pc;
}

InputPod decode_cluster_pod(const Value& item, const std::string& path) {
  InputPod p{decode_pod(item, path), pod_traits(item, path)};
  complete_identity(p.pod, path);
  return p;
}

ClusterInput decode_cluster(std::string_view text, bool keep_node_images) {
  rapidjson::Document doc;
  parse(text, doc);
  std::vector<Node> nodes;
  std::vector<std::pair<InputPod, bool>> pods;  // bound?
  std::vector<PodDisruptionBudget> pdbs;
  std::vector<PriorityClass> priority_classes;
  std::unordered_map<std::string, std::string> node_images;
  ClusterInput in;
  // As the extender's cache keeps them (StateCache::Batch::upsert_workload): a nil or empty selector
  // selects no pod (client-go listers' GetPodServices and the like skip it).
  auto keep_workload = [](std::vector<WorkloadSelector>& into, WorkloadSelector w) {
    if (!selects_no_pods(w)) into.push_back(std::move(w));
  };
  for_each_object(doc, "", [&](std::string_view kind, const Value& item, const std::string& path) {
    if (kind == "Node") {
      nodes.push_back(decode_node(item, path));
      if (keep_node_images) {
        const Value* status = json::find(item, "status");
        const Value* images = status ? json::find(*status, "images") : nullptr;
        if (images && images->IsArray()) {
          rapidjson::StringBuffer text;
          rapidjson::Writer<rapidjson::StringBuffer> w(text);
          images->Accept(w);
          node_images[nodes.back().name].assign(text.GetString(), text.GetSize());
        }
      }
    } else if (kind == "Pod") {
      InputPod p = decode_cluster_pod(item, path);
      const bool bound = !p.pod.node_name.empty();
      pods.emplace_back(std::move(p), bound);
    } else if (kind == "PodDisruptionBudget") {
      pdbs.push_back(decode_pdb(item, path));
    } else if (kind == "Namespace") {
      NamespaceObject ns = decode_namespace(item, path);
      in.namespace_labels.insert_or_assign(std::move(ns.name), std::move(ns.labels));
    } else if (kind == "Service") {
      keep_workload(in.services, decode_service(item, path));
    } else if (kind == "ReplicationController") {
      keep_workload(in.replication_controllers, decode_replication_controller(item, path));
    } else if (kind == "ReplicaSet") {
      keep_workload(in.replica_sets, decode_replica_set(item, path));
    } else if (kind == "StatefulSet") {
      keep_workload(in.stateful_sets, decode_stateful_set(item, path));
    } else if (kind == "PriorityClass") {
      priority_classes.push_back(decode_priority_class(item, path));
    } else if (kind == "PodGroup") {
      add_pod_group(in.pod_groups, item, path);
    }
  });
  in.priority_classes = std::move(priority_classes);
  in.node_images = std::move(node_images);
  for (auto& n : nodes) in.cluster.add_node(std::move(n));
  for (auto& pdb : pdbs) in.cluster.add_pdb(std::move(pdb));
  for (auto& [p, bound] : pods) {
    if (p.pod.start_time) in.epoch_unix_seconds = std::max(in.epoch_unix_seconds, *p.pod.start_time);
    if (p.pod.is_terminal()) continue;
    if (bound) {
      in.running.emplace_back(p.pod.uid, p.traits);
      in.cluster.add_pod(std::move(p.pod));  // its ClusterError names the pod
    } else if (!p.pod.terminating) {
      in.pending.push_back(std::move(p));
    }
  }
  return in;
}

namespace {

// A workload's pods are pending: one with spec.nodeName (of the object, or template, at `path`) is refused.
void check_unbound(const Pod& pod, const std::string& path) {
  if (!pod.node_name.empty()) {
    throw DecodeError(json::join_path(path, "spec.nodeName") + ": a workload pod must not be bound");
  }
}

// A controller's kind, name and namespace as its metadata gives them.
struct ControllerRef {
  std::string_view kind;
  std::string name;
  std::string namespace_;  // "" when the metadata names none
};

ControllerRef controller_ref(std::string_view kind, const Value& item, const std::string& path) {
  ControllerRef c{kind, {}, {}};
  if (const Value* md = json::find_non_null(item, "metadata")) {
    const std::string mp = json::join_path(path, "metadata");
    json::expect_object(*md, mp);
    c.name = json::get_string(*md, "name", mp);
    c.namespace_ = json::get_string(*md, "namespace", mp);
  }
  if (c.name.empty()) throw DecodeError(json::join_path(path, "metadata.name") + ": missing");
  return c;
}

// A controller's spec.template as the pods it creates have it, and their traits: controlled, owned by
// the controller, its kRuntimeAnnotation when the template has none. The pods' controller is the
// workload controller that creates them (a Deployment's ReplicaSet is named by owner_selector).
std::pair<Pod, PodTraits> template_pod(const ControllerRef& c, const Value& item, const std::string& path) {
  const Value* spec = json::find_non_null(item, "spec");
  const Value* tmpl = spec == nullptr ? nullptr : json::find_non_null(*spec, "template");
  const std::string tp = json::join_path(path, "spec.template");
  if (tmpl == nullptr) throw DecodeError(tp + ": missing");
  // A PodTemplateSpec is a Pod's metadata and spec.
  Pod pod = decode_pod(*tmpl, tp);
  check_unbound(pod, tp);
  PodTraits traits = traits_of(*tmpl, tp, true);
  traits.owner = std::string(c.kind) + "/" + c.name;
  if (!traits.runtime) traits.runtime = runtime_annotation(item, path);
  if (!traits.usage) traits.usage = usage_annotation(item, path);
  pod.controller_kind = c.kind == "Deployment" ? "ReplicaSet" : std::string(c.kind);
  pod.controller_name = c.name;
  return {std::move(pod), std::move(traits)};
}

// The selector of the controller that owns the pods (a Job's none), kept in `in` for
// PodTopologySpread's default constraints. A Deployment's pods belong to its ReplicaSet
// "<name>-<pod-template-hash>" and carry that label (pkg/controller/deployment sync.go
// getNewReplicaSet), whose selector is the Deployment's plus the hash: `pod` gets both.
void owner_selector(const ControllerRef& c, const Value& item, const std::string& path, Pod& pod,
                    WorkloadInput& in) {
  if (c.kind == "Job") return;
  const std::string pod_namespace = c.namespace_.empty() ? std::string(kDefaultNamespace) : c.namespace_;
  WorkloadSelector owner = decode_replica_set(item, path);  // metadata and spec.selector
  owner.namespace_ = pod_namespace;
  if (c.kind == "Deployment") {
    const std::string hash = template_hash(namespaced_key(pod_namespace, c.name));
    owner.name = pod.controller_name = c.name + "-" + hash;
    owner.selector.match_labels["pod-template-hash"] = hash;
    Labels labels = pod.labels.get();
    labels["pod-template-hash"] = hash;
    pod.labels = std::move(labels);
  }
  if (!selects_no_pods(owner))
    (c.kind == "StatefulSet" ? in.stateful_sets : in.replica_sets).push_back(std::move(owner));
}

// A Deployment, ReplicaSet, StatefulSet or Job: its pods, as its controller creates them, named
// "<name>-<index>" from 0.
void expand_controller(std::string_view kind, std::string_view count_field, const Value& item,
                       const std::string& path, WorkloadInput& in) {
  const int64_t n = replicas(item, path, count_field);
  const ControllerRef c = controller_ref(kind, item, path);
  auto [controlled, traits] = template_pod(c, item, path);
  owner_selector(c, item, path, controlled, in);
  for (int64_t i = 0; i < n; ++i) {
    InputPod p{controlled, traits};
    p.pod.name = c.name + "-" + std::to_string(i);
    p.pod.namespace_ = c.namespace_;
    p.pod.uid.clear();
    complete_identity(p.pod, path);
    in.pods.push_back(std::move(p));
  }
}

// The spec field a controller's pod count is in; "" for a kind that is not a controller.
std::string_view count_field_of(std::string_view kind) {
  if (kind == "Deployment" || kind == "ReplicaSet" || kind == "StatefulSet") return "replicas";
  if (kind == "Job") return "parallelism";
  return {};
}

// One object of a workload file into `in`.
void add_workload_object(std::string_view kind, const Value& item, const std::string& path,
                         WorkloadInput& in) {
  if (kind == "PriorityClass") {
    in.priority_classes.push_back(decode_priority_class(item, path));
  } else if (kind == "PodGroup") {
    add_pod_group(in.pod_groups, item, path);
  } else if (kind == "Pod") {
    InputPod p = decode_cluster_pod(item, path);
    check_unbound(p.pod, path);
    in.pods.push_back(std::move(p));
  } else if (kind == "Service") {
    WorkloadSelector s = decode_service(item, path);
    if (s.namespace_.empty()) s.namespace_ = std::string(kDefaultNamespace);
    if (!selects_no_pods(s)) in.services.push_back(std::move(s));
  } else if (const std::string_view count_field = count_field_of(kind); !count_field.empty()) {
    expand_controller(kind, count_field, item, path, in);
  } else {
    throw DecodeError(json::join_path(path, "kind") + ": \"" + std::string(kind) +
                      "\" is not a Pod, Deployment, ReplicaSet, StatefulSet, Job, Service or PriorityClass");
  }
}

}  // namespace

WorkloadInput decode_workload(std::string_view text) {
  rapidjson::Document doc;
  parse(text, doc);
  WorkloadInput in;
  for_each_object(doc, "", [&](std::string_view kind, const Value& item, const std::string& path) {
    add_workload_object(kind, item, path, in);
  });
  return in;
}

InputPod decode_request_pod(std::string_view body) {
  rapidjson::Document doc;
  parse(body, doc);
  json::expect_object(doc, "(request)");
  const Value* pod = json::find_non_null(doc, "Pod");
  if (pod == nullptr) throw DecodeError("Pod: missing");
  InputPod p = decode_cluster_pod(*pod, "Pod");
  if (!p.pod.node_name.empty()) throw DecodeError("Pod.spec.nodeName: a pending pod must not be bound");
  return p;
}

void resolve_priorities(std::vector<InputPod>& pods, const std::vector<PriorityClass>& classes) {
  // scheduling.SystemPriorityClasses (pkg/apis/scheduling/types.go): every cluster has them.
  std::vector<PriorityClass> all = {{"system-cluster-critical", 2000000000, false, ""},
                                    {"system-node-critical", 2000001000, false, ""}};
  all.insert(all.end(), classes.begin(), classes.end());
  const PriorityClass* global_default = nullptr;
  for (const auto& pc : all) {
    if (pc.global_default && (global_default == nullptr || pc.value < global_default->value))
      global_default = &pc;
  }
  for (auto& p : pods) {
    if (p.pod.priority.has_value()) continue;
    const PriorityClass* pc = global_default;
    if (!p.traits.priority_class.empty()) {
      const auto it = std::find_if(all.begin(), all.end(),
                                   [&](const PriorityClass& c) { return c.name == p.traits.priority_class; });
      if (it == all.end()) {
        throw DecodeError("pod " + namespaced_key(p.pod.namespace_, p.pod.name) +
                          ": spec.priorityClassName: no PriorityClass \"" + p.traits.priority_class +
                          "\" in the cluster or workload file");
      }
      pc = &*it;
    }
    // DefaultPriorityWhenNoDefaultClassExists.
    p.pod.priority = pc == nullptr ? 0 : pc->value;
    if (pc != nullptr && p.pod.preemption_policy.empty()) p.pod.preemption_policy = pc->preemption_policy;
  }
}

}  // namespace kext::simtool
