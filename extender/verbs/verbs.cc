#include "extender/verbs/verbs.h"

#include "extender/codec/extender_args.h"

namespace kext {

namespace {

// The nodes of a request resolved against the cluster state. `infos[i]` is null when node i cannot be
// evaluated (names mode, node unknown to the cluster state).
struct ResolvedNodes {
  std::vector<NodeInfo> owned;  // full mode: request objects + the pods the state has on them
  std::vector<const NodeInfo*> infos;
  // The evaluable nodes (non-null infos) in request order, and their indices in the request.
  std::vector<const NodeInfo*> known;
  std::vector<size_t> known_index;
};

ResolvedNodes resolve_nodes(const ExtenderArgs& args, const ClusterState& state) {
  ResolvedNodes r;
  r.infos.resize(args.node_names.size(), nullptr);
  if (args.full_nodes) {
    r.owned.resize(args.nodes.size());
    for (size_t i = 0; i < args.nodes.size(); ++i) {
      NodeInfo& info = r.owned[i];
      if (const NodeInfo* known = state.find_node(args.nodes[i]->name)) info = *known;
      // The request's object wins over the snapshot's: it is what the scheduler sees now.
      info.node = args.nodes[i];
      r.infos[i] = &info;
    }
  } else {
    for (size_t i = 0; i < args.node_names.size(); ++i) {
      const NodeInfo* known = state.find_node(args.node_names[i]);
      if (known && known->node) r.infos[i] = known;
    }
  }
  for (size_t i = 0; i < r.infos.size(); ++i) {
    if (!r.infos[i]) continue;
    r.known.push_back(r.infos[i]);
    r.known_index.push_back(i);
  }
  return r;
}

std::string join_reasons(std::vector<std::string>& reasons) {
  if (reasons.size() == 1) return std::move(reasons[0]);
  std::string out;
  for (const auto& r : reasons) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

constexpr std::string_view kUnknownNode = "node not found in the extender's cluster state";

}  // namespace

Reply bad_request(std::string_view message, int status) { return Reply{status, json::error_body(message)}; }

Decision* start_decision(VerbTrace* trace, std::string_view verb) {
  if (!trace || !trace->want_decision) return nullptr;
  trace->decision = std::make_unique<Decision>();
  trace->decision->verb = verb;
  return trace->decision.get();
}

void trace_pod(VerbTrace* trace, const Pod& pod) {
  if (!trace) return;
  trace->pod.reserve(pod.namespace_.size() + 1 + pod.name.size());
  trace->pod.assign(pod.namespace_).append("/").append(pod.name);
  if (trace->decision) {
    trace->decision->pod = trace->pod;
    trace->decision->pod_uid = pod.uid;
  }
}

std::shared_ptr<const std::vector<AlgorithmInfo>> Verbs::algorithm_infos(const Engine& engine) {
  auto infos = std::make_shared<std::vector<AlgorithmInfo>>();
  for (const auto& s : engine.scores()) infos->push_back({std::string(s.plugin->name()), s.weight});
  return infos;
}

Reply Verbs::filter_traced(std::string_view body, VerbTrace* trace) const {
  PhaseClock clock(trace);
  Decision* decision = start_decision(trace, "filter");
  ExtenderArgs args;
  try {
    decode_extender_args(body, args, &node_cache_);
  } catch (const DecodeError& e) {
    return bad_request(e.what());
  }
  trace_pod(trace, args.pod);
  clock.end(Phase::kDecode);
  auto state = state_.current();
  ResolvedNodes nodes = resolve_nodes(args, *state);

  FilterReply reply;
  for (size_t i = 0; i < nodes.infos.size(); ++i) {
    if (!nodes.infos[i]) reply.unresolvable.push_back({i, std::string(kUnknownNode)});
  }
  PodContext pod(args.pod);
  std::vector<FilterStatus> statuses = engine_.filter(pod, nodes.known);
  for (size_t k = 0; k < statuses.size(); ++k) {
    const size_t i = nodes.known_index[k];
    FilterStatus& s = statuses[k];
    switch (s.code) {
      case FilterCode::kSuccess:
        reply.passed.push_back(i);
        break;
      case FilterCode::kUnschedulable:
        reply.failed.push_back({i, join_reasons(s.reasons)});
        break;
      case FilterCode::kUnresolvable:
        reply.unresolvable.push_back({i, join_reasons(s.reasons)});
        break;
    }
  }
  clock.end(Phase::kCompute);
  Reply out{200, encode_filter_reply(args, reply)};
  clock.end(Phase::kEncode);
  if (trace) trace->nodes = args.node_names.size();
  if (decision) {
    // Moved, not copied: the reply no longer needs them.
    decision->nodes = std::move(args.node_names);
    decision->filter = std::move(reply);
  }
  return out;
}

Reply Verbs::prioritize_traced(std::string_view body, VerbTrace* trace) const {
  PhaseClock clock(trace);
  Decision* decision = start_decision(trace, "prioritize");
  ExtenderArgs args;
  try {
    decode_extender_args(body, args, &node_cache_);
  } catch (const DecodeError& e) {
    return bad_request(e.what());
  }
  trace_pod(trace, args.pod);
  clock.end(Phase::kDecode);
  auto state = state_.current();
  ResolvedNodes nodes = resolve_nodes(args, *state);

  PodContext pod(args.pod);
  ScoreMatrix m = engine_.score(pod, nodes.known);
  // Every node sent gets a score; one the extender cannot see scores 0.
  std::vector<int64_t> scores(args.node_names.size(), 0);
  for (size_t k = 0; k < nodes.known_index.size(); ++k) scores[nodes.known_index[k]] = m.combined[k];
  clock.end(Phase::kCompute);
  Reply out{200, encode_prioritize_reply(args.node_names, scores)};
  clock.end(Phase::kEncode);
  if (trace) trace->nodes = args.node_names.size();
  if (decision) {
    decision->nodes = std::move(args.node_names);
    decision->algorithms = algorithms_;
    decision->scores = std::move(m);
    decision->scored_index = std::move(nodes.known_index);
    decision->final_scores = std::move(scores);
  }
  return out;
}

}  // namespace kext
