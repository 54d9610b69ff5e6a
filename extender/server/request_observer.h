#pragma once
// Watches every HTTP exchange of one server: counts the requests in flight (for the drain on
// SIGTERM), feeds Metrics, records Decisions and writes the -v 1 log line.
#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>

#include "extender/observe/decision_log.h"
#include "extender/observe/metrics.h"
#include "extender/observe/verb_trace.h"
#include "extender/verbs/verbs.h"

namespace kext {

class Router;

// Owned by whoever owns the Server; each may be null (not collected).
struct ServerObservers {
  Metrics* metrics = nullptr;
  DecisionLog* decisions = nullptr;
};

class RequestObserver {
 public:
  RequestObserver(std::string path_prefix, ServerObservers observers, int verbosity);

  // Installs cpp-httplib's pre-routing handler and logger (which runs after the reply is written), and
  // the same two for the routes the router serves directly.
  void attach(Router& http);

  // Requests between their headers arriving and their reply written.
  size_t in_flight() const { return in_flight_.load(std::memory_order_acquire); }

  bool want_decision() const { return observers_.decisions != nullptr; }
  // From a verb handler, on the worker thread serving that request.
  void on_verb(Route route, VerbTrace& trace, const Reply& reply);

  Route route_of(std::string_view path) const;
  const ServerObservers& observers() const { return observers_; }

 private:
  void on_start(std::string_view path);
  void on_end(std::string_view path, int status, size_t request_bytes);

  std::string prefix_;
  ServerObservers observers_;
  int verbosity_;
  std::atomic<size_t> in_flight_{0};
};

}  // namespace kext
