#include "sim/capacity/add_node.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "algorithms/namespaced_key.h"

namespace kext::sim::capacity {
namespace {

// One run of the pending pods with `nodes` nodes of the template added.
struct Trial {
  size_t nodes = 0;
  std::map<std::string, std::string, std::less<>> placed;   // pending pod UID -> its node
  std::map<std::string, std::string, std::less<>> failure;  // pending pod UID -> its last FitError
  std::set<std::string> preempted;                          // namespace/name
};

// A pod whose queueing hints said the added nodes could not help it (NodeResourcesFit's, for a node
// too small: pkg/scheduler/framework/plugins/noderesources/fit.go isSchedulableAfterNodeChange) had no
// cycle since they joined, and its last reasons count only the cluster's nodes. Each such pod comes
// again once, as the queue's leftover flush would bring it, so that its reasons count the new nodes.
void retry_still_pending(Simulator& simulator, const std::vector<Pod>& pending,
                         const std::function<void(const CycleRecord&)>& record) {
  const SimTime at = simulator.now() + std::chrono::seconds(1);
  std::vector<const Pod*> again;
  for (const Pod& p : pending) {
    const auto now = simulator.cluster().pod(p.uid);
    if (now && now->node_name.empty()) again.push_back(&p);
  }
  if (again.empty()) return;
  for (const Pod* p : again) simulator.delete_pod(p->uid, at);
  RunSummary deleted;
  simulator.run_until(at, deleted, record);
  for (const Pod* p : again) simulator.add_pending(*p, at);
  simulator.run(record);
}

// The pending pods through the simulator's queue and cycle, all arriving at once, until nothing can
// change; then, one second later, `nodes` nodes of the template join, and the pods still pending go on
// until nothing can change again. So the pods that fit as the cluster is bind first, as they would before
// any node could be added, and the added nodes are left to the others (Cluster Autoscaler too asks only
// for the pods the cluster cannot take: core/static_autoscaler.go, FilterOutSchedulable).
Trial run_with(const SimCluster& cluster, const Engine& engine, const SimulatorOptions& options,
               const gang::GroupMap& groups, const std::vector<Pod>& pending, const Node& template_node,
               size_t nodes) {
  Simulator simulator(SimCluster(cluster), engine, options);
  simulator.set_pod_groups(groups);
  for (const Pod& p : pending) simulator.add_pending(p, SimTime{0});
  Trial t;
  t.nodes = nodes;
  auto record = [&](const CycleRecord& d) {
    if (d.outcome != Outcome::kScheduled) t.failure[d.uid] = d.message;
    t.preempted.insert(d.victim_names.begin(), d.victim_names.end());
  };
  simulator.run(record);
  if (nodes > 0) {
    const SimTime joined = simulator.now() + std::chrono::seconds(1);
    for (size_t i = 1; i <= nodes; ++i) simulator.add_node(added_node(template_node, i), joined);
    simulator.run(record);
    retry_still_pending(simulator, pending, record);
  }
  for (const Pod& p : pending) {
    const auto now = simulator.cluster().pod(p.uid);
    if (now && !now->node_name.empty()) t.placed.emplace(p.uid, now->node_name);
  }
  return t;
}

// The fewest nodes, between 1 and `most`, whose trial places as many pods as `full` (the trial with
// `most`): a binary search, since more nodes of one shape never leave a pod pending that fewer place.
Trial fewest_nodes(const std::function<Trial(size_t)>& trial, Trial full, size_t most) {
  size_t low = 1, high = most;
  Trial best = std::move(full);
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    Trial t = trial(mid);
    if (t.placed.size() >= best.placed.size()) {
      high = mid;
      best = std::move(t);
    } else {
      low = mid + 1;
    }
  }
  return best;
}

// The answer from the trial without nodes (`base`) and the one chosen (`best`).
void describe(const std::vector<Pod>& pending, const Trial& base, const Trial& best, AddNodeAnswer& out) {
  std::map<std::string, size_t, std::less<>> added_index;
  for (size_t i = 0; i < out.added.size(); ++i) added_index.emplace(out.added[i].node, i);
  for (const Pod& p : pending) {
    const std::string name = namespaced_key(p.namespace_, p.name);
    if (base.placed.contains(p.uid)) {
      out.fit_already.push_back(name);
      continue;
    }
    const auto placed = best.placed.find(p.uid);
    if (placed == best.placed.end()) {
      const auto failure = best.failure.find(p.uid);
      out.still_pending.push_back({name, failure == best.failure.end() ? "(no cycle)" : failure->second});
    } else if (auto i = added_index.find(placed->second); i != added_index.end()) {
      out.added[i->second].pods.push_back(name);
    } else {
      out.elsewhere.push_back(name);
    }
  }
  out.preempted.assign(best.preempted.begin(), best.preempted.end());
}

}  // namespace

Node added_node(const Node& template_node, size_t index) {
  Node n = template_node;
  n.name = template_node.name + "-new-" + std::to_string(index);
  n.labels["kubernetes.io/hostname"] = n.name;
  return n;
}

AddNodeAnswer add_nodes(const SimCluster& cluster, const Engine& engine, const SimulatorOptions& options,
                        const gang::GroupMap& groups, const std::vector<Pod>& pending,
                        const Node& template_node, size_t max_nodes) {
  AddNodeAnswer out;
  out.template_node = template_node.name;
  out.pending = pending.size();
  out.tried = max_nodes != 0 ? max_nodes : std::max<size_t>(1, pending.size());
  auto trial = [&](size_t nodes) {
    return run_with(cluster, engine, options, groups, pending, template_node, nodes);
  };
  const Trial base = trial(0);
  Trial best = base;
  if (base.placed.size() < pending.size()) {
    Trial full = trial(out.tried);
    best = full.placed.size() > base.placed.size() ? fewest_nodes(trial, std::move(full), out.tried)
                                                   : std::move(full);
    out.needed = best.placed.size() > base.placed.size() ? best.nodes : 0;
  }
  for (size_t i = 1; i <= out.needed; ++i) out.added.push_back({added_node(template_node, i).name, {}});
  describe(pending, base, best, out);
  out.stopped_at_max = out.needed == out.tried && !out.still_pending.empty() &&
                       std::all_of(out.added.begin(), out.added.end(), [&](const AddedNode& n) {
                         return std::any_of(best.placed.begin(), best.placed.end(),
                                            [&](const auto& p) { return p.second == n.node; });
                       });
  return out;
}

}  // namespace kext::sim::capacity
