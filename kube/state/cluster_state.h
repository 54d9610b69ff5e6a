#pragma once
// An immutable view of the cluster. The writer (StateCache: snapshot loader or watch) applies events to
// its private shards and publishes a new view; each request takes the current one once, so it never
// sees half an event and never blocks the writer.
#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/gang/pod_group.h"
#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "kube/state/pod_group_index.h"
#include "kube/state/sharded_map.h"

namespace kext {

inline constexpr size_t kNodeShards = 256;
inline constexpr size_t kPodShards = 1024;

// A node name keeps its bytes in the name table's slot up to 104 bytes (FlatShard::kInlineKey): two
// cache lines a slot (kNodeSlotBytes). Pods' keys (UIDs, 36 bytes) fit the default 64-byte slot.
inline constexpr size_t kNodeSlotBytes = 128;
template <class V>
using NodeMap = ShardedMap<V, kNodeShards, StringHash, kNodeSlotBytes>;
template <class V>
using NodeMapWriter = ShardedMapWriter<V, kNodeShards, StringHash, kNodeSlotBytes>;

// The kinds kept as WorkloadSelectors: what DefaultSelector (pkg/scheduler/framework/plugins/helper/
// spread.go) reads for PodTopologySpread's system default constraints.
enum class WorkloadKind { kService, kReplicationController, kReplicaSet, kStatefulSet };
inline constexpr WorkloadKind kWorkloadKinds[] = {WorkloadKind::kService,
                                                  WorkloadKind::kReplicationController,
                                                  WorkloadKind::kReplicaSet, WorkloadKind::kStatefulSet};
// The API's resource name of the kind ("services"): the dump's and the metrics' name for it.
std::string_view workload_resource(WorkloadKind kind);

// Gang scheduling's PodGroups (scheduler-plugins' CRD), by "namespace/name".
using GangMap = std::map<std::string, gang::PodGroupSpec, std::less<>>;

struct ClusterState {
  // Every node name that has a node object or a bound pod. NodeInfo::node is null when only pods
  // reference the name (a full-Nodes request can still supply the object).
  NodeMap<std::shared_ptr<const NodeInfo>> nodes;
  // Non-terminal pods, bound or not, by UID ("namespace/name" for a pod without one).
  ShardedMap<std::shared_ptr<const PodInfo>, kPodShards> pods_by_uid;
  std::shared_ptr<const std::vector<PodDisruptionBudget>> pdbs =
      std::make_shared<std::vector<PodDisruptionBudget>>();
  // What PodTopologySpread's default constraints and InterPodAffinity's namespaceSelector read: the
  // namespaces' labels, and the objects that select pods (ClusterView). Each replaced whole when it
  // changes, as pdbs: they are few and change rarely.
  std::shared_ptr<const std::map<std::string, Labels, std::less<>>> namespace_labels =
      std::make_shared<std::map<std::string, Labels, std::less<>>>();
  std::shared_ptr<const std::vector<WorkloadSelector>> services =
      std::make_shared<std::vector<WorkloadSelector>>();
  std::shared_ptr<const std::vector<WorkloadSelector>> replication_controllers =
      std::make_shared<std::vector<WorkloadSelector>>();
  std::shared_ptr<const std::vector<WorkloadSelector>> replica_sets =
      std::make_shared<std::vector<WorkloadSelector>>();
  std::shared_ptr<const std::vector<WorkloadSelector>> stateful_sets =
      std::make_shared<std::vector<WorkloadSelector>>();
  // The PodGroups, when the cluster serves their CRD; replaced whole when one changes, as pdbs.
  std::shared_ptr<const GangMap> gangs = std::make_shared<GangMap>();
  // The extended resource names the DeviceClasses back (ClusterView::dra_extended_resources); replaced
  // whole when a class changes, as pdbs.
  std::shared_ptr<const std::set<std::string, std::less<>>> dra_extended_resources =
      std::make_shared<std::set<std::string, std::less<>>>();
  size_t node_objects = 0;
  // The bound pods grouped by namespace, labels and affinity terms (pod_group_index.h).
  PodGroupMap pod_groups;
  // The node objects' labels, counted by key and value.
  std::shared_ptr<const NodeLabelIndex> node_labels = std::make_shared<NodeLabelIndex>();

  // services, replication_controllers, replica_sets or stateful_sets.
  const std::shared_ptr<const std::vector<WorkloadSelector>>& workloads(WorkloadKind kind) const;

  const NodeInfo* find_node(std::string_view name) const;
  // out[i] = find_node(names[i]), with each found node's record (its NodeInfo up to the exact totals,
  // and its Node) requested into the cache on the way: the verbs read them next, for every name.
  void find_nodes(std::span<const std::string_view> names, std::span<const NodeInfo*> out) const;
  const PodInfo* find_pod(std::string_view uid) const;
  size_t node_object_count() const { return node_objects; }
};

class StateStore {
 public:
  StateStore() : current_(std::make_shared<const ClusterState>()) {}
  std::shared_ptr<const ClusterState> current() const { return current_.load(std::memory_order_acquire); }
  void publish(std::shared_ptr<const ClusterState> s) {
    current_.store(std::move(s), std::memory_order_release);
  }

  // /readyz: false until the source (watch) has its initial lists. A snapshot or no source is ready.
  bool ready() const { return ready_.load(std::memory_order_acquire); }
  void set_ready(bool r) { ready_.store(r, std::memory_order_release); }

  // What the nodes really use (usage/), published by the usage source's poller apart from the state;
  // null without a source.
  std::shared_ptr<const UsageView> usage() const { return usage_.load(std::memory_order_acquire); }
  void publish_usage(std::shared_ptr<const UsageView> u) {
    usage_.store(std::move(u), std::memory_order_release);
  }

 private:
  std::atomic<std::shared_ptr<const ClusterState>> current_;
  std::atomic<std::shared_ptr<const UsageView>> usage_;
  std::atomic<bool> ready_{true};
};

}  // namespace kext
