#pragma once
// extender-sim's fragmentation per topology level: for each shape of pod group in the run (its
// minMember and its first member's requests) and each topology level, how many domains of the level
// could take the whole group on free room (algorithms/gang/topology.h fit_by_level). What an operator
// watches to know whether big jobs will fit: a cluster can have room for a group in total and no rack
// that takes it whole.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/gang/gatekeeper.h"
#include "algorithms/gang/topology.h"
#include "algorithms/model.h"

namespace kext::simtool {

// A group of `size` members that each request `request`.
struct GroupShape {
  int32_t size = 0;
  Resources request;
  std::string text() const;  // "8 × 2 CPU"
  bool operator==(const GroupShape&) const = default;
};

// The run's figures: the levels reported (node label keys) and the shapes, then, per shape, each
// level's fit at the start of the run and at its end.
struct TopologyFit {
  std::vector<std::string> levels;
  std::vector<GroupShape> shapes;
  std::vector<std::vector<gang::LevelFit>> start;  // [shape][level]
  std::vector<std::vector<gang::LevelFit>> end;
  bool empty() const { return levels.empty() || shapes.empty(); }
};

// The levels and shapes of a run. Levels: `configured` (the configuration's gang.topologyLevels),
// then the keys the groups' constraints name that are not among them, by name: a workload with a
// required rack shows racks with no levels configured. Shapes: each group's minMember with the
// requests of its first member among `pods` (the pods the run places, in the order given), distinct,
// the largest groups first; a group with no member among them has none. Nothing to report: empty.
TopologyFit plan_topology_fit(std::span<const std::string> configured, const gang::GroupMap& groups,
                              std::span<const Pod* const> pods);

// plan's shapes on `nodes` as they are: [shape][level].
std::vector<std::vector<gang::LevelFit>> fit_shapes(const TopologyFit& plan,
                                                    std::span<const NodeInfo* const> nodes);

// One shape's levels as the summary prints them: "block 3 of 25 (best b1: 8), rack 0 of 250 (best r3:
// 6)": per level, the domains that take the whole group of all its domains, and the one that takes
// the most members (at most the group's size).
std::string level_fit_text(const std::vector<gang::LevelFit>& levels);

// The summary's rows: per shape, "groups of 8 × 2 CPU fit in, at start" and "..., at end".
std::vector<std::pair<std::string, std::string>> topology_fit_rows(const TopologyFit& fit);

}  // namespace kext::simtool
