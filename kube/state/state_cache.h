#pragma once
// The writer side of the cluster state: the snapshot loader and the watch feed objects and events here,
// per-node aggregates change incrementally with each pod, and publish() hands readers a new immutable
// ClusterState. One writer at a time (a mutex between the watch threads); readers never lock.
#include <chrono>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kube/state/cluster_state.h"

namespace kext {

class StateCache {
 public:
  using Clock = std::chrono::steady_clock;

  // Applies a group of changes under the writer lock; the destructor publishes them together.
  class Batch {
   public:
    ~Batch();
    Batch(Batch&&) = delete;

    void upsert_node(Node node);
    void delete_node(const std::string& name);
    // Terminal pods (Succeeded/Failed) are removed: they hold no resources.
    void upsert_pod(Pod pod);
    void delete_pod(const std::string& key);
    void upsert_pdb(PodDisruptionBudget pdb);
    void delete_pdb(const std::string& namespace_, const std::string& name);
    // A complete list: objects of that kind not in it are gone (relist after 410, or a restart).
    void replace_nodes(std::vector<Node> nodes);
    void replace_pods(std::vector<Pod> pods);
    void replace_pdbs(std::vector<PodDisruptionBudget> pdbs);
    // Namespaces: only their labels (InterPodAffinity's namespaceSelector).
    void upsert_namespace(std::string name, Labels labels);
    void delete_namespace(const std::string& name);
    void replace_namespaces(std::vector<std::pair<std::string, Labels>> namespaces);
    // Services, ReplicationControllers, ReplicaSets, StatefulSets. One whose selector is nil or empty
    // selects no pod and is dropped (selects_no_pods, kube/codec/workload_decode.h), also when an
    // update empties it.
    void upsert_workload(WorkloadKind kind, WorkloadSelector w);
    void delete_workload(WorkloadKind kind, const std::string& namespace_, const std::string& name);
    // Gang scheduling's PodGroups.
    void upsert_gang(gang::PodGroupSpec group);
    void delete_gang(const gang::PodGroupSpec& group);
    // Every group of `api` (a reflector lists one API's PodGroups).
    void replace_gangs(gang::GroupApi api, std::vector<gang::PodGroupSpec> groups);
    void replace_workloads(WorkloadKind kind, std::vector<WorkloadSelector> all);
    // DeviceClasses: only the extended resource names each backs (kube/codec/device_class_decode.h
    // dra_resource_names), by class name.
    using DeviceClassNames = std::pair<std::string, std::vector<std::string>>;
    void upsert_device_class(DeviceClassNames c);
    void delete_device_class(const std::string& name);
    void replace_device_classes(std::vector<DeviceClassNames> all);

    // Bind: the pod counts against `node` at once, until the watch shows it bound or `until` passes.
    // Returns false if the pod is unknown. gpu_shares, when given, are the cards the bind allocates
    // (algorithms/gpu): they count on the node with it.
    bool assume_pod(const std::string& key, const std::string& node, Clock::time_point until,
                    std::shared_ptr<const gpu::PodShares> gpu_shares = nullptr);
    // The bind failed: the pod goes back to what the API last showed.
    void forget_assumed(const std::string& key);

   private:
    friend class StateCache;
    explicit Batch(StateCache& c) : c_(c), lock_(c.mu_) {}
    StateCache& c_;
    std::unique_lock<std::mutex> lock_;
  };

  // store may be null (a builder that only hands out views). Each pod's requests are computed once, as
  // `version`'s kube-scheduler counts them (algorithms/pod_requests.h).
  explicit StateCache(StateStore* store = nullptr, KubeVersion version = KubeVersion::newest())
      : store_(store), version_(version) {}

  Batch batch() { return Batch(*this); }
  // Drops assumptions whose time is up (the bind did not show up in the watch).
  void expire_assumed(Clock::time_point now);
  // A view of everything applied so far.
  std::shared_ptr<const ClusterState> view();

  static std::string pod_key(const PodMeta& pod) { return pod_key(pod.uid, pod.namespace_, pod.name); }
  static std::string pod_key(std::string_view uid, std::string_view namespace_, std::string_view name);

 private:
  struct Assumed {
    std::string node;
    Clock::time_point until;
  };

