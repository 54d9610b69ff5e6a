#include "extender/verbs/preamble.h"

#include "algorithms/namespaced_key.h"

namespace kext {

namespace {

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
    const std::vector<std::string_view> names = args.node_names.names();
    state.find_nodes(names, r.infos);
    for (const NodeInfo*& info : r.infos) {
      if (info && !info->node) info = nullptr;  // only pods name it: nothing to evaluate
    }
  }
  // Sized once: almost every node of a request is known, and growing two vectors of 230 one push at a
  // time reallocated each eight times per request.
  r.known.reserve(r.infos.size());
  r.known_index.reserve(r.infos.size());
  for (size_t i = 0; i < r.infos.size(); ++i) {
    if (!r.infos[i]) continue;
    r.known.push_back(r.infos[i]);
    r.known_index.push_back(i);
  }
  return r;
}

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
  trace->pod = namespaced_key(pod.namespace_, pod.name);
  if (trace->decision) {
    trace->decision->pod = trace->pod;
    trace->decision->pod_uid = pod.uid;
  }
}

void trace_request(VerbTrace* trace, const ExtenderArgs& args) {
  trace_pod(trace, *args.pod);
  if (trace) trace->nodes = args.node_names.size();
}

void trace_request(VerbTrace* trace, const PreemptionArgs& args) {
  trace_pod(trace, args.pod);
  if (trace) trace->nodes = args.nodes.size();
}

void trace_request(VerbTrace* trace, const BindingArgs& args) {
  if (trace) trace->pod = namespaced_key(args.pod_namespace, args.pod_name);
}

std::unique_ptr<const StateClusterView> cluster_for(const Engine& engine,
                                                    const std::shared_ptr<const ClusterState>& state,
                                                    std::shared_ptr<const UsageView> usage) {
  return engine.reads_cluster() ? cluster_view_of(state, std::move(usage)) : nullptr;
}

std::variant<NodesRequest, Reply> decode_nodes_request(std::string_view verb, std::string_view body,
                                                       VerbTrace* trace, const StateStore& store,
                                                       NodeDecodeCache* cache, PodReuse pods) {
  auto decoded = decode_request<ExtenderArgs>(
      verb, body, trace, &store,
      [cache, pods](std::string_view b, ExtenderArgs& args) { decode_extender_args(b, args, cache, pods); });
  if (Reply* refused = std::get_if<Reply>(&decoded)) return std::move(*refused);
  NodesRequest r{std::move(std::get<Request<ExtenderArgs>>(decoded)), {}};
  r.nodes = resolve_nodes(r.request.args, *r.request.state);
  return r;
}

}  // namespace kext
