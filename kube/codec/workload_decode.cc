#include "kube/codec/workload_decode.h"

#include "kube/codec/k8s_decode.h"

namespace kext {

namespace {

using json::expect_object;
using json::find_non_null;
using json::get_string;
using json::join_path;
using json::Value;

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
    if (auto sel = decode_label_selector(*spec, "selector", join_path(path, "spec")))
      w.selector = std::move(*sel);
  }
  return w;
}

}  // namespace

NamespaceObject decode_namespace(const Value& v, std::string_view path) {
  NamespaceObject ns;
  ns.name = decode_meta(v, path).name;  // checks the object and its metadata; the name is required
  ns.labels = decode_string_map(*find_non_null(v, "metadata"), "labels", join_path(path, "metadata"));
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
