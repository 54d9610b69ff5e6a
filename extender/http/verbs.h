#pragma once
// The extender verbs as pure functions of the request body: no sockets, so tests call them directly.
#include <string>
#include <string_view>

#include "algorithms/engine.h"
#include "extender/state/cluster_state.h"
#include "policy/policy.h"

namespace kext {

struct Reply {
  int status = 200;
  std::string body;
};

class Verbs {
 public:
  Verbs(const Engine& engine, const Policy& policy, const StateStore& state)
      : engine_(engine), policy_(policy), state_(state) {}

  Reply filter(std::string_view body) const;
  Reply prioritize(std::string_view body) const;
  // Implemented in preempt_verb.cc.
  Reply preempt(std::string_view body) const;

 private:
  const Engine& engine_;
  const Policy& policy_;
  const StateStore& state_;
};

// A 4xx reply with {"Error": message}.
Reply bad_request(std::string_view message, int status = 400);

}  // namespace kext
