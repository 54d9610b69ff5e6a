#pragma once
// PodDisruptionBudget matching and filterPodsWithPDBViolation
// (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go; v1.16: generic_scheduler.go).
#include <memory>
#include <span>
#include <vector>

#include "algorithms/model.h"
#include "algorithms/semantics.h"

namespace kext::preemption {

// Which Kubernetes preemption behaviour to reproduce (the profile's one Semantics value):
//   kCurrent: v1.19 and later (default_preemption.go) — budgets consumed pod by pod, DisruptedPods
//             skipped, victims re-sorted at the end from 1.29 (select_victims.h DryRunRules).
//   kV1_16:   v1.16 (generic_scheduler.go) — a pod violates when a matching PDB has
//             disruptionsAllowed <= 0, no budget accounting, victims left in reprieve order.
using Semantics = kext::Semantics;

// The scheduler's reading: same namespace, the pod has at least one label, and the selector is
// neither nil nor empty (both match nothing there, unlike the eviction API) and matches the labels.
bool pdb_matches(const PodDisruptionBudget& pdb, const PodMeta& pod);

struct PdbSplit {
  std::vector<std::shared_ptr<const PodInfo>> violating;
  std::vector<std::shared_ptr<const PodInfo>> non_violating;
};

// Splits pods (already sorted most important first) into those whose eviction would violate a PDB
// and the rest. Stable: each group keeps the input order. With kCurrent the budget is shared across
// the list, so the most important matching pods use it up and the less important become violating.
PdbSplit split_by_pdb_violation(std::span<const std::shared_ptr<const PodInfo>> sorted_pods,
                                std::span<const PodDisruptionBudget> pdbs, Semantics semantics);

}  // namespace kext::preemption
