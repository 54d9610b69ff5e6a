#pragma once
// The simulated cluster: nodes with the pods bound to them (NodeInfo, as the algorithms read them),
// the pods known by UID, and the disruption budgets. It plays the API server and the scheduler cache
// at once: a bind is visible to the next cycle at once (assume and bind are one step in simulation).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "algorithms/gpu/devices.h"
#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "sim/core/pod_group_index.h"

namespace kext::sim {

class ClusterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SimCluster {
 public:
  // Each pod's requests are computed once, when it is added, as `version`'s kube-scheduler counts them
  // (algorithms/pod_requests.h).
  explicit SimCluster(KubeVersion version = KubeVersion::newest()) : version_(version) {}
  // A copy whose nodes are its own (the pods, immutable, are shared): what-if questions run several
  // simulations from one cluster (sim/capacity/add_node.h). The usage view stays the one set.
  SimCluster(const SimCluster& other);
  SimCluster(SimCluster&&) = default;
  SimCluster& operator=(const SimCluster&) = delete;
  SimCluster& operator=(SimCluster&&) = default;
  KubeVersion version() const { return version_; }

  // Nodes are evaluated in the order they were added (kube-scheduler walks its snapshot's node list).
  // Throws ClusterError on a duplicate name.
  void add_node(Node node);
  // A node's new spec or status (allocatable, labels, taints, unschedulable); its pods stay. Throws
  // ClusterError for an unknown node.
  void replace_node(Node node);
  // Removes a node and the pods bound to it (kube-controller-manager's pod garbage collector deletes
  // a deleted node's pods: podgc's gcOrphaned). Returns their UIDs; none for an unknown node. The
  // nodes after it move up one place in nodes().
  std::vector<std::string> remove_node(std::string_view name);
  void add_pdb(PodDisruptionBudget pdb) { pdbs_.push_back(std::move(pdb)); }
  // Every budget at once, replacing those there were (a live cluster's, as they change).
  void set_pdbs(std::vector<PodDisruptionBudget> pdbs) { pdbs_ = std::move(pdbs); }
  // The namespaces' labels and the objects that select pods (PodTopologySpread's default
  // constraints, InterPodAffinity's namespaceSelector), replacing those there were.
  void set_namespace_labels(std::map<std::string, Labels, std::less<>> labels) {
    namespace_labels_ = std::move(labels);
  }
  void set_workloads(std::vector<WorkloadSelector> services,
                     std::vector<WorkloadSelector> replication_controllers,
                     std::vector<WorkloadSelector> replica_sets,
                     std::vector<WorkloadSelector> stateful_sets) {
    services_ = std::move(services);
    replication_controllers_ = std::move(replication_controllers);
    replica_sets_ = std::move(replica_sets);
    stateful_sets_ = std::move(stateful_sets);
  }
  // The cluster as the plugins that read all of it see it; valid until the next change.
  ClusterView view() const {
    groups_.owner = this;  // the cluster may have moved since the last view
    ClusterView v{node_ptrs_,    &namespace_labels_, services_, replication_controllers_,
                  replica_sets_, stateful_sets_};
    v.pod_groups = &groups_;
    v.usage = usage_;
    v.dra_extended_resources = &dra_extended_resources_;
    return v;
  }
  // The extended resource names the DeviceClasses back (ClusterView::dra_extended_resources), replacing
  // those there were.
  void set_dra_extended_resources(std::set<std::string, std::less<>> names) {
    dra_extended_resources_ = std::move(names);
  }
  // What the nodes really use, as the views hand it to the load-aware plugins (nullptr: none). It
  // must outlive the cluster's views.
  void set_usage(const UsageView* usage) { usage_ = usage; }
  // A pod: bound if spec.nodeName names a node (which must exist), pending otherwise. Terminal pods
  // (Succeeded, Failed) hold no resources and are not added. Throws ClusterError on a duplicate UID or
  // an unknown node.
  void add_pod(Pod pod);

  // A running pod known only by what kube-scheduler's cache keeps of it (a PodInfo whose pod is a
  // PodMeta, with its requests as counted when it was cached), on `node_name`: the extender's live
  // state, an assumed pod included. The node must exist (ClusterError otherwise); the PodInfo is
  // shared, not copied. pod() of it has the meta's fields and no containers: nothing reads a running
  // pod's containers.
  void add_running(std::shared_ptr<const PodInfo> info, std::string_view node_name);

