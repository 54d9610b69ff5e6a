#include "kube/client/cache_sinks.h"

#include <variant>
#include <vector>

#include "algorithms/namespaced_key.h"
#include "common/log.h"
#include "kube/codec/device_class_decode.h"
#include "kube/codec/k8s_decode.h"
#include "kube/codec/pod_group_decode.h"
#include "kube/codec/workload_decode.h"

namespace kext::kube {

namespace {

// One kind's decode and cache operations; KindSink does the list/queue/flush plumbing once.
struct NodeKind {
  using Object = Node;
  static Node decode(const json::Value& v) { return decode_node(v, "node"); }
  static void upsert(StateCache::Batch& b, Node o) { b.upsert_node(std::move(o)); }
  static void remove(StateCache::Batch& b, const Node& o) { b.delete_node(o.name); }
  static void replace(StateCache::Batch& b, std::vector<Node> all) { b.replace_nodes(std::move(all)); }
};

struct PodKind {
  using Object = Pod;
  static Pod decode(const json::Value& v) {
    Pod p = decode_pod(v, "pod");
    // Kept (its requests still count), but its node takes no GPU pod while it is there
    // (gpu::fit_on_node): said at each event of it, and counted by kube_extender_gpu_allocations_undecoded.
    if (gpu::cards_undecoded(p.gpu_shares))
      log_line("pod " + namespaced_key(p.namespace_, p.name) + ": " + p.gpu_shares->error +
               "; its node takes no GPU pod until the annotation is mended or the pod is gone");
    return p;
  }
  static void upsert(StateCache::Batch& b, Pod o) { b.upsert_pod(std::move(o)); }
  static void remove(StateCache::Batch& b, const Pod& o) { b.delete_pod(StateCache::pod_key(o)); }
  static void replace(StateCache::Batch& b, std::vector<Pod> all) { b.replace_pods(std::move(all)); }
};

struct PdbKind {
  using Object = PodDisruptionBudget;
  static PodDisruptionBudget decode(const json::Value& v) { return decode_pdb(v, "poddisruptionbudget"); }
  static void upsert(StateCache::Batch& b, PodDisruptionBudget o) { b.upsert_pdb(std::move(o)); }
  static void remove(StateCache::Batch& b, const PodDisruptionBudget& o) {
    b.delete_pdb(o.namespace_, o.name);
  }
  static void replace(StateCache::Batch& b, std::vector<PodDisruptionBudget> all) {
    b.replace_pdbs(std::move(all));
  }
};

struct NamespaceKind {
  using Object = NamespaceObject;
  static NamespaceObject decode(const json::Value& v) { return decode_namespace(v, "namespace"); }
  static void upsert(StateCache::Batch& b, NamespaceObject o) {
    b.upsert_namespace(std::move(o.name), std::move(o.labels));
  }
  static void remove(StateCache::Batch& b, const NamespaceObject& o) { b.delete_namespace(o.name); }
  static void replace(StateCache::Batch& b, std::vector<NamespaceObject> all) {
    std::vector<std::pair<std::string, Labels>> v;
    v.reserve(all.size());
    for (auto& n : all) v.emplace_back(std::move(n.name), std::move(n.labels));
    b.replace_namespaces(std::move(v));
  }
};

// One API's PodGroups (algorithms/gang/pod_group.h): a relist replaces that API's groups only.
template <gang::GroupApi Api>
struct GangKind {
  using Object = gang::PodGroupSpec;
  static gang::PodGroupSpec decode(const json::Value& v) {
    gang::PodGroupSpec g = decode_pod_group(v, "podgroup", Api);
    g.api = Api;  // what this resource serves, whatever an object says
    return g;
  }
  static void upsert(StateCache::Batch& b, gang::PodGroupSpec o) { b.upsert_gang(std::move(o)); }
  static void remove(StateCache::Batch& b, const gang::PodGroupSpec& o) { b.delete_gang(o); }
  static void replace(StateCache::Batch& b, std::vector<gang::PodGroupSpec> all) {
    b.replace_gangs(Api, std::move(all));
  }
};

// DeviceClasses: the extended resource names each backs (NodeResourcesFit's DRA rule from 1.36).
struct DeviceClassKind {
  using Object = DeviceClass;
  static DeviceClass decode(const json::Value& v) { return decode_device_class(v, "deviceclass"); }
  static StateCache::Batch::DeviceClassNames names(const DeviceClass& c) {
    return {c.name, dra_resource_names(c)};
  }
  static void upsert(StateCache::Batch& b, DeviceClass o) { b.upsert_device_class(names(o)); }
  static void remove(StateCache::Batch& b, const DeviceClass& o) { b.delete_device_class(o.name); }
  static void replace(StateCache::Batch& b, std::vector<DeviceClass> all) {
    std::vector<StateCache::Batch::DeviceClassNames> v;
    v.reserve(all.size());
    for (const auto& c : all) v.push_back(names(c));
    b.replace_device_classes(std::move(v));
  }
};

// The four kinds kept as WorkloadSelectors; decode_service etc. name the object in DecodeError paths.
template <WorkloadKind K, WorkloadSelector (*Decode)(const json::Value&, std::string_view), const char* Path>
struct WorkloadKindOf {
  using Object = WorkloadSelector;
  static WorkloadSelector decode(const json::Value& v) { return Decode(v, Path); }
  static void upsert(StateCache::Batch& b, WorkloadSelector o) { b.upsert_workload(K, std::move(o)); }
  static void remove(StateCache::Batch& b, const WorkloadSelector& o) {
    b.delete_workload(K, o.namespace_, o.name);
  }
  static void replace(StateCache::Batch& b, std::vector<WorkloadSelector> all) {
    b.replace_workloads(K, std::move(all));
  }
};

constexpr char kServicePath[] = "service";
constexpr char kReplicationControllerPath[] = "replicationcontroller";
constexpr char kReplicaSetPath[] = "replicaset";
constexpr char kStatefulSetPath[] = "statefulset";
using ServiceKind = WorkloadKindOf<WorkloadKind::kService, decode_service, kServicePath>;
using ReplicationControllerKind = WorkloadKindOf<WorkloadKind::kReplicationController,
                                                 decode_replication_controller, kReplicationControllerPath>;
using ReplicaSetKind = WorkloadKindOf<WorkloadKind::kReplicaSet, decode_replica_set, kReplicaSetPath>;
using StatefulSetKind = WorkloadKindOf<WorkloadKind::kStatefulSet, decode_stateful_set, kStatefulSetPath>;

template <class Kind>
class KindSink final : public ResourceSink {
 public:
  explicit KindSink(StateCache& cache) : cache_(cache) {}

