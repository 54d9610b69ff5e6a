#pragma once
// Every bound pod of the cluster, a group at a time: what PodTopologySpread and InterPodAffinity walk
// in PreFilter and PreScore. Their questions about an existing pod (is it in this namespace, does this
// selector match its labels, do its affinity terms match the incoming pod) depend only on its
// namespace, labels and affinity terms, which a Deployment's replicas share. The state cache keeps
// its pods grouped so (a watch event updates one group), and a request asks each question once per
// group rather than once per pod: for Deployments of many replicas, far fewer questions
// (bench/topology_bench.cc; docs/performance.md "PodTopologySpread and InterPodAffinity").
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/model.h"

namespace kext {

// Pods sharing namespace, labels and affinity terms, each bound to a node. `first` is one of them,
// kept in the group itself: a request reads it for every group, and reaching it through `pods` cost
// two more cache misses a group (bench/topology_bench.cc BM_TopologyRequest, 1,500 groups).
struct PodGroup {
  PodMeta first;
  std::vector<std::shared_ptr<const PodInfo>> pods;
};

// A cluster's pods in groups (implemented by the extender's cluster state).
class PodGroups {
 public:
  virtual ~PodGroups() = default;
  virtual void for_each(const std::function<void(const PodGroup&)>& fn) const = 0;
  // The node `name`, nullptr when the cluster has no object for it.
  virtual const NodeInfo* node(std::string_view name) const = 0;
};

// For every bound pod of the cluster: `wants(pod)` once per group, on any one of its pods (so it may
// read only namespace_, labels and affinity), and if true `each(pod, node)` for every pod of the
// group with the node it is on. With `groups` null, every pod of `nodes` is a group of its own.
template <class Wants, class Each>
void visit_pod_groups(const PodGroups* groups, std::span<const NodeInfo* const> nodes, Wants&& wants,
                      Each&& each) {
  if (groups == nullptr) {
    for (const NodeInfo* node : nodes)
      for (const auto& p : node->pods)
        if (wants(*p->pod)) each(*p, *node);
    return;
  }
  groups->for_each([&](const PodGroup& g) {
    if (g.pods.empty() || !wants(g.first)) return;
    for (const auto& p : g.pods)
      if (const NodeInfo* node = groups->node(p->pod->node_name)) each(*p, *node);
  });
}

}  // namespace kext
