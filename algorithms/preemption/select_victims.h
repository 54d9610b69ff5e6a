#pragma once
// SelectVictimsOnNode: the per-node dry run of preemption (default_preemption.go: SelectVictimsOnNode;
// v1.16: generic_scheduler.go selectVictimsOnNode).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/kube_version.h"
#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "algorithms/preemption/pdb.h"

namespace kext::preemption {

// GetPodStartTime with Go's time.Now() replaced by one `now` per request, so that pods without a start
// time all look equally young (youngest of all) and the order is reproducible.
int64_t pod_start_time(const PodMeta& pod, int64_t now_unix_seconds);

// MoreImportantPod: higher priority first; on equal priority the earlier start wins (the older pod is
// kept, the newer one evicted first).
bool more_important_pod(const PodMeta& a, const PodMeta& b, int64_t now_unix_seconds);

// What the dry run does differently by release, decided once per preemption call.
struct DryRunRules {
  Semantics semantics = Semantics::kCurrent;
  // kCurrent: the victims are re-sorted by importance when PDB-violating and other ones mix
  // (since::victims_resorted_by_priority); before, they stay in reprieve order, violating first.
  bool resort_mixed_victims = true;

  DryRunRules(Semantics s, KubeVersion v);
  // The newest release's rules for `s`.
  DryRunRules(Semantics s = Semantics::kCurrent)  // NOLINT(google-explicit-constructor): reads as a Semantics
      : DryRunRules(s, KubeVersion::newest()) {}
};

struct NodeVictims {
  // Most important first, unless the rules leave them in reprieve order (evicted violating pods, then
  // the rest), which is what pickOneNodeForPreemption then reads as "Pods[0]".
  std::vector<std::shared_ptr<const PodInfo>> victims;
  int64_t num_pdb_violations = 0;  // PDB-violating pods actually evicted
};

// nullopt when the node cannot be a candidate: the preemptor does not fit even with every
// lower-priority pod removed, or (kCurrent only) there are no lower-priority pods or none needs to go.
// With kV1_16 a node where the preemptor fits without evictions is returned with no victims, as
// v1.16's selectVictimsOnNode did. The node is not modified: the dry run works on a copy. The extender
// does not see the scheduler's nomination queue; a caller that does (extender-sim) adds the pods
// nominated to the node to its NodeInfo, pending (no nodeName), and they count in the filters' states.
std::optional<NodeVictims> select_victims_on_node(const PodContext& preemptor, const NodeInfo& node,
                                                  std::span<const PodDisruptionBudget> pdbs,
                                                  const Engine& engine, int64_t now_unix_seconds,
                                                  const DryRunRules& rules);

}  // namespace kext::preemption
