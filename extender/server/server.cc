#include "extender/server/server.h"

#include "common/url_path.h"
#include "extender/http/reply_writer.h"
#include "extender/http/router.h"
#include "extender/observe/recorder.h"
#include "extender/server/ops_routes.h"
#include "extender/verbs/bind_forward.h"
#include "json/json.h"

namespace kext {

namespace {

// Moves the body in, not a copy: a multi-megabyte full-Nodes filter echo copied into fresh pages cost
// more in page faults than the rest of the verb on the largest clusters.
void send(HttpResponse& res, Reply&& reply) {
  res.set(reply.status, std::string(kJsonContentType), std::move(reply.body));
}

bool content_type_ok(std::optional<std::string_view> content_type) {
  if (!content_type) return true;  // curl -d without -H still gets served
  std::string base(content_type->substr(0, content_type->find(';')));
  while (!base.empty() && base.back() == ' ') base.pop_back();
  for (auto& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base == "application/json" || base.ends_with("+json");
}

// The verbs, each routed alike: POST <prefix>/<name> runs it.
struct VerbRoute {
  std::string_view name;
  Server::VerbRun run;
  // --record-dir keeps what the scheduler sent; a forwarded bind was recorded where it arrived.
  bool recorded = true;
};
constexpr VerbRoute kVerbRoutes[] = {
    {"filter", &Verbs::filter_traced},
    {"prioritize", &Verbs::prioritize_traced},
    {"preempt", &Verbs::preempt_traced},
    {"bind", &Verbs::bind_traced},
    {kHolderBindRoute, &Verbs::holder_bind_traced, false},
    {kHolderFilterRoute, &Verbs::holder_filter_traced, false},
    {kHolderPreemptRoute, &Verbs::holder_preempt_traced, false},
    {kHolderGangRoomRoute, &Verbs::holder_gang_room_traced, false},
};

void install_probes(Router& router, const StateStore& state, const std::atomic<bool>& terminating) {
  router.get("/healthz", [](Exchange& x) { x.response.set(200, "text/plain", "ok"); });
  // Not ready until the watch has listed every resource: answers from a half-filled cache would
  // admit pods onto nodes that look empty.
  // Not ready either once SIGTERM has come: the endpoints controller takes the replica out of the
  // Service while it still answers the requests already routed to it.
  router.get("/readyz", [&state, &terminating](Exchange& x) {
    if (terminating.load()) return x.response.set(503, "text/plain", "shutting down");
    if (!state.ready()) return x.response.set(503, "text/plain", "cluster state not synced yet");
    x.response.set(200, "text/plain", "ok");
  });
}

}  // namespace

Server::Server(ServerConfig config, const Verbs& verbs, const StateStore& state, ServerObservers observers)
    : config_(std::move(config)),
      verbs_(verbs),
      state_(state),
      observer_(normalized_path_prefix(config_.path_prefix), observers, config_.verbosity),
      router_(std::make_unique<Router>()),
      tls_(make_server_tls_context(config_.tls)) {
  if (!config_.record_dir.empty()) {
    recorder_ = std::make_unique<Recorder>(RecorderConfig{config_.record_dir, config_.record_max_bytes});
  }
  observer_.attach(*router_);
  install_ops_routes(*router_, observer_.observers(), state_);
  install_routes();
  install_probes(*router_, state_, terminating_);

  std::vector<Listener> listeners{Listener{config_.address, config_.port, router_.get(), tls_.get()}};
  if (config_.metrics_port >= 0) {
    metrics_router_ = std::make_unique<Router>();
    observer_.attach(*metrics_router_);
    install_metrics_route(*metrics_router_, observer_.observers().metrics, state_);
    install_probes(*metrics_router_, state_, terminating_);
    listeners.push_back(Listener{config_.metrics_address.empty() ? config_.address : config_.metrics_address,
                                 config_.metrics_port, metrics_router_.get(), nullptr});
  }
  transport_ =
      std::make_unique<Transport>(config_.limits, std::move(listeners), observer_.observers().metrics);
}

Server::~Server() = default;

// Every verb alike: the body in place, the Content-Type check, observation, recording, the reply
// moved out.
void Server::run_verb(std::string_view name, VerbRun run, bool recorded, Exchange& x) {
  const HttpRequest& req = x.request;
  const std::optional<std::string_view> type = req.header("Content-Type");
  const Route route = observer_.route_of(req.path);
  VerbTrace trace;
  trace.want_decision = observer_.want_decision();
  Reply reply;
  try {
    reply = content_type_ok(type) ? (verbs_.*run)(req.body, &trace)
                                  : bad_request("Content-Type must be application/json, got \"" +
                                                    std::string(type.value_or("")) + "\"",
                                                415);
  } catch (...) {
    reply = bad_request(internal_error_message(std::current_exception()), 500);
  }
  observer_.on_verb(x, route, trace, reply);
  if (recorder_ && recorded) {
    recorder_->record(name, type.value_or(""), req.header("Content-Length").value_or(""), req.body,
                      reply.status, reply.body);
  }
  send(x.response, std::move(reply));
}

void Server::install_routes() {
  const std::string prefix = normalized_path_prefix(config_.path_prefix);
  for (const VerbRoute& v : kVerbRoutes) {
    const std::string path = prefix + "/" + std::string(v.name);
    router_->post(path, [this, v](Exchange& x) { run_verb(v.name, v.run, v.recorded, x); });
    // A wrong method gets 405 with a JSON error naming the right one, not a 404.
    const auto not_allowed = [](Exchange& x) {
      x.response.headers.emplace_back("Allow", "POST");
      send(x.response, bad_request("method " + std::string(x.request.method) + " not allowed on " +
                                       std::string(x.request.path) + ": use POST",
                                   405));
    };
    for (const char* method : {"GET", "PUT", "DELETE", "PATCH"}) router_->add(method, path, not_allowed);
  }

  router_->get("/version", [](Exchange& x) {
    x.response.set(
        200, std::string(kJsonContentType),
        std::string("{\"version\":\"") + KEXT_VERSION + "\",\"compiler\":\"" + __VERSION__ + "\"}");
  });
}

std::string Server::path_prefix() const { return normalized_path_prefix(config_.path_prefix); }

bool Server::bind(std::string* error) { return transport_->bind(error); }

bool Server::serve() { return transport_->run(); }

void Server::shutdown(std::chrono::milliseconds grace) { transport_->drain(grace); }

void Server::stop() { transport_->stop(); }

}  // namespace kext
