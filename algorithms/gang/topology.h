#pragma once
// Topology-aware gangs: a whole group in one topology domain (one rack, one block, one zone: the nodes
// that share one value of a node label), chosen as upstream's topology-aware workload scheduling
// chooses one (KEP-5732, kubernetes pkg/scheduler/framework/plugins/topologyplacement: one candidate
// placement per value of the key, each checked by placing every member with the pod-level filters,
// scored by NodeResourcesFit's MostAllocated ratio across the placement plus the members placed). Two
// things upstream does not do: a preferred constraint that falls back level by level (a rack, then one
// block, then as few racks as possible), and preemption for a domain when none has room (upstream
// leaves the group pending), in kube-scheduler's own order of criteria applied to the group's total.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/gang/admission.h"
#include "algorithms/gang/pod_group.h"
#include "algorithms/model.h"

namespace kext::gang {

// A label key as reasons print it: its last path segment ("topology.kubernetes.io/rack" -> "rack").
std::string_view level_name(std::string_view key);

// One topology domain: the nodes whose label `key` has `value`.
struct Domain {
  std::string key;
  std::string value;
  std::vector<size_t> nodes;  // indices into the caller's node list, ascending
  std::string text() const { return std::string(level_name(key)) + " " + value; }  // "rack r3"
};

// The domains of `key` among `nodes` (or among the indices `within`), ordered by value. A node without
// the label is in none of them.
std::vector<Domain> domains_of(std::string_view key, std::span<const NodeInfo* const> nodes);
std::vector<Domain> domains_of(std::string_view key, std::span<const NodeInfo* const> nodes,
                               std::span<const size_t> within);

// How many more pods requesting `request` fit in `node`'s free room (allocatable less requested, per
// resource, and its pod slots): NodeResourcesFit's fitsRequest counted, an upper bound of what the
// pod-level filters then allow.
int64_t pods_fitting(const NodeInfo& node, const Resources& request);

// "2 CPU", "500m CPU + 4Gi", "1 CPU + 1 nvidia.com/gpu": a member's request as reasons print it.
std::string request_text(const Resources& request);

// Fragmentation at one topology level: how many of its domains could take a group of `size` members
// that each request `request`, on free room alone.
struct LevelFit {
  std::string key;
  size_t domains = 0;  // domains of the level (nodes with the label, by value)
  size_t fitting = 0;  // of them, those whose free room takes the whole group
  std::string best;    // the domain that takes the most members ("" with no domains)
  int64_t best_fits = 0;
  bool operator==(const LevelFit&) const = default;
};
std::vector<LevelFit> fit_by_level(std::span<const std::string> levels,
                                   std::span<const NodeInfo* const> nodes, const Resources& request,
                                   int32_t size);

// admit() for a group with a topology constraint (group.topology), on `nodes` as held room leaves them:
//   - required key: every member in one domain of it, the best-scored domain whose whole group fits;
//     nodes without the label are never used; none fits: not admitted, with a reason naming the
//     domain that comes closest ("no rack has room for 8 × 2 CPU: best rack r3 fits 6");
//   - preferred key: one domain of it; else one domain of each coarser level of `levels` (coarse to
//     fine, as configured) in turn; else as few domains of it as the group fits in;
//   - with `evictions` (whole-group preemption), the domain whose preemption costs least, by
//     kube-scheduler's pickOneNodeForPreemption criteria applied to the group's total (fewest PDB
//     violations, lowest highest victim priority, smallest priority sum, fewest victims, latest start):
//     every victim in that one domain.
// A group with no constraint is admitted as admit() admits it. Admission::domain names the domain.
// With both keys, the required one decides. `bound_nodes`: the nodes of the group's members already
// bound (a group that lost one): a required key keeps the rest to their domain.
Admission admit_in_topology(const Engine& engine, const PodGroupSpec& group,
                            std::span<const std::shared_ptr<const Pod>> members,
                            std::span<const NodeInfo* const> nodes, std::span<const std::string> levels,
                            const ClusterView* cluster = nullptr, const Evictions* evictions = nullptr,
                            std::span<const std::string> bound_nodes = {});

}  // namespace kext::gang
