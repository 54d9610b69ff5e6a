#include "extender/server/request_observer.h"

#include <chrono>

#include "common/rfc3339.h"
#include "extender/observe/access_log.h"
#include "extender/verbs/bind_forward.h"

namespace kext {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RequestObserver::RequestObserver(std::string path_prefix, ServerObservers observers, int verbosity)
    : prefix_(std::move(path_prefix)), observers_(observers), verbosity_(verbosity) {}

Route RequestObserver::route_of(std::string_view path) const {
  if (path.starts_with(prefix_) && path.size() > prefix_.size() && path[prefix_.size()] == '/') {
    const std::string_view verb = path.substr(prefix_.size() + 1);
    if (verb == "filter" || verb == kHolderFilterRoute) return Route::kFilter;
    if (verb == "prioritize") return Route::kPrioritize;
    if (verb == "preempt" || verb == kHolderPreemptRoute) return Route::kPreempt;
    if (verb == "bind" || verb == kHolderBindRoute) return Route::kBind;
  }
  if (path == "/healthz") return Route::kHealthz;
  if (path == "/readyz") return Route::kReadyz;
  if (path == "/metrics") return Route::kMetrics;
  if (path.starts_with("/debug/")) return Route::kDebug;
  if (path == "/capacity") return Route::kCapacity;
  return Route::kOther;
}

void RequestObserver::on_start(Exchange&) { in_flight_.fetch_add(1, std::memory_order_acq_rel); }

void RequestObserver::on_verb(Exchange& x, Route route, VerbTrace& trace, const Reply& reply) {
  // Phase and node histograms describe work done; a refused body did none worth timing.
  if (observers_.metrics && reply.status == 200) observers_.metrics->observe_verb(route, trace);
  if (verbosity_ >= 1) {  // only the access log reads them
    x.pod = trace.pod;
    x.nodes = trace.nodes;
  }
  if (observers_.decisions && trace.decision) {
    Decision& d = *trace.decision;
    d.unix_micros = unix_micros_now();
    d.status = reply.status;
    d.seconds = seconds_since(x.start);
    if (reply.status != 200) d.error_body = reply.body;
    observers_.decisions->record(std::move(trace.decision));
  }
}

void RequestObserver::on_end(const Exchange& x) {
  const double seconds = seconds_since(x.start);
  const Route route = route_of(x.request.path);
  const int status = x.response.status;
  if (observers_.metrics) observers_.metrics->observe_request(route, status, seconds, x.request.body.size());
  if (verbosity_ >= 1) {
    write_access_log(AccessEntry{route_name(route), x.request.path, x.pod, x.nodes, status, seconds});
  }
  in_flight_.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace kext
