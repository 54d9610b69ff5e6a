#pragma once
// The extender verbs as pure functions of the request body: no sockets, so tests call them directly.
#include <string>
#include <string_view>

#include "algorithms/engine.h"
#include "extender/codec/node_decode_cache.h"
#include "extender/observe/verb_trace.h"
#include "extender/state/cluster_state.h"
#include "policy/policy.h"

namespace kext {

struct Reply {
  int status = 200;
  std::string body;
};

class Verbs {
 public:
  // node_cache_entries: decoded full-mode node objects kept between requests (0 = none).
  Verbs(const Engine& engine, const Policy& policy, const StateStore& state,
        size_t node_cache_entries = 20000)
      : engine_(engine),
        policy_(policy),
        state_(state),
        node_cache_(node_cache_entries),
        algorithms_(algorithm_infos(engine)) {}

  Reply filter(std::string_view body) const { return filter_traced(body, nullptr); }
  Reply prioritize(std::string_view body) const { return prioritize_traced(body, nullptr); }
  Reply preempt(std::string_view body) const { return preempt_traced(body, nullptr); }

  // The same, reporting into trace (may be null): phase times, node count and, if it asks, the Decision.
  Reply filter_traced(std::string_view body, VerbTrace* trace) const;
  Reply prioritize_traced(std::string_view body, VerbTrace* trace) const;
  // Implemented in preempt_verb.cc.
  Reply preempt_traced(std::string_view body, VerbTrace* trace) const;

 private:
  const Engine& engine_;
  const Policy& policy_;
  const StateStore& state_;
  // The server's cache of decoded node objects (thread-safe): the one mutable member.
  mutable NodeDecodeCache node_cache_;
  // Shared by every prioritize Decision instead of copying the names per request.
  std::shared_ptr<const std::vector<AlgorithmInfo>> algorithms_;

  static std::shared_ptr<const std::vector<AlgorithmInfo>> algorithm_infos(const Engine& engine);
};

// The Decision a verb fills when its trace asks for one (nullptr otherwise).
Decision* start_decision(VerbTrace* trace, std::string_view verb);
// Fills the trace's pod fields from the decoded pod.
void trace_pod(VerbTrace* trace, const Pod& pod);

// A 4xx reply with {"Error": message}.
Reply bad_request(std::string_view message, int status = 400);

}  // namespace kext
