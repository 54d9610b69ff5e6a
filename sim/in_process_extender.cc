#include "sim/in_process_extender.h"

#include <utility>

namespace kext::simtool {

// Both verbs build the pod's context as the verbs do (extender/verbs/preamble.cc cluster_for): the
// whole cluster only for an engine whose plugins read it, else the request's nodes are the cluster.

std::vector<FilterStatus> InProcessExtender::filter(const sim::SimCluster& cluster, const Pod& pod,
                                                    std::span<const NodeInfo* const> nodes) {
  const ClusterView view = cluster.view();
  const PodContext ctx(pod, engine_->reads_cluster() ? &view : nullptr);
  return engine_->filter(ctx, nodes);
}

std::vector<int64_t> InProcessExtender::score(const sim::SimCluster& cluster, const Pod& pod,
                                              std::span<const NodeInfo* const> nodes) {
  const ClusterView view = cluster.view();
  const PodContext ctx(pod, engine_->reads_cluster() ? &view : nullptr);
  // Verbs::prioritize_traced's reply: Engine::score on the extender reply's scale.
  return engine_->score(ctx, nodes, ScoreScale::kExtenderReply).combined;
}

std::vector<preemption::Candidate> InProcessExtender::preempt(const sim::SimCluster& /*cluster*/,
                                                              const Pod& /*pod*/,
                                                              std::vector<preemption::Candidate> candidates) {
  return candidates;
}

}  // namespace kext::simtool
