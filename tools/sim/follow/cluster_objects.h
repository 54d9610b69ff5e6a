#pragma once
// What PodTopologySpread and InterPodAffinity read beyond nodes and pods, as a live cluster has it:
// namespaces' labels and the selectors of Services, ReplicationControllers, ReplicaSets and
// StatefulSets. Kept from live events and handed whole to a simulation or a cluster once per batch.
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "tools/sim/follow/live_stream.h"

namespace kext::simtool::follow {

class ClusterObjects {
 public:
  // Keeps a namespace or workload event; false for any other kind of event.
  bool apply(const LiveEvent& e);
  // Hands what changed since the last call to `to` (a sim::Simulator or a sim::SimCluster).
  template <typename Target>
  void publish(Target& to) {
    if (namespaces_changed_) to.set_namespace_labels(namespace_labels_);
    if (workloads_changed_) {
      to.set_workloads(all(WorkloadKind::kService), all(WorkloadKind::kReplicationController),
                       all(WorkloadKind::kReplicaSet), all(WorkloadKind::kStatefulSet));
    }
    namespaces_changed_ = workloads_changed_ = false;
  }

 private:
  std::vector<WorkloadSelector> all(WorkloadKind kind) const;

  std::map<std::string, Labels, std::less<>> namespace_labels_;
  // Per WorkloadKind: namespace/name -> selector (those selecting no pod are not kept).
  std::map<std::string, WorkloadSelector> workloads_[std::size(kWorkloadKinds)];
  bool namespaces_changed_ = false;
  bool workloads_changed_ = false;
};

}  // namespace kext::simtool::follow
