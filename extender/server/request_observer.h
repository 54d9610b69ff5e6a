#pragma once
// Watches every HTTP exchange of one server: counts the requests in flight (for the drain on
// SIGTERM), feeds Metrics, records Decisions and writes the -v 1 log line.
#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>

#include "extender/http/router.h"
#include "extender/observe/decision_log.h"
#include "extender/observe/metrics.h"
#include "extender/observe/verb_trace.h"
#include "extender/verbs/verbs.h"

namespace kext::kube {
class LeaderElector;
}  // namespace kext::kube

namespace kext {

// Owned by whoever owns the Server; each may be null (not collected).
struct ServerObservers {
  Metrics* metrics = nullptr;
  DecisionLog* decisions = nullptr;
  const kube::LeaderElector* elector = nullptr;  // --leader-elect: GET /debug/leader
};

class RequestObserver final : public ExchangeObserver {
 public:
  RequestObserver(std::string path_prefix, ServerObservers observers, int verbosity);

  // Observes every exchange `router` serves.
  void attach(Router& router) { router.set_observer(this); }

  // Requests between their routing and their reply written.
  size_t in_flight() const { return in_flight_.load(std::memory_order_acquire); }

  bool want_decision() const { return observers_.decisions != nullptr; }
  // From a verb's handler: its phases into Metrics, its Decision into the log, its pod and node count
  // into the exchange for the access log.
  void on_verb(Exchange& x, Route route, VerbTrace& trace, const Reply& reply);

  Route route_of(std::string_view path) const;
  const ServerObservers& observers() const { return observers_; }

  void on_start(Exchange& x) override;
  void on_end(const Exchange& x) override;

 private:
  std::string prefix_;
  ServerObservers observers_;
  int verbosity_;
  std::atomic<size_t> in_flight_{0};
};

}  // namespace kext