  void list_begin() override { listed_.clear(); }
  void list_item(const json::Value& object) override { listed_.push_back(Kind::decode(object)); }
  void list_end() override {
    pending_.clear();  // events before a relist are superseded by it
    auto b = cache_.batch();
    Kind::replace(b, std::move(listed_));
    listed_ = {};
  }
  void event(EventType type, const json::Value& object) override {
    pending_.push_back({type, Kind::decode(object)});
  }
  void flush() override {
    if (pending_.empty()) return;
    auto b = cache_.batch();
    for (auto& [type, obj] : pending_) {
      if (type == EventType::Deleted)
        Kind::remove(b, obj);
      else
        Kind::upsert(b, std::move(obj));
    }
    pending_.clear();
  }

 private:
  StateCache& cache_;
  std::vector<typename Kind::Object> listed_;
  std::vector<std::pair<EventType, typename Kind::Object>> pending_;
};

}  // namespace

std::unique_ptr<ResourceSink> make_node_sink(StateCache& cache) {
  return std::make_unique<KindSink<NodeKind>>(cache);
}
std::unique_ptr<ResourceSink> make_pod_sink(StateCache& cache) {
  return std::make_unique<KindSink<PodKind>>(cache);
}
std::unique_ptr<ResourceSink> make_pdb_sink(StateCache& cache) {
  return std::make_unique<KindSink<PdbKind>>(cache);
}
std::unique_ptr<ResourceSink> make_namespace_sink(StateCache& cache) {
  return std::make_unique<KindSink<NamespaceKind>>(cache);
}

std::unique_ptr<ResourceSink> make_gang_sink(gang::GroupApi api, StateCache& cache) {
  if (api == gang::GroupApi::kWorkload)
    return std::make_unique<KindSink<GangKind<gang::GroupApi::kWorkload>>>(cache);
  return std::make_unique<KindSink<GangKind<gang::GroupApi::kCoscheduling>>>(cache);
}

std::unique_ptr<ResourceSink> make_device_class_sink(StateCache& cache) {
  return std::make_unique<KindSink<DeviceClassKind>>(cache);
}

std::unique_ptr<ResourceSink> make_workload_sink(WorkloadKind kind, StateCache& cache) {
  switch (kind) {
    case WorkloadKind::kService:
      return std::make_unique<KindSink<ServiceKind>>(cache);
    case WorkloadKind::kReplicationController:
      return std::make_unique<KindSink<ReplicationControllerKind>>(cache);
    case WorkloadKind::kReplicaSet:
      return std::make_unique<KindSink<ReplicaSetKind>>(cache);
    case WorkloadKind::kStatefulSet:
      break;
  }
  return std::make_unique<KindSink<StatefulSetKind>>(cache);
}

namespace {

template <WorkloadKind K>
std::unique_ptr<ResourceSink> make_workload_sink_of(StateCache& cache) {
  return make_workload_sink(K, cache);
}

template <gang::GroupApi Api>
std::unique_ptr<ResourceSink> make_gang_sink_of(StateCache& cache) {
  return make_gang_sink(Api, cache);
}

// What the reflectors list and watch. PodTopologySpread's system default constraints and
// InterPodAffinity's namespaceSelector read the last five (kube-scheduler's informers for them:
// pkg/scheduler/framework/plugins/helper/spread.go DefaultSelector, interpodaffinity/plugin.go
// GetNamespaceLabelsSnapshot).
constexpr WatchedResource kWatched[] = {
    {"nodes", "", "/api/v1/nodes", "Node", make_node_sink},
    {"pods", "", "/api/v1/pods", "Pod", make_pod_sink},
    {"poddisruptionbudgets", "policy", "/apis/policy/v1/poddisruptionbudgets", "PodDisruptionBudget",
     make_pdb_sink},
    {"namespaces", "", "/api/v1/namespaces", "Namespace", make_namespace_sink},
    {"services", "", "/api/v1/services", "Service", make_workload_sink_of<WorkloadKind::kService>},
    {"replicationcontrollers", "", "/api/v1/replicationcontrollers", "ReplicationController",
     make_workload_sink_of<WorkloadKind::kReplicationController>},
    {"replicasets", "apps", "/apis/apps/v1/replicasets", "ReplicaSet",
     make_workload_sink_of<WorkloadKind::kReplicaSet>},
    {"statefulsets", "apps", "/apis/apps/v1/statefulsets", "StatefulSet",
     make_workload_sink_of<WorkloadKind::kStatefulSet>},
    // Gang scheduling's groups, in both APIs (algorithms/gang/pod_group.h): scheduler-plugins' CRD and
    // upstream's alpha API, each watched where the cluster serves it.
    {"podgroups", "scheduling.x-k8s.io", "/apis/scheduling.x-k8s.io/v1alpha1/podgroups", "PodGroup",
     make_gang_sink_of<gang::GroupApi::kCoscheduling>, true},
    {"podgroups.scheduling.k8s.io", "scheduling.k8s.io", "/apis/scheduling.k8s.io/v1alpha2/podgroups",
     "PodGroup", make_gang_sink_of<gang::GroupApi::kWorkload>, true},
    // DRA's DeviceClasses (resource.k8s.io/v1, served from 1.34): the extended resources they back.
    {"deviceclasses", "resource.k8s.io", "/apis/resource.k8s.io/v1/deviceclasses", "DeviceClass",
     make_device_class_sink, true},
};

}  // namespace

std::span<const WatchedResource> watched_resources() { return kWatched; }

std::string_view pod_group_resource(gang::GroupApi api) {
  const auto sink = api == gang::GroupApi::kWorkload ? make_gang_sink_of<gang::GroupApi::kWorkload>
                                                     : make_gang_sink_of<gang::GroupApi::kCoscheduling>;
  for (const WatchedResource& r : kWatched)
    if (r.make_sink == sink) return r.name;
  return {};
}

std::string_view WatchedResource::resource() const { return path.substr(path.rfind('/') + 1); }

std::string_view WatchedResource::api_version() const {
  // "/api/v1/nodes" -> "v1"; "/apis/policy/v1/poddisruptionbudgets" -> "policy/v1".
  const std::string_view rest = path.substr(path.starts_with("/apis/") ? 6 : 5);
  return rest.substr(0, rest.rfind('/'));
}

const WatchedResource* find_watched_resource(std::string_view name) {
  for (const auto& r : kWatched)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace kext::kube
