#include "sim/core/prioritize.h"

#include <utility>

namespace kext::sim {

std::vector<FilterStatus> filter_nodes(const CycleConfig& config, const PodContext& ctx,
                                       const SimCluster& cluster, const Pod& pod,
                                       std::span<const NodeInfo* const> nodes) {
  if (config.backend == nullptr) return config.engine->filter(ctx, nodes);
  if (!config.scoring.in_tree) return config.backend->filter(cluster, pod, nodes);
  // findNodesThatFitPod: the extenders see only the nodes the profile's filters passed.
  std::vector<FilterStatus> statuses = config.engine->filter(ctx, nodes);
  std::vector<const NodeInfo*> passed;
  std::vector<size_t> where;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!statuses[i].ok()) continue;
    passed.push_back(nodes[i]);
    where.push_back(i);
  }
  if (passed.empty()) return statuses;
  std::vector<FilterStatus> extender = config.backend->filter(cluster, pod, passed);
  for (size_t k = 0; k < where.size(); ++k) statuses[where[k]] = std::move(extender[k]);
  return statuses;
}

Priorities prioritize_nodes(const CycleConfig& config, const PodContext& ctx, const SimCluster& cluster,
                            const Pod& pod, std::span<const NodeInfo* const> candidates) {
  Priorities out;
  const bool scheduler_total = config.scoring.scale == ScoreScale::kSchedulerTotal;
  if (config.backend == nullptr || (scheduler_total && config.scoring.in_tree)) {
    out.in_tree = config.engine->score(ctx, candidates, config.scoring.scale);
    out.totals = out.in_tree.combined;
  }
  if (config.backend != nullptr) {
    out.reply = config.backend->score(cluster, pod, candidates);
    // prioritizeNodes: score x weight x (MaxNodeScore / MaxExtenderPriority).
    const int64_t factor = scheduler_total ? kWireDivisor * config.scoring.extender_weight : 1;
    out.totals.resize(out.reply.size(), 0);
    for (size_t k = 0; k < out.reply.size(); ++k) out.totals[k] += out.reply[k] * factor;
  }
  return out;
}

std::vector<ScoreTerm> score_terms(const CycleConfig& config, const Priorities& p, size_t k) {
  std::vector<ScoreTerm> out;
  const Engine& engine = *config.engine;
  for (size_t a = 0; a < p.in_tree.algorithms; ++a) {
    out.push_back(
        {std::string(engine.scores()[a].plugin->name()), engine.scores()[a].weight, p.in_tree.at(a, k)});
  }
  if (!p.reply.empty()) {
    const bool scheduler_total = config.scoring.scale == ScoreScale::kSchedulerTotal;
    out.push_back({std::string(kExtenderTerm), scheduler_total ? config.scoring.extender_weight : 1,
                   p.reply[k] * (scheduler_total ? kWireDivisor : 1)});
  }
  return out;
}

NodeEvaluation evaluate_every_node(const CycleConfig& config, const SimCluster& cluster, const Pod& pod,
                                   std::string_view explain) {
  NodeEvaluation out;
  const auto nodes = cluster.nodes();
  out.nodes.assign(nodes.begin(), nodes.end());
  const ClusterView view = cluster.view();
  PodContext ctx(pod, &view, config.preemption.version);
  config.engine->prepare(ctx, nodes);
  if (config.backend == nullptr) {
    out.codes = config.engine->filter_codes(ctx, nodes);
  } else {
    for (FilterStatus& st : filter_nodes(config, ctx, cluster, pod, nodes)) out.codes.push_back(st.code);
  }
  std::vector<const NodeInfo*> candidates;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (out.codes[i] != FilterCode::kSuccess) {
      if (!explain.empty() && nodes[i]->name() == explain) {
        const NodeInfo* one[] = {nodes[i]};
        out.explained = std::move(filter_nodes(config, ctx, cluster, pod, one)[0].reasons);
      }
      continue;
    }
    out.feasible.push_back(i);
    candidates.push_back(nodes[i]);
  }
  if (candidates.size() > 1) out.priorities = prioritize_nodes(config, ctx, cluster, pod, candidates);
  return out;
}

}  // namespace kext::sim
