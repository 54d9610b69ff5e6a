#include "kube/state/cluster_state.h"

#include <vector>

namespace kext {

namespace {
constexpr size_t kCacheLine = 64;

void prefetch_bytes(const void* begin, const void* end) {
  for (auto* p = static_cast<const char*>(begin); p < end; p += kCacheLine) __builtin_prefetch(p);
}
}  // namespace

const NodeInfo* ClusterState::find_node(std::string_view name) const {
  auto* p = nodes.find(name);
  return p ? p->get() : nullptr;
}

const PodInfo* ClusterState::find_pod(std::string_view uid) const {
  auto* p = pods_by_uid.find(uid);
  return p ? p->get() : nullptr;
}

// Three stages, each issuing all its reads before the next stage waits on any: the name table
// (find_many), the NodeInfos, then the Nodes their first lines point to. At 500 names of 5000 nodes the
// state does not fit in L2, and one node at a time every name waited on ~6 misses in a row; staged, the
// misses overlap, which matters most with the caches cold (bench/engine_bench.cc BM_ResolveThenRun;
// docs/performance.md "Figures behind design choices in the code"). Prefetching each node's sorted images for
// ImageLocality as well was slower, cold and warm: most of those lines go unread.
void ClusterState::find_nodes(std::span<const std::string_view> names, std::span<const NodeInfo*> out) const {
  std::vector<const std::shared_ptr<const NodeInfo>*> found(names.size());
  nodes.find_many(names, found);
  for (size_t i = 0; i < names.size(); ++i) {
    const NodeInfo* info = found[i] ? found[i]->get() : nullptr;
    // The exact totals (ResourceTotals) are read only when a pod leaves the node.
    if (info) prefetch_bytes(info, &info->requested_totals);
    out[i] = info;
  }
  for (const NodeInfo* info : out) {
    if (info && info->node) prefetch_bytes(info->node.get(), info->node.get() + 1);
  }
}

std::string_view workload_resource(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kService:
      return "services";
    case WorkloadKind::kReplicationController:
      return "replicationcontrollers";
    case WorkloadKind::kReplicaSet:
      return "replicasets";
    case WorkloadKind::kStatefulSet:
      return "statefulsets";
  }
  return "";
}

const std::shared_ptr<const std::vector<WorkloadSelector>>& ClusterState::workloads(WorkloadKind kind) const {
  switch (kind) {
    case WorkloadKind::kService:
      return services;
    case WorkloadKind::kReplicationController:
      return replication_controllers;
    case WorkloadKind::kReplicaSet:
      return replica_sets;
    case WorkloadKind::kStatefulSet:
      break;
  }
  return stateful_sets;
}

}  // namespace kext
