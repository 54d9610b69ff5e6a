#include "algorithms/preemption/select_victims.h"

#include <algorithm>

namespace kext::preemption {

int64_t pod_start_time(const PodMeta& pod, int64_t now_unix_seconds) {
  return pod.start_time.value_or(now_unix_seconds);
}

bool more_important_pod(const PodMeta& a, const PodMeta& b, int64_t now_unix_seconds) {
  const int32_t pa = a.effective_priority();
  const int32_t pb = b.effective_priority();
  if (pa != pb) return pa > pb;
  return pod_start_time(a, now_unix_seconds) < pod_start_time(b, now_unix_seconds);
}

namespace {

// Go uses the unstable sort.Slice; a stable sort keeps full ties (same priority and start) in the
// node's pod order, so our results are at least reproducible.
void sort_by_importance(std::vector<std::shared_ptr<const PodInfo>>& pods, int64_t now) {
  std::stable_sort(pods.begin(), pods.end(),
                   [now](const auto& x, const auto& y) { return more_important_pod(*x->pod, *y->pod, now); });
}

}  // namespace

DryRunRules::DryRunRules(Semantics s, KubeVersion v)
    : semantics(s), resort_mixed_victims(since::victims_resorted_by_priority(v)) {}

std::optional<NodeVictims> select_victims_on_node(const PodContext& preemptor, const NodeInfo& node,
                                                  std::span<const PodDisruptionBudget> pdbs,
                                                  const Engine& engine, int64_t now_unix_seconds,
                                                  const DryRunRules& rules) {
  const Semantics semantics = rules.semantics;
  const int32_t preemptor_priority = preemptor.pod.effective_priority();
  NodeInfo dry = node;  // shares the immutable pods; only the list and the aggregates are copied
  // The filters' PreFilter states, this node's own copy: removing a victim can lift an anti-affinity or
  // a skew violation (default_preemption.go SelectVictimsOnNode: removePod/addPod run
  // RunPreFilterExtensionRemovePod/AddPod on a clone of the cycle state).
  PodContext state = preemptor.with_cloned_states();
  // Pods nominated to the node that the caller holds on it (pending, so not bound here: extender-sim's
  // addNominatedPods) count in the states too, as RunFilterPluginsWithNominatedPods adds them there.
  for (const auto& p : node.pods)
    if (p->pod->node_name.empty()) state.add_pod(*p, dry);
  auto remove = [&](const std::shared_ptr<const PodInfo>& p) {
    dry.remove_pod(p->pod->uid);
    state.remove_pod(*p, dry);
  };
  auto add = [&](const std::shared_ptr<const PodInfo>& p) {
    dry.add_pod(p);
    state.add_pod(*p, dry);
  };

  std::vector<std::shared_ptr<const PodInfo>> potential;
  for (const auto& p : node.pods) {
    // Equal priority is never preempted.
    if (p->pod->effective_priority() < preemptor_priority) potential.push_back(p);
  }
  if (potential.empty() && semantics == Semantics::kCurrent) return std::nullopt;
  for (const auto& p : potential) remove(p);

  // Affinity to a victim is deliberately not considered: if the pod only fits thanks to a
  // lower-priority pod, Kubernetes does not preempt for it either.
  if (!engine.fits(state, dry)) return std::nullopt;

  sort_by_importance(potential, now_unix_seconds);
  PdbSplit split = split_by_pdb_violation(potential, pdbs, semantics);

  NodeVictims out;
  // Reprieve the PDB-violating pods first: keeping them costs no more than keeping any other pod but
  // spares a budget.
  auto reprieve = [&](const std::shared_ptr<const PodInfo>& p) -> bool {
    add(p);
    if (engine.fits(state, dry)) return true;
    remove(p);
    out.victims.push_back(p);
    return false;
  };
  for (const auto& p : split.violating) {
    if (!reprieve(p)) ++out.num_pdb_violations;
  }
  for (const auto& p : split.non_violating) reprieve(p);

  if (semantics == Semantics::kCurrent) {
    if (out.victims.empty()) return std::nullopt;  // DryRunPreemption: "expected at least one victim"
    // PR #128307: re-sort only when both input groups were non-empty (otherwise the reprieve order
    // already is the importance order).
    if (rules.resort_mixed_victims && !split.violating.empty() && !split.non_violating.empty())
      sort_by_importance(out.victims, now_unix_seconds);
  }
  return out;
}

}  // namespace kext::preemption
