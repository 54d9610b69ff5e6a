#include "kube/state/snapshot_loader.h"

#include "common/read_file.h"
#include "json/json.h"
#include "kube/codec/device_class_decode.h"
#include "kube/codec/k8s_decode.h"
#include "kube/codec/pod_group_decode.h"
#include "kube/codec/workload_decode.h"
#include "yaml/yaml.h"

namespace kext {

namespace {
// A List inside a List recurses here; kubectl prints one flat List, so a few levels are plenty and
// hostile nesting cannot exhaust the stack.
constexpr int kMaxListDepth = 8;

// Adds an object of a kind the cache keeps; false for any other kind.
bool add_kind(std::string_view kind, const json::Value& item, std::string_view path,
              ClusterStateBuilder& builder) {
  if (kind == "Node") {
    builder.add_node(decode_node(item, path));
  } else if (kind == "Pod") {
    builder.add_pod(decode_pod(item, path));
  } else if (kind == "PodDisruptionBudget") {
    builder.add_pdb(decode_pdb(item, path));
  } else if (kind == "Namespace") {
    NamespaceObject ns = decode_namespace(item, path);
    builder.add_namespace(std::move(ns.name), std::move(ns.labels));
  } else if (kind == "Service") {
    builder.add_workload(WorkloadKind::kService, decode_service(item, path));
  } else if (kind == "ReplicationController") {
    builder.add_workload(WorkloadKind::kReplicationController, decode_replication_controller(item, path));
  } else if (kind == "ReplicaSet") {
    builder.add_workload(WorkloadKind::kReplicaSet, decode_replica_set(item, path));
  } else if (kind == "StatefulSet") {
    builder.add_workload(WorkloadKind::kStatefulSet, decode_stateful_set(item, path));
  } else if (kind == "PodGroup") {
    builder.add_gang(decode_pod_group(item, path));
  } else if (kind == "DeviceClass") {
    DeviceClass c = decode_device_class(item, path);
    builder.add_device_class({c.name, dra_resource_names(c)});
  } else {
    return false;
  }
  return true;
}

void add_object(const json::Value& item, std::string_view path, ClusterStateBuilder& builder, int depth = 0) {
  json::expect_object(item, path);
  std::string kind = json::get_string(item, "kind", path);
  if (add_kind(kind, item, path, builder)) return;
  if (kind == "List" || kind.ends_with("List")) {
    if (depth == kMaxListDepth) {
      throw DecodeError(std::string(path) + ": Lists nested deeper than " + std::to_string(kMaxListDepth) +
                        " levels");
    }
    const json::Value* items = json::find_non_null(item, "items");
    if (!items) return;
    std::string ip = json::join_path(path, "items");
    json::expect_array(*items, ip);
    for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
      std::string p = ip + "[" + std::to_string(i) + "]";
      const json::Value& child = (*items)[i];
      // Typed lists (NodeList) omit kind on their items.
      if (kind != "List" && json::find_non_null(child, "kind") == nullptr) {
        add_kind(std::string_view(kind).substr(0, kind.size() - 4), child, p, builder);
        continue;
      }
      add_object(child, p, builder, depth + 1);
    }
  }
}
}  // namespace

void load_snapshot_json(std::string_view text, ClusterStateBuilder& builder) {
  rapidjson::Document doc;
  doc.Parse<json::kParseFlags>(text.data(), text.size());
  if (doc.HasParseError()) {
    throw DecodeError(std::string("invalid JSON at offset ") + std::to_string(doc.GetErrorOffset()) + ": " +
                      rapidjson::GetParseError_En(doc.GetParseError()));
  }
  add_object(doc, "", builder);
}

void load_snapshot(std::string_view text, ClusterStateBuilder& builder) {
  // JSON straight to RapidJSON (a large cluster's snapshot is hundreds of MB); anything else is
  // `kubectl get … -o yaml`, through yaml/ into the same document.
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] == '{' || text[first] == '[') {
    load_snapshot_json(text, builder);
    return;
  }
  for (const rapidjson::Document& doc : yaml::to_json_all(text)) add_object(doc, "", builder);
}

std::shared_ptr<const ClusterState> load_snapshot_files(const std::vector<std::string>& paths,
                                                        KubeVersion version) {
  ClusterStateBuilder builder(version);
  for (const auto& path : paths) {
    std::string text;
    if (!read_whole_file(path, text)) throw std::runtime_error("--snapshot " + path + ": cannot open file");
    try {
      load_snapshot(text, builder);
    } catch (const DecodeError& e) {
      throw std::runtime_error("--snapshot " + path + ": " + e.what());
    }
  }
  return std::move(builder).build();
}

}  // namespace kext
