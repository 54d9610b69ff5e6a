#include "extender/server/request_observer.h"

#include <httplib.h>

#include <chrono>

#include "common/rfc3339.h"
#include "extender/http/router.h"
#include "extender/observe/access_log.h"
#include "extender/verbs/bind_forward.h"

namespace kext {

namespace {

// cpp-httplib has no per-request user data, but it runs the pre-routing handler, the route handler
// and the logger of one request in sequence on the same worker thread, so a thread-local slot carries
// what the logger needs. `owner` keeps two servers in one process (tests) apart.
struct RequestContext {
  RequestObserver* owner = nullptr;
  std::chrono::steady_clock::time_point start;
  Route route = Route::kOther;
  std::string pod;
  size_t nodes = 0;
};
thread_local RequestContext t_request;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RequestObserver::RequestObserver(std::string path_prefix, ServerObservers observers, int verbosity)
    : prefix_(std::move(path_prefix)), observers_(observers), verbosity_(verbosity) {}

void RequestObserver::attach(Router& http) {
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
    on_start(req.path);
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    // Verb bodies are read in place by their handlers (received_body), not into req.body.
    const std::optional<std::string_view> in_place = received_body();
    on_end(req.path, res.status, in_place ? in_place->size() : req.body.size());
  });
  http.set_direct_observer([this](std::string_view path) { on_start(path); },
                           [this](std::string_view path, int status, size_t request_bytes) {
                             on_end(path, status, request_bytes);
                           });
}

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
  return Route::kOther;
}

void RequestObserver::on_start(std::string_view path) {
  RequestContext& ctx = t_request;
  // A previous request on this thread whose logger never ran (its reply failed to write): release it.
  if (ctx.owner) ctx.owner->in_flight_.fetch_sub(1, std::memory_order_acq_rel);
  in_flight_.fetch_add(1, std::memory_order_acq_rel);
  ctx.owner = this;
  ctx.start = std::chrono::steady_clock::now();
  ctx.route = route_of(path);
  ctx.pod.clear();
  ctx.nodes = 0;
}

void RequestObserver::on_verb(Route route, VerbTrace& trace, const Reply& reply) {
  RequestContext& ctx = t_request;
  const bool mine = ctx.owner == this;
  // Phase and node histograms describe work done; a refused body did none worth timing.
  if (observers_.metrics && reply.status == 200) observers_.metrics->observe_verb(route, trace);
  if (mine) {
    ctx.pod = trace.pod;
    ctx.nodes = trace.nodes;
  }
  if (observers_.decisions && trace.decision) {
    Decision& d = *trace.decision;
    d.unix_micros = unix_micros_now();
    d.status = reply.status;
    d.seconds = mine ? seconds_since(ctx.start) : 0;
    if (reply.status != 200) d.error_body = reply.body;
    observers_.decisions->record(std::move(trace.decision));
  }
}

void RequestObserver::on_end(std::string_view path, int status, size_t request_bytes) {
  RequestContext& ctx = t_request;
  if (ctx.owner != this) {
    // Refused before routing (oversized Content-Length, malformed request line): never counted in.
    if (observers_.metrics) observers_.metrics->observe_request(route_of(path), status, 0, request_bytes);
    return;
  }
  const double seconds = seconds_since(ctx.start);
  if (observers_.metrics) observers_.metrics->observe_request(ctx.route, status, seconds, request_bytes);
  if (verbosity_ >= 1) {
    write_access_log(AccessEntry{route_name(ctx.route), path, ctx.pod, ctx.nodes, status, seconds});
  }
  ctx.owner = nullptr;
  in_flight_.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace kext
