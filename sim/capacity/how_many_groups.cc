#include "sim/capacity/how_many_groups.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <unordered_map>
#include <utility>

#include "algorithms/gang/topology.h"
#include "algorithms/namespaced_key.h"

namespace kext::sim::capacity {
namespace {

// How long a group's members are given, in simulated time, to bind or to be left pending: a minute
// (the queue's longest backoff is 10 s) past a gang's schedule timeout, so that whatever can still
// happen has.
SimDuration settle_time(const GroupQuestion& q) {
  return std::chrono::seconds(60 + (q.gang ? q.gang->timeout_seconds() : 0));
}

std::string group_name(const GroupQuestion& q) {
  if (q.gang) return namespaced_key(q.gang->namespace_, q.gang->name);
  const Pod& first = q.members.front();
  return namespaced_key(first.namespace_, first.controller_name.empty() ? first.name : first.controller_name);
}

gang::PodGroupSpec group_copy(const gang::PodGroupSpec& spec, size_t index) {
  gang::PodGroupSpec copy = spec;
  copy.name = spec.name + "-" + std::to_string(index);
  return copy;
}

// The members of copy `index`, added to the simulator at `at`; their UIDs.
std::vector<std::string> add_group(Simulator& simulator, const GroupQuestion& q, size_t index, SimTime at) {
  std::vector<std::string> uids;
  for (const Pod& member : q.members) {
    Pod copy = group_member_copy(member, q.gang, index);
    uids.push_back(copy.uid);
    simulator.add_pending(std::move(copy), at);
  }
  return uids;
}

// Where the group's members are, in the cluster's node order; nullopt when one has no node.
std::optional<GroupPlacement> placement_of(const SimCluster& cluster, const std::vector<std::string>& uids) {
  std::unordered_map<std::string, size_t> by_node;
  for (const std::string& uid : uids) {
    const auto pod = cluster.pod(uid);
    if (!pod || pod->node_name.empty()) return std::nullopt;
    ++by_node[pod->node_name];
  }
  GroupPlacement out;
  for (const NodeInfo* n : cluster.nodes()) {
    if (auto it = by_node.find(n->name()); it != by_node.end())
      out.per_node.push_back({it->first, it->second});
  }
  return out;
}

// The domains, of `levels` (label keys, coarse to fine), that hold all of the group.
std::vector<std::string> shared_domains(const SimCluster& cluster, const GroupPlacement& g,
                                        const std::vector<std::string>& levels) {
  std::vector<std::string> out;
  for (const std::string& key : levels) {
    std::set<std::string> values;
    bool labelled = true;
    for (const NodeCount& n : g.per_node) {
      const NodeInfo* node = cluster.node(n.node);
      const auto it = node->node->labels.find(key);
      if (it == node->node->labels.end()) {
        labelled = false;
        break;
      }
      values.insert(it->second);
    }
    if (labelled && values.size() == 1)
      out.push_back(std::string(gang::level_name(key)) + " " + *values.begin());
  }
  return out;
}

// The levels a group's domains are reported at: the configuration's topology levels, and the
// PodGroup's own required or preferred label when they leave it out (then finest).
std::vector<std::string> reported_levels(const GroupQuestion& q, const SimulatorOptions& options) {
  std::vector<std::string> levels = options.topology_levels;
  if (!q.gang) return levels;
  for (const std::string& key : {q.gang->topology.required, q.gang->topology.preferred}) {
    if (!key.empty() && std::find(levels.begin(), levels.end(), key) == levels.end()) levels.push_back(key);
  }
  return levels;
}

// The finest level whose domain every group lies in.
std::string each_in_one(const std::vector<GroupPlacement>& groups, const std::vector<std::string>& levels) {
  std::string out;
  for (const std::string& key : levels) {
    const std::string name(gang::level_name(key));
    bool all = !groups.empty();
    for (const GroupPlacement& g : groups) {
      bool found = false;
      for (const std::string& d : g.domains) found = found || d.starts_with(name + " ");
      all = all && found;
    }
    if (all) out = name;
  }
  return out;
}

}  // namespace

Pod group_member_copy(const Pod& member, const std::optional<gang::PodGroupSpec>& gang, size_t index) {
  Pod copy = copy_of(member, index);
  if (!gang) return copy;
  const std::string group = group_copy(*gang, index).name;
  if (gang->api == gang::GroupApi::kCoscheduling) {
    Labels labels = member.labels.get();
    labels[std::string(gang::kPodGroupLabel)] = group;
    copy.labels = SharedLabels(std::move(labels));
  } else {
    copy.scheduling_group = group;
  }
  return copy;
}

GroupAnswer how_many_groups(SimCluster cluster, const Engine& engine, const SimulatorOptions& options,
                            const GroupQuestion& question, size_t max_groups, const Budget& budget) {
  GroupAnswer out;
  if (question.members.empty()) return out;
  out.group = group_name(question);
  out.size = question.members.size();
  Spending spending(budget);
  const size_t checks_a_group = cluster.nodes().size() * question.members.size();
  Simulator simulator(std::move(cluster), engine, options);
  gang::GroupMap groups = question.cluster_groups;
  RunSummary summary;
  const SimDuration settle = settle_time(question);
  const std::vector<std::string> levels = reported_levels(question, options);
  SimTime at = simulator.now();
  for (size_t index = 0;; ++index) {
    if (max_groups != 0 && out.fit == max_groups) {
      out.stopped_at_max = true;
      break;
    }
    if (!spending.allow(checks_a_group)) break;
    if (question.gang) {
      const gang::PodGroupSpec copy = group_copy(*question.gang, index);
      groups.insert_or_assign(copy.key(), copy);
      simulator.set_pod_groups(groups);
    }
    at += std::chrono::microseconds(1);
    const std::vector<std::string> uids = add_group(simulator, question, index, at);
    std::map<std::string, CycleRecord> last;  // each member's last cycle
    simulator.run_until(at + settle, summary, [&](const CycleRecord& d) { last.insert_or_assign(d.uid, d); });
    at = std::max(at + settle, simulator.now());
    if (std::optional<GroupPlacement> placed = placement_of(simulator.cluster(), uids)) {
      placed->domains = shared_domains(simulator.cluster(), *placed, levels);
      out.groups.push_back(std::move(*placed));
      ++out.fit;
      continue;
    }
    for (const std::string& uid : uids) {
      const auto pod = simulator.cluster().pod(uid);
      if (pod && !pod->node_name.empty()) continue;
      const auto it = last.find(uid);
      out.reasons = it == last.end() ? std::map<std::string, size_t>{} : it->second.reasons;
      out.message = it == last.end() ? "the member had no scheduling cycle" : it->second.message;
      break;
    }
    break;
  }
  out.stopped_by_budget = spending.account().stopped_by;
  out.node_checks = spending.account().node_checks;
  out.each_in_one = each_in_one(out.groups, levels);
  return out;
}

}  // namespace kext::sim::capacity
