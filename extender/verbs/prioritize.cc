// POST /prioritize: the policy's weighted score of every node of the request.
#include "extender/verbs/verbs.h"

namespace kext {

std::shared_ptr<const std::vector<AlgorithmInfo>> Verbs::algorithm_infos(const Engine& engine) {
  auto infos = std::make_shared<std::vector<AlgorithmInfo>>();
  for (const auto& s : engine.scores()) infos->push_back({std::string(s.plugin->name()), s.weight});
  return infos;
}

Reply Verbs::prioritize_traced(std::string_view body, VerbTrace* trace) const {
  auto decoded = decode_nodes_request("prioritize", body, trace, state_, &node_cache_, {&pod_cache_, true});
  if (Reply* refused = std::get_if<Reply>(&decoded)) return std::move(*refused);
  auto& [r, nodes] = std::get<NodesRequest>(decoded);

  const auto cluster = cluster_for(profile_.engine, r.state, r.usage);
  PodContext pod(*r.args.pod, cluster ? &cluster->view : nullptr, profile_.version);
  ScoreMatrix m = profile_.engine.score(pod, nodes.known);
  // Every node sent gets a score; one the extender cannot see scores 0.
  std::vector<int64_t> scores(r.args.node_names.size(), 0);
  for (size_t k = 0; k < nodes.known_index.size(); ++k) scores[nodes.known_index[k]] = m.combined[k];
  r.clock.end(Phase::kCompute);
  Reply out{200, encode_prioritize_reply(r.args.node_names, scores)};
  r.clock.end(Phase::kEncode);
  if (r.decision) {
    r.decision->nodes = std::move(r.args.node_names);
    r.decision->algorithms = algorithms_;
    r.decision->scores = std::move(m);
    r.decision->scored_index = std::move(nodes.known_index);
    r.decision->final_scores = std::move(scores);
  }
  return out;
}

}  // namespace kext
