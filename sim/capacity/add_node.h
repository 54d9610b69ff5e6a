#pragma once
// "Would more nodes of this shape help the pending pods?", the question of Cluster Autoscaler's
// scale-up: a node group's template node, and how many such nodes the pending pods need
// (cluster-autoscaler estimator/binpacking_estimator.go Estimate). Here the cluster's pending pods go
// through the simulator's queue and cycle with nodes of the template added, so under the configured
// profile and the extender's plugins: a gang binds whole or not at all, in one topology domain, and GPU
// shares count, which Cluster Autoscaler, blind to an extender, cannot see.
#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/gang/gatekeeper.h"
#include "algorithms/model.h"
#include "sim/core/cluster.h"
#include "sim/core/simulator.h"

namespace kext::sim::capacity {

// One node added, and the pending pods it lets bind (bound on it, and pending without it).
struct AddedNode {
  std::string node;
  std::vector<std::string> pods;  // namespace/name, in the cluster's order
  bool operator==(const AddedNode&) const = default;
};

// A pending pod no number of added nodes up to the limit lets bind, and its last cycle's FitError.
struct StillPending {
  std::string pod;
  std::string reason;
  bool operator==(const StillPending&) const = default;
};

struct AddNodeAnswer {
  std::string template_node;             // the template's name
  size_t pending = 0;                    // the cluster's pending pods
  std::vector<std::string> fit_already;  // bound with no node added
  // The fewest nodes of the template that place every pod the most nodes tried place (0: none helps).
  size_t needed = 0;
  size_t tried = 0;              // the most nodes tried (--count; by default one per pending pod)
  std::vector<AddedNode> added;  // with `needed` added: each node, the pods it lets bind
  // Pods that bind on the cluster's own nodes only once the nodes are added (a gang whose members need
  // the new room too, a pod that takes room another pod left by moving to a new node).
  std::vector<std::string> elsewhere;
  std::vector<StillPending> still_pending;  // with `needed` added (with `tried` when none helps)
  std::vector<std::string> preempted;       // running pods the pending pods evicted meanwhile
  // Every one of the `tried` nodes took a pod and some are still pending: more nodes may place more.
  bool stopped_at_max = false;
  bool operator==(const AddNodeAnswer&) const = default;
};

// Copy `index` (from 1) of the template: named "<name>-new-<index>" and its kubernetes.io/hostname label
// that name, the rest as the template has it, as Cluster Autoscaler makes a template's copies unique
// (cluster-autoscaler simulator/node_info_utils.go sanitizeNode).
Node added_node(const Node& template_node, size_t index);

// The cluster's pending pods (`pending`, their PodGroups in `groups`) placed under `engine` and
// `options` with 0 to `max_nodes` nodes like `template_node` added (0: one per pending pod): which bind
// as the cluster is, the fewest nodes that place all the most nodes place, the pods each lets bind.
AddNodeAnswer add_nodes(const SimCluster& cluster, const Engine& engine, const SimulatorOptions& options,
                        const gang::GroupMap& groups, const std::vector<Pod>& pending,
                        const Node& template_node, size_t max_nodes = 0);

}  // namespace kext::sim::capacity
