#pragma once
// Production's cluster as its scheduler saw it: the live nodes, the pods bound in the live cluster
// on their nodes, the disruption budgets, namespaces and workloads. Pending pods are on no node.
// Each of production's bindings is handed out before it is applied, so that a policy can be judged
// on the cluster production decided in (decision.h).
//
// Pods nominated in production (status.nominatedNodeName) are not held on their nodes: the watch
// shows nominations, but not which preemptions they wait for.
#include <optional>
#include <string>
#include <unordered_set>

#include "sim/core/cluster.h"
#include "sim/follow/cluster_objects.h"
#include "sim/follow/live_stream.h"

namespace kext::simtool::follow {

class ProductionMirror {
 public:
  // A pod production bound: the pod as it was pending, and the node.
  struct Binding {
    Pod pod;
    std::string node;
  };

  // Applies one live event. A pod seen pending and now bound is not applied: it is returned, to be
  // judged on cluster() and then applied with bind().
  std::optional<Binding> apply(const LiveEvent& e);
  void bind(const Binding& b);
  // The cluster as it is now (namespaces and workloads as of the last binding apply() returned).
  const sim::SimCluster& cluster() const { return cluster_; }
  size_t pending() const { return pending_.size(); }

 private:
  void add_bound(const Pod& pod);
  void remove(const std::string& uid);

  sim::SimCluster cluster_;
  ClusterObjects objects_;
  std::unordered_set<std::string> pending_;  // UIDs seen pending, not bound yet
  std::unordered_set<std::string> bound_;    // UIDs on a node of cluster_
};

}  // namespace kext::simtool::follow
