#pragma once
// The extender verbs as pure functions of the request body: no sockets, so tests call them directly.
#include <string>
#include <string_view>

#include "algorithms/engine.h"
#include "extender/codec/node_decode_cache.h"
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
  Verbs(const Engine& engine, const Policy& policy, const StateStore& state, size_t node_cache_entries = 20000)
      : engine_(engine), policy_(policy), state_(state), node_cache_(node_cache_entries) {}

  Reply filter(std::string_view body) const;
  Reply prioritize(std::string_view body) const;
  // Implemented in preempt_verb.cc.
  Reply preempt(std::string_view body) const;

 private:
  const Engine& engine_;
  const Policy& policy_;
  const StateStore& state_;
  // The server's cache of decoded node objects (thread-safe): the one mutable member.
  mutable NodeDecodeCache node_cache_;
};

// A 4xx reply with {"Error": message}.
Reply bad_request(std::string_view message, int status = 400);

}  // namespace kext
