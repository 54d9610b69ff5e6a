#pragma once
// What every verb shares: its Reply, and the preamble it runs before computing. A verb is
// decode -> compute -> encode; the preamble is the decode step and everything around it (the phase
// clock, the Decision, the pod and node count in the trace, the cluster state snapshot).
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "extender/observe/verb_trace.h"
#include "json/json.h"
#include "kube/codec/binding_args.h"
#include "kube/codec/decode_cache.h"
#include "kube/codec/extender_args.h"
#include "kube/codec/preemption_args.h"
#include "kube/state/cluster_state.h"
#include "kube/state/cluster_view.h"

namespace kext {

struct Reply {
  int status = 200;
  std::string body;
};

// A 4xx reply with {"Error": message}.
Reply bad_request(std::string_view message, int status = 400);

// The Decision a verb fills when its trace asks for one (nullptr otherwise).
Decision* start_decision(VerbTrace* trace, std::string_view verb);
// Fills the trace's pod fields from the decoded pod.
void trace_pod(VerbTrace* trace, const Pod& pod);

// What the trace shows of a decoded request: its pod and how many nodes it names.
void trace_request(VerbTrace* trace, const ExtenderArgs& args);
void trace_request(VerbTrace* trace, const PreemptionArgs& args);
void trace_request(VerbTrace* trace, const BindingArgs& args);

// Whether the verb taking these arguments records a Decision. Bind does not: the scheduler chose the
// node, the extender only carries the Binding to the API.
template <class Args>
inline constexpr bool kRecordsDecision = true;
template <>
inline constexpr bool kRecordsDecision<BindingArgs> = false;

// A request past the preamble: what the verb's compute step reads.
template <class Args>
struct Request {
  PhaseClock clock;  // the decode phase has ended
  Args args;
  Decision* decision = nullptr;               // non-null when the trace asks for one
  std::shared_ptr<const ClusterState> state;  // the snapshot the verb answers from; null without a store
  std::shared_ptr<const UsageView> usage{};   // the nodes' usage when it was taken; null without a source
};

// The preamble: the phase clock started, the Decision started, the body decoded by
// decode(body, args) (a DecodeError ends the verb with a 400), the trace filled, the decode phase
// ended, the current cluster state taken from `store` (may be null: the verb reads none). Returns the
// request, or the Reply that ends the verb.
template <class Args, class Decode>
std::variant<Request<Args>, Reply> decode_request(std::string_view verb, std::string_view body,
                                                  VerbTrace* trace, const StateStore* store,
                                                  Decode&& decode) {
  Request<Args> r{PhaseClock(trace), {}, nullptr, nullptr};
  if constexpr (kRecordsDecision<Args>) r.decision = start_decision(trace, verb);
  try {
    std::forward<Decode>(decode)(body, r.args);
  } catch (const DecodeError& e) {
    return bad_request(e.what());
  }
  trace_request(trace, r.args);
  r.clock.end(Phase::kDecode);
  if (store) {
    r.state = store->current();
    r.usage = store->usage();
  }
  return r;
}

// The nodes of a filter or prioritize request resolved against the cluster state. `infos[i]` is null
// when node i cannot be evaluated (names mode, node unknown to the cluster state).
struct ResolvedNodes {
  std::vector<NodeInfo> owned;  // full mode: request objects + the pods the state has on them
  std::vector<const NodeInfo*> infos;
  // The evaluable nodes (non-null infos) in request order, and their indices in the request.
  std::vector<const NodeInfo*> known;
  std::vector<size_t> known_index;
};

// The whole cluster for an engine whose plugins read it (Engine::reads_cluster), else nullptr; `usage`
// (may be null) is its ClusterView::usage.
std::unique_ptr<const StateClusterView> cluster_for(const Engine& engine,
                                                    const std::shared_ptr<const ClusterState>& state,
                                                    std::shared_ptr<const UsageView> usage = nullptr);

struct NodesRequest {
  Request<ExtenderArgs> request;
  ResolvedNodes nodes;
};

// The preamble of filter and prioritize: decode_request on ExtenderArgs (node objects decoded before
// are reused from `cache`, which may be null, and pods as `pods` says), then the request's nodes
// resolved.
std::variant<NodesRequest, Reply> decode_nodes_request(std::string_view verb, std::string_view body,
                                                       VerbTrace* trace, const StateStore& store,
                                                       NodeDecodeCache* cache, PodReuse pods = {});

}  // namespace kext
