#pragma once
// Admission of a gang: whether the whole group can be placed now, and where. Coscheduling
// (scheduler-plugins pkg/coscheduling/core/core.go PreFilter) checks only that the group has
// minMember pods and that the cluster's free resources cover minResources, then lets members
// reserve one at a time, so two gangs can each hold part of the cluster and deadlock it. Here the
// first member's filter places every member the group needs, each through the profile's own filters
// on the nodes as the members before it left them, before anything is held: a group is admitted
// whole or not at all.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/gang/pod_group.h"
#include "algorithms/kube_version.h"
#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "algorithms/preemption/preemption.h"

namespace kext::gang {

struct MemberPlacement {
  std::string uid;
  std::string node;
  // The pods evicted from `node` to make room for this member (admission with Evictions only).
  std::vector<std::shared_ptr<const PodInfo>> victims;
  int64_t pdb_violations = 0;  // of those victims' evictions
  // The member as the filters reserved it on `node` (Engine::reserve: the GPU cards it would get), null
  // when they reserved nothing beyond its requests. Its held room counts this.
  std::shared_ptr<const Pod> reserved;
  bool operator==(const MemberPlacement&) const = default;
};

// Whole-group preemption: what admission may evict where a member fits no node's free room. A member
// preempts as DefaultPreemption's dry run does for one pod (preemption::select_candidates: pods of
// lower priority, PodDisruptionBudgets, the best node by pickOneNodeForPreemption's order), on the
// nodes as the members placed before it left them, and never evicts a gang member, so that a group
// is admitted only when the evictions of all its members together make room for the whole of it.
struct Evictions {
  std::span<const PodDisruptionBudget> pdbs;
  int64_t now_unix_seconds = 0;
  preemption::Semantics semantics = preemption::Semantics::kCurrent;
  KubeVersion version;  // the preemption rules' minor (preemption::Options::version)

  // A constructor rather than an aggregate, so that callers that name no version (the newest's rules)
  // still brace-initialise the first three members without a missing-initialiser warning.
  Evictions(std::span<const PodDisruptionBudget> pdbs_ = {}, int64_t now = 0,
            preemption::Semantics semantics_ = preemption::Semantics::kCurrent,
            KubeVersion version_ = KubeVersion::newest())
      : pdbs(pdbs_), now_unix_seconds(now), semantics(semantics_), version(version_) {}
};

struct Admission {
  bool admitted = false;
  // Admitted: one node per member placed (min_member of them, in the members' order).
  std::vector<MemberPlacement> placements;
  // Not admitted: why, naming the group ("pod group ns/name: ..."), for every node's filter reason.
  std::string reason;
  // With a topology constraint: the domain the members were placed in ("rack r3"; "racks r1, r2" when
  // a preferred constraint spreads), or the one that came closest when not admitted.
  std::string domain;
};

// Places min_member of `members` (the group's pending pods, in the order they should be placed:
// the caller's stable order) on `nodes`, the nodes as the reservations already held leave them. Each
// member goes through the engine's filters (prepared against `cluster`, or `nodes` when null, with the
// members placed before it added to the PreFilter states) onto its best-scored feasible node, the
// first such node on ties. Not admitted when the group has fewer than min_member pending members,
// when the nodes' free resources do not cover min_resources, or when a member fits no node. With
// `evictions`, a member that fits no node's free room takes the room its preemption would make (the
// placement's victims); minResources is then not checked against free resources. With `only`, members
// go on those nodes (indices into `nodes`) alone; the PreFilters still see every node.
Admission admit(const Engine& engine, const PodGroupSpec& group,
                std::span<const std::shared_ptr<const Pod>> members, std::span<const NodeInfo* const> nodes,
                const ClusterView* cluster = nullptr, const Evictions* evictions = nullptr,
                const std::vector<size_t>* only = nullptr);

// The nodes' free resources (allocatable less requested, none below zero) against `wanted`: the first
// resource short, as "cpu: wants 16, 12 free", or "" when `wanted` is covered. Quantities are printed
// in their API units (cores for cpu, bytes for memory).
std::string resource_gap(const Resources& wanted, std::span<const NodeInfo* const> nodes);

}  // namespace kext::gang
