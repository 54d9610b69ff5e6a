#include "algorithms/preemption/pdb.h"

#include <algorithm>
#include <cstdint>

#include "algorithms/label_selector.h"

namespace kext::preemption {

bool pdb_matches(const PodDisruptionBudget& pdb, const PodMeta& pod) {
  if (pod.labels.empty()) return false;
  if (pdb.namespace_ != pod.namespace_) return false;
  if (!pdb.selector) return false;                             // nil -> labels.Nothing()
  if (label_selector_is_empty(*pdb.selector)) return false;    // {} -> Everything(), skipped by Empty()
  return label_selector_matches(*pdb.selector, pod.labels);
}

PdbSplit split_by_pdb_violation(std::span<const std::shared_ptr<const PodInfo>> sorted_pods,
                                std::span<const PodDisruptionBudget> pdbs, Semantics semantics) {
  PdbSplit out;
  // int64 so a long list of matching pods can drive the local budget far below zero without overflow.
  std::vector<int64_t> allowed(pdbs.size());
  for (size_t i = 0; i < pdbs.size(); ++i) allowed[i] = pdbs[i].disruptions_allowed;
  // PDBs that can match at all (selector neither nil, empty nor invalid), decided once rather than
  // once per pod: PDB matching dominates the dry run's cost (bench/preemption_bench.cc).
  std::vector<size_t> usable;
  for (size_t i = 0; i < pdbs.size(); ++i) {
    const auto& sel = pdbs[i].selector;
    if (sel && !label_selector_is_empty(*sel) && label_selector_valid(*sel)) usable.push_back(i);
  }

  for (const auto& info : sorted_pods) {
    const PodMeta& pod = *info->pod;
    if (pod.labels.empty()) {
      out.non_violating.push_back(info);
      continue;
    }
    bool violating = false;
    for (size_t i : usable) {
      const PodDisruptionBudget& pdb = pdbs[i];
      if (pdb.namespace_ != pod.namespace_ || !label_selector_matches(*pdb.selector, pod.labels)) continue;
      if (semantics == Semantics::kV1_16) {
        if (pdb.disruptions_allowed <= 0) {
          violating = true;
          break;
        }
        continue;
      }
      // A pod the disruption controller already counts as disrupted does not consume budget again.
      const auto& disrupted = pdb.disrupted_pods;
      if (std::find(disrupted.begin(), disrupted.end(), pod.name) != disrupted.end()) continue;
      // No break: every matching PDB is charged, so one pod can exhaust several budgets.
      if (--allowed[i] < 0) violating = true;
    }
    (violating ? out.violating : out.non_violating).push_back(info);
  }
  return out;
}

}  // namespace kext::preemption
