#include "extender/capacity/live_cluster.h"

#include <algorithm>
#include <string_view>
#include <vector>

namespace kext::capacity {

sim::SimCluster cluster_of(const ClusterState& state, KubeVersion version, const UsageView* usage) {
  std::vector<const NodeInfo*> nodes;
  nodes.reserve(state.node_object_count());
  state.nodes.for_each([&](std::string_view, const std::shared_ptr<const NodeInfo>& n) {
    if (n && n->node) nodes.push_back(n.get());
  });
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeInfo* a, const NodeInfo* b) { return a->name() < b->name(); });
  sim::SimCluster cluster(version);
  for (const NodeInfo* n : nodes) cluster.add_node(*n->node);
  for (const NodeInfo* n : nodes)
    for (const auto& pod : n->pods) cluster.add_running(pod, n->name());
  cluster.set_pdbs(*state.pdbs);
  cluster.set_namespace_labels(*state.namespace_labels);
  cluster.set_workloads(*state.services, *state.replication_controllers, *state.replica_sets,
                        *state.stateful_sets);
  cluster.set_dra_extended_resources(*state.dra_extended_resources);
  cluster.set_usage(usage);
  return cluster;
}

}  // namespace kext::capacity
