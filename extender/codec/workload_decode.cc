#include "extender/codec/workload_decode.h"

namespace kext {

namespace {

using json::expect_object;
using json::find_non_null;
using json::get_string;
using json::join_path;
using json::Value;

// Duplicates of k8s_decode.cc's decode_string_map / decode_requirements (in its anonymous
// namespace): to be folded into one shared helper.
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

std::vector<std::string> decode_string_array(const Value& obj, std::string_view key, std::string_view path) {
  std::vector<std::string> out;
  const Value* v = find_non_null(obj, key);
  if (!v) return out;
  std::string p = join_path(path, key);
  json::expect_array(*v, p);
  for (rapidjson::SizeType i = 0; i < v->Size(); ++i)
    out.emplace_back(json::expect_string((*v)[i], p + "[" + std::to_string(i) + "]"));
  return out;
}

// metav1.LabelSelector: matchLabels and matchExpressions.
LabelSelector decode_label_selector(const Value& sel, std::string_view path) {
  expect_object(sel, path);
  LabelSelector ls;
  ls.match_labels = decode_string_map(sel, "matchLabels", path);
  if (const Value* exprs = find_non_null(sel, "matchExpressions")) {
    std::string p = join_path(path, "matchExpressions");
    json::expect_array(*exprs, p);
    for (rapidjson::SizeType i = 0; i < exprs->Size(); ++i) {
      std::string ep = p + "[" + std::to_string(i) + "]";
      const Value& e = (*exprs)[i];
      expect_object(e, ep);
      ls.match_expressions.push_back(SelectorRequirement{
          get_string(e, "key", ep), get_string(e, "operator", ep), decode_string_array(e, "values", ep)});
    }
  }
  return ls;
}

// metadata.namespace and metadata.name; the name is required (it keys the cache).
WorkloadSelector decode_meta(const Value& v, std::string_view path) {
  expect_object(v, path);
  WorkloadSelector w;
  if (const Value* md = find_non_null(v, "metadata")) {
    std::string mp = join_path(path, "metadata");
    expect_object(*md, mp);
    w.name = get_string(*md, "name", mp);
    w.namespace_ = get_string(*md, "namespace", mp);
  }
  if (w.name.empty()) throw DecodeError(join_path(path, "metadata.name") + ": missing");
  return w;
}

const Value* find_spec(const Value& v, std::string_view path) {
  const Value* spec = find_non_null(v, "spec");
  if (spec) expect_object(*spec, join_path(path, "spec"));
  return spec;
}

// Service and ReplicationController: spec.selector is a plain map (labels.Set(...).AsSelector()).
WorkloadSelector decode_map_selector(const Value& v, std::string_view path) {
  WorkloadSelector w = decode_meta(v, path);
  if (const Value* spec = find_spec(v, path))
    w.selector.match_labels = decode_string_map(*spec, "selector", join_path(path, "spec"));
  return w;
}

// ReplicaSet and StatefulSet: spec.selector is a metav1.LabelSelector (LabelSelectorAsSelector).
WorkloadSelector decode_label_selector_owner(const Value& v, std::string_view path) {
  WorkloadSelector w = decode_meta(v, path);
  if (const Value* spec = find_spec(v, path)) {
    if (const Value* sel = find_non_null(*spec, "selector"))
      w.selector = decode_label_selector(*sel, join_path(join_path(path, "spec"), "selector"));
  }
  return w;
}

}  // namespace

NamespaceObject decode_namespace(const Value& v, std::string_view path) {
  expect_object(v, path);
  NamespaceObject ns;
  if (const Value* md = find_non_null(v, "metadata")) {
    std::string mp = join_path(path, "metadata");
    expect_object(*md, mp);
    ns.name = get_string(*md, "name", mp);
    ns.labels = decode_string_map(*md, "labels", mp);
  }
  if (ns.name.empty()) throw DecodeError(join_path(path, "metadata.name") + ": missing");
  return ns;
}

WorkloadSelector decode_service(const Value& v, std::string_view path) {
  return decode_map_selector(v, path);
}

WorkloadSelector decode_replication_controller(const Value& v, std::string_view path) {
  return decode_map_selector(v, path);
}

WorkloadSelector decode_replica_set(const Value& v, std::string_view path) {
  return decode_label_selector_owner(v, path);
}

WorkloadSelector decode_stateful_set(const Value& v, std::string_view path) {
  return decode_label_selector_owner(v, path);
}

}  // namespace kext