  void upsert_node_locked(Node node);
  void delete_node_locked(const std::string& name);
  void upsert_pod_locked(Pod pod);
  std::shared_ptr<const PodInfo> cached_pod_info(Pod pod);
  SharedLabels intern(const SharedLabels& labels);
  std::shared_ptr<const PodAffinityRules> intern(const std::shared_ptr<const PodAffinityRules>& affinity);
  void put_pod_info_locked(const std::string& key, std::shared_ptr<const PodInfo> info);
  void delete_pod_locked(const std::string& key);
  void restore_assumed_locked(const std::string& key);
  void node_add_pod(const std::string& node, std::shared_ptr<const PodInfo> info);
  void node_remove_pod(const std::string& node, const PodInfo* info);
  std::shared_ptr<const ClusterState> view_locked();

  std::mutex mu_;
  StateStore* store_;
  const KubeVersion version_;
  NodeMapWriter<std::shared_ptr<const NodeInfo>> nodes_;
  PodGroupIndex groups_;  // the bound pods of nodes_, grouped
  // The node objects' labels counted; copied on the first label change after a publish (labels rarely
  // change: a node's status updates keep them).
  std::shared_ptr<NodeLabelIndex> node_labels_ = std::make_shared<NodeLabelIndex>();
  bool node_labels_published_ = false;
  void count_node_labels(const Labels& labels, int delta);
  ShardedMapWriter<std::shared_ptr<const PodInfo>, kPodShards> pods_;
  size_t node_objects_ = 0;
  std::map<std::string, PodDisruptionBudget> pdbs_;  // by namespace/name
  std::shared_ptr<const std::vector<PodDisruptionBudget>> pdb_view_ =
      std::make_shared<std::vector<PodDisruptionBudget>>();
  bool pdbs_dirty_ = false;
  std::map<std::string, Labels, std::less<>> namespaces_;
  std::shared_ptr<const std::map<std::string, Labels, std::less<>>> namespace_view_ =
      std::make_shared<std::map<std::string, Labels, std::less<>>>();
  bool namespaces_dirty_ = false;
  // Per WorkloadKind, by namespace/name; the view is rebuilt when dirty, as pdbs'.
  struct Workloads {
    std::map<std::string, WorkloadSelector> by_key;
    std::shared_ptr<const std::vector<WorkloadSelector>> view =
        std::make_shared<std::vector<WorkloadSelector>>();
    bool dirty = false;
  };
  Workloads workloads_[std::size(kWorkloadKinds)];
  GangMap gangs_;
  std::shared_ptr<const GangMap> gang_view_ = std::make_shared<GangMap>();
  bool gangs_dirty_ = false;
  std::map<std::string, std::vector<std::string>> device_classes_;  // names backed, by class name
  std::shared_ptr<const std::set<std::string, std::less<>>> dra_view_ =
      std::make_shared<std::set<std::string, std::less<>>>();
  bool device_classes_dirty_ = false;
  std::map<std::string, Assumed> assumed_;  // by pod key
  // Label sets shared by cached pods; expired entries are swept when the table has doubled.
  std::map<Labels, std::weak_ptr<const Labels>> interned_labels_;
  size_t intern_sweep_at_ = 1024;
  // Affinity terms shared by cached pods (a Deployment's replicas), by a hash of their contents;
  // swept like the label sets.
  std::unordered_multimap<size_t, std::weak_ptr<const PodAffinityRules>> interned_affinity_;
  size_t affinity_sweep_at_ = 1024;
  // The pod as the API last showed it, for assumed pods: restored when the assumption expires.
  std::map<std::string, std::shared_ptr<const PodInfo>> assumed_original_;
};

// Accumulates objects, then hands out the state once (snapshot files, tests).
class ClusterStateBuilder {
 public:
  explicit ClusterStateBuilder(KubeVersion version = KubeVersion::newest()) : cache_(nullptr, version) {}
  void add_node(Node node) { cache_.batch().upsert_node(std::move(node)); }
  void add_pod(Pod pod) { cache_.batch().upsert_pod(std::move(pod)); }
  void add_pdb(PodDisruptionBudget pdb) { cache_.batch().upsert_pdb(std::move(pdb)); }
  void add_namespace(std::string name, Labels labels) {
    cache_.batch().upsert_namespace(std::move(name), std::move(labels));
  }
  void add_workload(WorkloadKind kind, WorkloadSelector w) {
    cache_.batch().upsert_workload(kind, std::move(w));
  }
  void add_gang(gang::PodGroupSpec group) { cache_.batch().upsert_gang(std::move(group)); }
  void add_device_class(StateCache::Batch::DeviceClassNames c) {
    cache_.batch().upsert_device_class(std::move(c));
  }
  std::shared_ptr<const ClusterState> build() && { return cache_.view(); }

 private:
  StateCache cache_;
};

}  // namespace kext
