#include "sim/capacity/drain.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "algorithms/label_selector.h"
#include "algorithms/namespaced_key.h"

namespace kext::sim::capacity {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

// One pod kubectl drain evicts, and the replacement its controller creates (none without a controller).
struct Eviction {
  std::shared_ptr<const Pod> pod;
  std::string node;
  std::string replacement;  // UID; "" for a pod of no controller
};

// What kubectl drain --ignore-daemonsets evicts from `nodes`: every pod but the DaemonSets' and those
// already ending; the DaemonSets' pods go to `daemon_pods`.
std::vector<Eviction> evictions_of(const SimCluster& cluster, const std::vector<std::string>& nodes,
                                   DrainAnswer& out) {
  std::vector<Eviction> evictions;
  for (const std::string& name : nodes) {
    for (const auto& info : cluster.node(name)->pods) {
      const std::shared_ptr<const Pod> pod = cluster.pod(info->pod->uid);
      if (!pod || pod->terminating || pod->is_terminal()) continue;
      if (pod->controller_kind == "DaemonSet") {
        out.daemon_pods.push_back(namespaced_key(pod->namespace_, pod->name));
        continue;
      }
      evictions.push_back({pod, name, pod->controller_kind.empty() ? "" : pod->uid + "-drained"});
    }
  }
  return evictions;
}

// The replacement a controller creates for an evicted pod: its spec, pending, under a UID of its own.
Pod replacement_of(const Eviction& e) {
  Pod next = *e.pod;
  next.uid = e.replacement;
  next.node_name.clear();
  next.nominated_node_name.clear();
  next.phase.clear();
  next.start_time.reset();
  next.terminating = false;
  return next;
}

// Cordon, evictions and replacements at the simulator's start, in kubectl drain's order; every
// controlled pod (running or replacing) replaced in turn when the replacements preempt it.
void start_drain(Simulator& simulator, const std::vector<std::string>& nodes,
                 const std::vector<Eviction>& evictions) {
  Lifecycle replaced;
  replaced.recreate_when_preempted = true;
  for (const NodeInfo* n : simulator.cluster().nodes()) {
    for (const auto& info : n->pods) {
      const auto pod = simulator.cluster().pod(info->pod->uid);
      if (pod && !pod->controller_kind.empty()) simulator.set_lifecycle(pod->uid, replaced);
    }
  }
  const SimTime t0 = simulator.now();
  for (const std::string& name : nodes) {
    Node cordoned = *simulator.cluster().node(name)->node;
    cordoned.unschedulable = true;
    simulator.change_node(std::move(cordoned), t0);
  }
  for (const Eviction& e : evictions) simulator.delete_pod(e.pod->uid, t0);
  for (const Eviction& e : evictions)
    if (!e.replacement.empty()) simulator.add_pending(replacement_of(e), t0, replaced);
}

// policy/v1: a nil selector selects no pod, an empty one every pod of the budget's namespace.
bool budget_selects(const PodDisruptionBudget& pdb, const Pod& pod) {
  return pdb.selector && pod.namespace_ == pdb.namespace_ &&
         label_selector_matches(*pdb.selector, pod.labels.get());
}

// The Eviction API refuses an eviction past status.disruptionsAllowed; kubectl drain retries until the
// replacements are healthy and the budget allows more, and for ever when some cannot run.
std::vector<BudgetVerdict> budget_verdicts(std::span<const PodDisruptionBudget> pdbs,
                                           const std::vector<Eviction>& evictions,
                                           const std::set<std::string>& runs_again) {
  std::vector<BudgetVerdict> out;
  for (const PodDisruptionBudget& pdb : pdbs) {
    BudgetVerdict v;
    v.pdb = namespaced_key(pdb.namespace_, pdb.name);
    v.allowed = pdb.disruptions_allowed;
    bool all_run_again = true;
    for (const Eviction& e : evictions) {
      if (!budget_selects(pdb, *e.pod)) continue;
      ++v.evicted;
      all_run_again = all_run_again && runs_again.contains(e.pod->uid);
    }
    if (v.evicted == 0) continue;
    v.slows = v.evicted > static_cast<size_t>(std::max(0, v.allowed));
    v.blocks = v.slows && !all_run_again;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

std::vector<std::string> nodes_to_drain(const SimCluster& cluster, const std::string& argument) {
  const std::vector<std::string> items = split_list(argument);
  if (items.empty()) throw std::invalid_argument("--drain: names no node");
  const auto is_label = [](const std::string& s) { return s.find('=') != std::string::npos; };
  const bool selector = is_label(items.front());
  Labels want;
  for (const std::string& item : items) {
    if (is_label(item) != selector)
      throw std::invalid_argument("--drain " + argument + ": node names or key=value labels, not both");
    if (!selector && cluster.node(item) == nullptr)
      throw std::invalid_argument("--drain: no node \"" + item + "\" in the cluster");
    if (selector) want[item.substr(0, item.find('='))] = item.substr(item.find('=') + 1);
  }
  const std::set<std::string, std::less<>> named(items.begin(), items.end());
  std::vector<std::string> out;
  for (const NodeInfo* n : cluster.nodes()) {
    const Labels& labels = n->node->labels;
    const bool matches = std::all_of(want.begin(), want.end(), [&](const auto& kv) {
      auto it = labels.find(kv.first);
      return it != labels.end() && it->second == kv.second;
    });
    if (selector ? matches : named.contains(n->node->name)) out.push_back(n->node->name);
  }
  if (out.empty()) throw std::invalid_argument("--drain " + argument + ": no node has those labels");
  return out;
}

DrainAnswer drain(SimCluster cluster, const Engine& engine, const SimulatorOptions& options,
                  const std::vector<std::string>& nodes) {
  DrainAnswer out;
  out.nodes = nodes;
  const std::vector<Eviction> evictions = evictions_of(cluster, nodes, out);
  Simulator simulator(std::move(cluster), engine, options);
  start_drain(simulator, nodes, evictions);
  std::map<std::string, std::string> last_failure;  // replacement UID -> its last FitError
  std::set<std::string> preempted;
  simulator.run([&](const CycleRecord& d) {
    if (d.outcome != Outcome::kScheduled) last_failure[d.uid] = d.message;
    for (const std::string& v : d.victim_names) preempted.insert(v);
  });
  std::set<std::string> runs_again;  // evicted pods' UIDs whose replacement is bound
  for (const Eviction& e : evictions) {
    EvictedPod p{namespaced_key(e.pod->namespace_, e.pod->name), e.node, e.pod->effective_priority(), "", ""};
    if (e.replacement.empty()) {
      out.unreplaced.push_back(p.pod);
      continue;
    }
    const auto now = simulator.cluster().pod(e.replacement);
    if (now && !now->node_name.empty()) {
      p.to = now->node_name;
      runs_again.insert(e.pod->uid);
      out.placed.push_back(std::move(p));
    } else {
      const auto it = last_failure.find(e.replacement);
      p.reason = it == last_failure.end() ? "(no cycle)" : it->second;
      out.pending.push_back(std::move(p));
    }
  }
  out.preempted.assign(preempted.begin(), preempted.end());
  out.budgets = budget_verdicts(simulator.cluster().pdbs(), evictions, runs_again);
  out.safe =
      out.pending.empty() && out.unreplaced.empty() && out.preempted.empty() &&
      std::none_of(out.budgets.begin(), out.budgets.end(), [](const BudgetVerdict& v) { return v.blocks; });
  return out;
}

}  // namespace kext::sim::capacity
