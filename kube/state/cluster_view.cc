#include "kube/state/cluster_view.h"

namespace kext {

std::unique_ptr<const StateClusterView> cluster_view_of(std::shared_ptr<const ClusterState> state,
                                                        std::shared_ptr<const UsageView> usage) {
  if (!state || state->node_object_count() == 0) return nullptr;
  auto out = std::make_unique<StateClusterView>(state);
  out->nodes.reserve(state->node_object_count());
  state->nodes.for_each([&](const auto&, const std::shared_ptr<const NodeInfo>& info) {
    if (info && info->node) out->nodes.push_back(info.get());
  });
  ClusterView& v = out->view;
  v.nodes = out->nodes;
  v.namespace_labels = state->namespace_labels.get();
  v.services = *state->services;
  v.replication_controllers = *state->replication_controllers;
  v.replica_sets = *state->replica_sets;
  v.stateful_sets = *state->stateful_sets;
  v.pod_groups = &out->groups;
  v.node_labels = state->node_labels.get();
  v.dra_extended_resources = state->dra_extended_resources.get();
  out->usage = std::move(usage);
  v.usage = out->usage.get();
  return out;
}

}  // namespace kext
