#include "sim/capacity/how_many_fit.h"

#include <chrono>
#include <optional>
#include <unordered_map>
#include <utility>

#include "algorithms/gang/pod_group.h"
#include "algorithms/namespaced_key.h"

namespace kext::sim::capacity {

bool Spending::allow(size_t checks) {
  if (std::chrono::steady_clock::now() >= budget_.deadline) {
    account_.stopped_by = "time";
    return false;
  }
  if (budget_.max_node_checks != 0 && account_.node_checks + checks > budget_.max_node_checks) {
    account_.stopped_by = "nodes";
    return false;
  }
  account_.node_checks += checks;
  return true;
}

Pod copy_of(const Pod& pod, size_t index) {
  Pod copy = pod;
  const std::string name = pod.name.empty() ? "pod" : pod.name;
  copy.name = name + "-" + std::to_string(index);
  copy.uid = "capacity-" + namespaced_key(pod.namespace_, copy.name);
  copy.node_name.clear();
  copy.nominated_node_name.clear();
  copy.phase = "Pending";
  copy.preemption_policy = "Never";
  return copy;
}

bool copies_fill_nodes_alone(const Engine& engine, const CycleBackend* backend, const SimCluster& cluster,
                             const Pod& pod) {
  if (gang::pod_group_key(pod)) return false;
  if (backend != nullptr && backend->filter_engine() == nullptr) return false;
  const ClusterView view = cluster.view();
  for (const Engine* e : {&engine, backend ? backend->filter_engine() : nullptr}) {
    if (e == nullptr) continue;
    const PodContext ctx(pod, &view, cluster.version());
    for (const auto& filter : e->filters())
      if (filter->counts_other_nodes(ctx)) return false;
  }
  return true;
}

namespace {

// Where the copies went, and how many there are so far.
struct Placed {
  std::unordered_map<std::string, size_t> by_node;
  size_t copies = 0;
};

// A copy's filters on one node at a time, each engine's PreFilter run once: the profile's, then the
// extender's beside it (its context as CycleBackend::filter builds it), as the cycle runs them.
class NodeFilters {
 public:
  NodeFilters(const Engine& engine, const CycleBackend* backend, const ClusterView& view, const Pod& probe,
              std::span<const NodeInfo* const> nodes, KubeVersion version)
      : engine_(engine),
        extender_(backend ? backend->filter_engine() : nullptr),
        ctx_(probe, &view, version) {
    engine_.prepare(ctx_, nodes);
    if (extender_) {
      extender_ctx_.emplace(probe, extender_->reads_cluster() ? &view : nullptr);
      extender_->prepare(*extender_ctx_, nodes);
    }
  }
  bool fits(const NodeInfo& node) const {
    return engine_.fits(ctx_, node) && (!extender_ || extender_->fits(*extender_ctx_, node));
  }

 private:
  const Engine& engine_;
  const Engine* extender_;
  PodContext ctx_;
  std::optional<PodContext> extender_ctx_;
};

// Each node takes copies until the next does not fit there: PreFilter once (nothing it computes changes
// as copies without terms are placed), then one filter of one node per copy, each copy bound as the
// cycle binds it (SimCluster::bind: its GPU cards too).
void fill_each_node(SimCluster& cluster, const Engine& engine, const CycleBackend* backend, const Pod& pod,
                    int64_t now_unix, Placed& placed, Spending& spending) {
  const ClusterView view = cluster.view();
  const Pod probe = copy_of(pod, 0);
  const NodeFilters filters(engine, backend, view, probe, cluster.nodes(), cluster.version());
  for (size_t i = 0; i < cluster.nodes().size(); ++i) {
    const NodeInfo& node = *cluster.nodes()[i];
    while (spending.allow(1) && filters.fits(node)) {
      Pod copy = copy_of(pod, placed.copies);
      const std::string uid = copy.uid;
      cluster.add_pod(std::move(copy));
      cluster.bind(uid, node.node->name, now_unix);
      ++placed.by_node[node.node->name];
      ++placed.copies;
    }
    if (spending.spent()) return;
  }
}

// The rest through whole cycles, a copy at a time at the next microsecond, until one does not fit or
// the limit: each copy's cycle as kube-scheduler's scheduleOne runs it.
void place_by_cycles(Simulator& simulator, const Pod& pod, size_t max_pods, Placed& placed,
                     CapacityAnswer& out, Spending& spending) {
  RunSummary summary;
  SimTime at = simulator.now();
  for (;; at += std::chrono::microseconds(1)) {
    if (max_pods != 0 && placed.copies == max_pods) {
      out.stopped_at_max = true;
      return;
    }
    if (!spending.allow(simulator.cluster().nodes().size())) return;
    Pod copy = copy_of(pod, placed.copies);
    const std::string uid = copy.uid;
    simulator.add_pending(std::move(copy), at);
    std::optional<CycleRecord> decided;
    simulator.run_until(at, summary, [&](const CycleRecord& d) {
      if (d.uid == uid) decided = d;
    });
    ++out.cycles;
    if (!decided || decided->outcome != Outcome::kScheduled) {
      out.reasons = decided ? decided->reasons : std::map<std::string, size_t>{};
      out.message = decided ? decided->message : "the copy was not scheduled: it had no scheduling cycle";
      // The simulator left as the copies placed left it.
      simulator.delete_pod(uid, at);
      simulator.run_until(at, summary, [](const CycleRecord&) {});
      return;
    }
    ++placed.by_node[decided->node];
    ++placed.copies;
  }
}

}  // namespace

CapacityAnswer how_many_fit(SimCluster cluster, const Engine& engine, const SimulatorOptions& options,
                            const Pod& pod, size_t max_pods, const Budget& budget) {
  CapacityAnswer out;
  out.pod = namespaced_key(pod.namespace_, pod.name);
  Placed placed;
  Spending spending(budget);
  if (max_pods == 0 && copies_fill_nodes_alone(engine, options.backend, cluster, pod)) {
    fill_each_node(cluster, engine, options.backend, pod, options.epoch_unix_seconds, placed, spending);
    out.filled = placed.copies;
  }
  Simulator simulator(std::move(cluster), engine, options);
  if (!spending.spent()) place_by_cycles(simulator, pod, max_pods, placed, out, spending);
  out.fit = placed.copies;
  out.stopped_by_budget = spending.account().stopped_by;
  out.node_checks = spending.account().node_checks;
  for (const NodeInfo* n : simulator.cluster().nodes()) {
    if (auto it = placed.by_node.find(n->node->name); it != placed.by_node.end())
      out.per_node.push_back({it->first, it->second});
  }
  return out;
}

}  // namespace kext::sim::capacity
