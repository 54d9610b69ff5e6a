#pragma once
// A ClusterView (algorithms/plugin.h) over one ClusterState snapshot: what the plugins that read the
// whole cluster (PodTopologySpread, InterPodAffinity) see beyond the nodes of a request.
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "algorithms/plugin.h"
#include "algorithms/pod_groups.h"
#include "kube/state/cluster_state.h"

namespace kext {

// The state's pod groups, and its nodes by name.
class StatePodGroups final : public PodGroups {
 public:
  explicit StatePodGroups(const ClusterState& state) : state_(state) {}
  void for_each(const std::function<void(const PodGroup&)>& fn) const override {
    state_.pod_groups.for_each([&](const auto&, const std::shared_ptr<const PodGroup>& g) { fn(*g); });
  }
  const NodeInfo* node(std::string_view name) const override {
    const NodeInfo* info = state_.find_node(name);
    return info && info->node ? info : nullptr;
  }

 private:
  const ClusterState& state_;
};

// Owns the node list the view spans; holds `state` alive for as long as the view is read.
struct StateClusterView {
  explicit StateClusterView(std::shared_ptr<const ClusterState> s) : state(std::move(s)), groups(*state) {}
  std::shared_ptr<const ClusterState> state;
  StatePodGroups groups;
  std::shared_ptr<const UsageView> usage;  // view.usage, held as long as the view
  std::vector<const NodeInfo*> nodes;
  ClusterView view;
};

// Every node of `state` that has a node object (kube-scheduler's snapshot lists only those), in no
// particular order, and the namespaces and workload selectors. nullptr when the state has no node
// objects (no watch and no snapshot): the request's own nodes are then the cluster. `usage`
// (StateStore::usage, may be null) becomes ClusterView::usage.
std::unique_ptr<const StateClusterView> cluster_view_of(std::shared_ptr<const ClusterState> state,
                                                        std::shared_ptr<const UsageView> usage = nullptr);

}  // namespace kext
