#pragma once
// "How many more of this group fit?": a Deployment's replicas, or a PodGroup's members, counted in whole
// groups. A group counts only when every member of it is placed: N pods that fit one by one are not N/8
// groups of 8 when the last group cannot complete, and a gang's members wait for each other. The
// groups are placed one after another, each through the simulator's cycle with its members arriving
// together (a PodGroup's all-or-nothing and its topology as kube-extender's gang scheduling decides
// them, docs/gang-scheduling.md), none preempting, until one does not complete.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/gang/gatekeeper.h"
#include "algorithms/gang/pod_group.h"
#include "algorithms/model.h"
#include "sim/capacity/how_many_fit.h"
#include "sim/core/cluster.h"
#include "sim/core/simulator.h"

namespace kext::sim::capacity {

// The group asked about.
struct GroupQuestion {
  std::vector<Pod> members;                // as their controller creates them (one group)
  std::optional<gang::PodGroupSpec> gang;  // their PodGroup, when they have one
  gang::GroupMap cluster_groups;           // the cluster's own PodGroups, for its running members
};

// Where one group went.
struct GroupPlacement {
  std::vector<NodeCount> per_node;  // its members by node, in the cluster's node order
  // At each topology level where all its members share one domain, that domain ("rack r1"), coarse
  // to fine: the configuration's levels (gang.topologyLevels), then the PodGroup's own topology label.
  std::vector<std::string> domains;
  bool operator==(const GroupPlacement&) const = default;
};

struct GroupAnswer {
  std::string group;  // namespace/name of the PodGroup, else of the members' controller
  size_t size = 0;    // members a group
  size_t fit = 0;     // whole groups placed
  std::vector<GroupPlacement> groups;
  // The finest topology level at which every group placed lies in one domain ("rack"); "" when none.
  std::string each_in_one;
  bool stopped_at_max = false;
  std::string stopped_by_budget;  // as CapacityAnswer's
  size_t node_checks = 0;
  // Why the next group did not complete: the reasons and FitError's text of the first member left
  // without a node. Empty when stopped at the limit or by the budget.
  std::map<std::string, size_t> reasons;
  std::string message;
  bool operator==(const GroupAnswer&) const = default;
};

// Member `member` of the copy `index` (from 0) of the group: "<name>-<index>", a UID of its own, pending,
// never preempting, and in the copy's own PodGroup "<group>-<index>" when the group has one.
Pod group_member_copy(const Pod& member, const std::optional<gang::PodGroupSpec>& gang, size_t index);

// Places copies of the group in `cluster` (its running pods stay; its pending pods are left out) until
// one does not complete, `max_groups` have (0: no limit), or the budget runs out.
GroupAnswer how_many_groups(SimCluster cluster, const Engine& engine, const SimulatorOptions& options,
                            const GroupQuestion& question, size_t max_groups = 0, const Budget& budget = {});

}  // namespace kext::sim::capacity
