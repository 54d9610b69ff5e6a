#include "extender/codec/k8s_decode.h"

#include <ctime>

#include "common/rfc3339.h"
#include "extender/codec/quantity.h"

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

std::vector<std::string> decode_string_array(const Value& obj, std::string_view key, std::string_view path) {
  std::vector<std::string> out;
  for_each_element(obj, key, path, [&](const Value& e, const std::string& p) {
    out.emplace_back(json::expect_string(e, p));
  });
  return out;
}

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

NodeSelectorTerm decode_term(const Value& v, std::string_view path) {
  expect_object(v, path);
  NodeSelectorTerm t;
  t.match_expressions = decode_requirements(v, "matchExpressions", path);
  t.match_fields = decode_requirements(v, "matchFields", path);
  return t;
}

std::optional<NodeAffinity> decode_node_affinity(const Value& spec, std::string_view path) {
  const Value* affinity = find_non_null(spec, "affinity");
  if (!affinity) return std::nullopt;
  std::string ap = join_path(path, "affinity");
  expect_object(*affinity, ap);
  const Value* na = find_non_null(*affinity, "nodeAffinity");
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
                     const int64_t weight = json::get_int(e, "weight", p).value_or(0);
                     if (weight < INT32_MIN || weight > INT32_MAX) {
                       throw DecodeError(join_path(p, "weight") + ": out of int32 range");
                     }
                     t.weight = static_cast<int32_t>(weight);
                     if (const Value* pref = find_non_null(e, "preference")) {
                       t.preference = decode_term(*pref, join_path(p, "preference"));
                     }
                     out.preferred.push_back(std::move(t));
                   });
  return out;
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

std::optional<int64_t> decode_time(const Value& obj, std::string_view key, std::string_view path) {
  const Value* v = find_non_null(obj, key);
  if (!v) return std::nullopt;
  std::string p = join_path(path, key);
  auto t = parse_rfc3339(json::expect_string(*v, p));
  if (!t) throw DecodeError(p + ": not an RFC 3339 time");
  return t;
}

}  // namespace

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
  with_object(v, "metadata", path, [&](const Value& md, const std::string& mp) {
    pod.name = get_string(md, "name", mp);
    pod.namespace_ = get_string(md, "namespace", mp);
    pod.uid = get_string(md, "uid", mp);
    pod.labels = decode_string_map(md, "labels", mp);
    pod.terminating = find_non_null(md, "deletionTimestamp") != nullptr;
  });
  with_object(v, "spec", path, [&](const Value& spec, const std::string& sp) {
    pod.node_name = get_string(spec, "nodeName", sp);
    pod.preemption_policy = get_string(spec, "preemptionPolicy", sp);
    if (auto p = json::get_int(spec, "priority", sp)) {
      if (*p < INT32_MIN || *p > INT32_MAX)
        throw DecodeError(join_path(sp, "priority") + ": out of int32 range");
      pod.priority = static_cast<int32_t>(*p);
    }
    for_each_element(spec, "containers", sp, [&](const Value& e, const std::string& p) {
      pod.containers.push_back(decode_container(e, p));
    });
    for_each_element(spec, "initContainers", sp, [&](const Value& e, const std::string& p) {
      pod.init_containers.push_back(decode_container(e, p));
    });
    if (const Value* oh = find_non_null(spec, "overhead")) {
      pod.overhead = decode_resource_list(*oh, join_path(sp, "overhead"));
    }
    pod.node_selector = decode_string_map(spec, "nodeSelector", sp);
    pod.node_affinity = decode_node_affinity(spec, sp);
    for_each_element(spec, "tolerations", sp, [&](const Value& e, const std::string& p) {
      expect_object(e, p);
      pod.tolerations.push_back(Toleration{get_string(e, "key", p), get_string(e, "operator", p),
                                           get_string(e, "value", p), get_string(e, "effect", p)});
    });
  });
  with_object(v, "status", path, [&](const Value& status, const std::string& stp) {
    pod.phase = get_string(status, "phase", stp);
    pod.nominated_node_name = get_string(status, "nominatedNodeName", stp);
    pod.start_time = decode_time(status, "startTime", stp);
  });
  return pod;
}

Node decode_node(const Value& v, std::string_view path) {
  expect_object(v, path);
  Node node;
  with_object(v, "metadata", path, [&](const Value& md, const std::string& mp) {
    node.name = get_string(md, "name", mp);
    node.labels = decode_string_map(md, "labels", mp);
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
    if (const Value* sel = find_non_null(spec, "selector")) {
      std::string selp = join_path(sp, "selector");
      expect_object(*sel, selp);
      LabelSelector ls;
      ls.match_labels = decode_string_map(*sel, "matchLabels", selp);
      ls.match_expressions = decode_requirements(*sel, "matchExpressions", selp);
      pdb.selector = std::move(ls);
    }
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
