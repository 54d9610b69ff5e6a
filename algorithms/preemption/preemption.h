#pragma once
// Preemption for the extender's preempt verb: over the nodes the scheduler passes in, choose the
// node(s) and victims as kube-scheduler does (pkg/scheduler/framework/preemption/preemption.go:
// Evaluator.Preempt -> findCandidates -> SelectCandidate; v1.16: pkg/scheduler/core/generic_scheduler.go
// Preempt).
//
// Out of scope: nominated pods (the extender does not see the scheduler's nomination queue, so
// podPassesFiltersOnNode's "with and without nominated pods" double check is not done and lower-priority
// nominations are not cleared), candidate sampling (every node passed in is evaluated, as before
// ≈v1.20 and as in modern code with ≤ 100 potential nodes), and extenders of extenders.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/kube_version.h"
#include "algorithms/model.h"
#include "algorithms/parallel.h"
#include "algorithms/plugin.h"
#include "algorithms/preemption/pdb.h"
#include "algorithms/preemption/pick_node.h"
#include "algorithms/preemption/select_victims.h"

namespace kext::preemption {

// The policy's preemption.maxCandidates when it sets none.
inline constexpr size_t kDefaultMaxCandidates = 1;

struct Options {
  Semantics semantics = Semantics::kCurrent;
  // The kube-scheduler minor whose preemption rules run (kube_version.h since::).
  KubeVersion version;
  size_t max_candidates = kDefaultMaxCandidates;  // how many of the best nodes to return, best first
  // The dry runs go parallel from 16 nodes and kDefaultParallelMinWorkNs of estimated work up
  // (dry_run_cost_ns): below, TBB's hand-off and its workers' spinning after it cost more
  // (bench/preemption_bench.cc, parallel.h).
  ParallelLimits parallel{16, kDefaultParallelMinWorkNs};
};

// PodEligibleToPreemptOthers (default_preemption.go): not eligible with preemptionPolicy Never, nor when
// the nominated node (nullptr = none / unknown) holds a terminating pod of lower priority, which is most
// likely a victim of an earlier round still shutting down. From 1.27 (podTerminatingByPreemption) only a
// terminating pod that the scheduler preempted (PodMeta::preemption_victim) holds the retry back.
bool eligible_to_preempt(const Pod& preemptor, const NodeInfo* nominated,
                         KubeVersion version = KubeVersion::newest());

// What the dry runs on these nodes cost serially, estimated: each of a node's pods is removed, the
// filters run, and victims are reprieved one by one, so the work grows with the pods on the node.
uint64_t dry_run_cost_ns(std::span<const NodeInfo* const> nodes, const Engine& engine);

// Runs the dry run on every node (in parallel when options.parallel allows it), then orders the
// surviving nodes by pickOneNodeForPreemption's criteria and returns at most max_candidates of them.
// Returns nothing when the preemptor is not eligible; its nominated node is looked up among `nodes`
// (callers holding a wider snapshot should call eligible_to_preempt themselves first).
// now_unix_seconds stands in for the start time of pods that have none.
std::vector<Candidate> select_candidates(const PodContext& preemptor, std::span<const NodeInfo* const> nodes,
                                         std::span<const PodDisruptionBudget> pdbs, const Engine& engine,
                                         int64_t now_unix_seconds, const Options& options = {});

}  // namespace kext::preemption
