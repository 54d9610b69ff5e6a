#pragma once
// What a cluster has beyond nodes and pods, as the live cluster has it: PodDisruptionBudgets
// (preemption), and what PodTopologySpread and InterPodAffinity read: namespaces' labels and the
// selectors of Services, ReplicationControllers, ReplicaSets and StatefulSets. Kept from live events
// and handed whole to a simulation or a cluster once per batch.
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "sim/follow/live_stream.h"

namespace kext::simtool::follow {

class ClusterObjects {
 public:
  // Keeps a PDB, namespace or workload event; false for any other kind of event.
  bool apply(const LiveEvent& e);
  // Hands what changed since the last call to `to` (a sim::Simulator or a sim::SimCluster).
  template <typename Target>
  void publish(Target& to) {
    if (pdbs_changed_) {
      std::vector<PodDisruptionBudget> all;
      all.reserve(pdbs_.size());
      for (const auto& [key, pdb] : pdbs_) all.push_back(pdb);
      to.set_pdbs(std::move(all));
    }
    if (namespaces_changed_) to.set_namespace_labels(namespace_labels_);
    if (workloads_changed_) {
      to.set_workloads(all(WorkloadKind::kService), all(WorkloadKind::kReplicationController),
                       all(WorkloadKind::kReplicaSet), all(WorkloadKind::kStatefulSet));
    }
    pdbs_changed_ = namespaces_changed_ = workloads_changed_ = false;
  }

 private:
  std::vector<WorkloadSelector> all(WorkloadKind kind) const;

  std::map<std::string, PodDisruptionBudget> pdbs_;  // namespace/name ->
  std::map<std::string, Labels, std::less<>> namespace_labels_;
  // Per WorkloadKind: namespace/name -> selector (those selecting no pod are not kept).
  std::map<std::string, WorkloadSelector> workloads_[std::size(kWorkloadKinds)];
  bool pdbs_changed_ = false;
  bool namespaces_changed_ = false;
  bool workloads_changed_ = false;
};

}  // namespace kext::simtool::follow
