#include "sim/follow/cluster_objects.h"

#include "algorithms/namespaced_key.h"

namespace kext::simtool::follow {

bool ClusterObjects::apply(const LiveEvent& e) {
  using Kind = LiveEvent::Kind;
  switch (e.kind) {
    case Kind::kPdbUpsert:
      pdbs_.insert_or_assign(namespaced_key(e.pdb.namespace_, e.pdb.name), e.pdb);
      pdbs_changed_ = true;
      return true;
    case Kind::kPdbDelete:
      pdbs_changed_ |= pdbs_.erase(namespaced_key(e.pdb.namespace_, e.pdb.name)) != 0;
      return true;
    case Kind::kNamespaceUpsert:
      namespace_labels_.insert_or_assign(e.namespace_object.name, e.namespace_object.labels);
      namespaces_changed_ = true;
      return true;
    case Kind::kNamespaceDelete:
      namespaces_changed_ |= namespace_labels_.erase(e.namespace_object.name) != 0;
      return true;
    case Kind::kWorkloadUpsert:
    case Kind::kWorkloadDelete: {
      auto& kept = workloads_[static_cast<size_t>(e.workload_kind)];
      const std::string key = namespaced_key(e.workload.namespace_, e.workload.name);
      // An update that drops the selector removes it, as the extender's cache does
      // (StateCache::Batch::upsert_workload).
      if (e.kind == Kind::kWorkloadUpsert && !selects_no_pods(e.workload)) {
        kept.insert_or_assign(key, e.workload);
        workloads_changed_ = true;
      } else {
        workloads_changed_ |= kept.erase(key) != 0;
      }
      return true;
    }
    default:
      return false;
  }
}

std::vector<WorkloadSelector> ClusterObjects::all(WorkloadKind kind) const {
  std::vector<WorkloadSelector> out;
  for (const auto& [key, w] : workloads_[static_cast<size_t>(kind)]) out.push_back(w);
  return out;
}

}  // namespace kext::simtool::follow