  // The pod object, or nullptr; a later change (bind, nomination) replaces it, this one stays valid.
  std::shared_ptr<const Pod> pod(std::string_view uid) const;
  // The pod's requests, computed once when it was added.
  std::shared_ptr<const PodInfo> pod_info(std::string_view uid) const;
  NodeInfo* node(std::string_view name);
  const NodeInfo* node(std::string_view name) const;
  // The node's index in nodes(), or nullopt.
  std::optional<size_t> node_position(std::string_view name) const;
  // Every node, in evaluation order; stable until the next add_node or remove_node.
  std::span<const NodeInfo* const> nodes() const { return node_ptrs_; }
  std::span<const PodDisruptionBudget> pdbs() const { return pdbs_; }
  size_t pod_count() const { return pods_.size(); }
  // Every pod (bound and pending), in no particular order: what an API server would list.
  template <typename F>
  void for_each_pod(F&& f) const {
    for (const auto& [uid, e] : pods_) f(e.pod);
  }

  // With GPU sharing (the profile's GPUShare): a bound pod that asks for GPUs gets its cards, as the
  // extender's bind chooses them (extender/gpu/gpu_binder.h), so that the next cycles count them.
  void set_gpu_sharing(std::optional<gpu::SharingConfig> sharing) { gpu_sharing_ = std::move(sharing); }
  // Assume + bind: sets spec.nodeName and status.startTime (now) and adds the pod to its node; with GPU
  // sharing, records the pod's cards on it (none when they no longer fit: the filter did not check them).
  void bind(std::string_view uid, std::string_view node_name, int64_t now_unix_seconds);
  // Undoes bind: the pod leaves its node and is pending again (an assumed pod forgotten: a gang member
  // whose group timed out at permit). Throws ClusterError for a pod that is not bound.
  void unbind(std::string_view uid);
  // The pod's status.nominatedNodeName (empty clears it), as the scheduler's status update writes it.
  void set_nominated_node(std::string_view uid, const std::string& node_name);
  // A victim's deletionTimestamp: it keeps its resources until delete_pod (after its grace period).
  void mark_terminating(std::string_view uid);
  // Removes the pod, and its resources from its node if bound. Returns the node it was on ("" if it
  // was pending) or nullopt if unknown.
  std::optional<std::string> delete_pod(std::string_view uid);

 private:
  KubeVersion version_;
  std::optional<gpu::SharingConfig> gpu_sharing_;
  std::set<std::string, std::less<>> dra_extended_resources_;
  struct Entry {
    std::shared_ptr<const Pod> pod;
    std::shared_ptr<const PodInfo> info;
  };
  // Replaces the pod object (copy-on-write: NodeInfo and earlier decisions keep the old one), and on
  // its node the PodInfo that points to it.
  void replace_pod(Entry& e, std::shared_ptr<const Pod> next);

  // The bound pods in groups, as the plugins that walk every pod read them (ClusterView::pod_groups).
  struct Groups : PodGroups {
    PodGroupIndex index;
    const SimCluster* owner = nullptr;
    void for_each(const std::function<void(const PodGroup&)>& fn) const override { index.for_each(fn); }
    const NodeInfo* node(std::string_view name) const override { return owner->node(name); }
  };
  // A pod joining and leaving its node, on the node and in its group.
  void place(NodeInfo& node, const std::shared_ptr<const PodInfo>& info);
  void unplace(NodeInfo& node, const PodInfo* info);

  std::vector<std::unique_ptr<NodeInfo>> nodes_;
  std::vector<const NodeInfo*> node_ptrs_;
  std::unordered_map<std::string, size_t> node_index_;
  std::unordered_map<std::string, Entry> pods_;
  std::vector<PodDisruptionBudget> pdbs_;
  std::map<std::string, Labels, std::less<>> namespace_labels_;
  std::vector<WorkloadSelector> services_, replication_controllers_, replica_sets_, stateful_sets_;
  mutable Groups groups_;
  const UsageView* usage_ = nullptr;
};

}  // namespace kext::sim
