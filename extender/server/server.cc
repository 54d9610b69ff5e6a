#include "extender/server/server.h"

#include <httplib.h>

#include "extender/http/router.h"
#include "extender/observe/recorder.h"
#include "extender/server/ops_routes.h"
#include "extender/verbs/bind_forward.h"
#include "json/json.h"

namespace kext {

namespace {

// "application/json; charset=utf-8" rather than bare "application/json": cpp-httplib gzips bare
// application/json when the client accepts gzip (Go always does), which only costs CPU on loopback.
constexpr const char* kJsonType = "application/json; charset=utf-8";

// Moves the body in: set_content copies, and a multi-megabyte full-Nodes filter echo copied into
// fresh pages cost more in page faults than the rest of the verb at 15000 nodes (docs/performance.md "Figures
// behind design choices in the code").
void send(httplib::Response& res, Reply&& reply) {
  res.status = reply.status;
  res.body = std::move(reply.body);
  res.headers.erase("Content-Type");
  res.set_header("Content-Type", kJsonType);
}

bool content_type_ok(std::optional<std::string_view> content_type) {
  if (!content_type) return true;  // curl -d without -H still gets served
  std::string base(content_type->substr(0, content_type->find(';')));
  while (!base.empty() && base.back() == ' ') base.pop_back();
  for (auto& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base == "application/json" || base.ends_with("+json");
}

// An exception out of a handler: a 500 with a JSON error, never a crash.
Reply internal_error(std::exception_ptr ep) {
  std::string what = "internal error";
  try {
    std::rethrow_exception(ep);
  } catch (const std::exception& e) {
    what = std::string("internal error: ") + e.what();
  } catch (...) {
  }
  return bad_request(what, 500);
}

std::string normalized_prefix(std::string p) {
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (!p.empty() && p.front() != '/') p.insert(p.begin(), '/');
  return p;
}

// cpp-httplib's own defaults would close keep-alive connections after 5 requests; the transport owns
// connections, so these only shape the reply's Connection/Keep-Alive headers and the body bound.
void configure_router(Router& router, const ServerConfig& config) {
  router.set_keep_alive(SIZE_MAX,
                        std::chrono::duration_cast<std::chrono::seconds>(config.limits.idle_timeout).count());
  router.set_payload_max_length(config.limits.max_body_bytes);
}

// The verbs, each routed alike: POST <prefix>/<name> runs it.
struct VerbRoute {
  std::string_view name;
  Reply (Verbs::*run)(std::string_view body, VerbTrace* trace) const;
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
  router.Get("/healthz",
             [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
  // Not ready until the watch has listed every resource: answers from a half-filled cache would
  // admit pods onto nodes that look empty.
  // Not ready either once SIGTERM has come: the endpoints controller takes the replica out of the
  // Service while it still answers the requests already routed to it.
  router.Get("/readyz", [&state, &terminating](const httplib::Request&, httplib::Response& res) {
    if (terminating.load()) {
      res.status = 503;
      res.set_content("shutting down", "text/plain");
      return;
    }
    if (!state.ready()) {
      res.status = 503;
      res.set_content("cluster state not synced yet", "text/plain");
      return;
    }
    res.set_content("ok", "text/plain");
  });
}

void install_error_handlers(Router& router) {
  router.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 413) {
      send(res, bad_request("request body too large", 413));
    } else if (res.status == 404) {
      send(res, bad_request("no such path: " + req.method + " " + req.path, 404));
    } else {
      send(res, bad_request("HTTP error " + std::to_string(res.status), res.status));
    }
  });
  // Last line of defence: an unexpected exception becomes a 500 with a JSON error, never a crash.
  router.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    send(res, internal_error(ep));
  });
}

}  // namespace

Server::Server(ServerConfig config, const Verbs& verbs, const StateStore& state, ServerObservers observers)
    : config_(std::move(config)),
      verbs_(verbs),
      state_(state),
      observer_(normalized_prefix(config_.path_prefix), observers, config_.verbosity),
      router_(std::make_unique<Router>()),
      tls_(make_server_tls_context(config_.tls)) {
  if (!config_.record_dir.empty()) {
    recorder_ = std::make_unique<Recorder>(RecorderConfig{config_.record_dir, config_.record_max_bytes});
  }
  configure_router(*router_, config_);
  observer_.attach(*router_);
  install_ops_routes(*router_, observer_.observers(), state_);
  install_routes();
  install_probes(*router_, state_, terminating_);
  install_error_handlers(*router_);

  std::vector<Listener> listeners{Listener{config_.address, config_.port, router_.get(), tls_.get()}};
  if (config_.metrics_port >= 0) {
    metrics_router_ = std::make_unique<Router>();
    configure_router(*metrics_router_, config_);
    observer_.attach(*metrics_router_);
    install_metrics_route(*metrics_router_, observer_.observers().metrics, state_);
    install_probes(*metrics_router_, state_, terminating_);
    install_error_handlers(*metrics_router_);
    listeners.push_back(Listener{config_.metrics_address.empty() ? config_.address : config_.metrics_address,
                                 config_.metrics_port, metrics_router_.get(), nullptr});
  }
  transport_ =
      std::make_unique<Transport>(config_.limits, std::move(listeners), observer_.observers().metrics);
}

Server::~Server() = default;

void Server::install_routes() {
  const std::string prefix = normalized_prefix(config_.path_prefix);

  // Every verb: the body in place (no copy into req.body), the Content-Type check, observation,
  // recording, the reply moved out. A wrong method gets 405 with a JSON error rather than cpp-httplib's
  // bare 404.
  for (const VerbRoute& v : kVerbRoutes) {
    const std::string path = prefix + "/" + std::string(v.name);
    router_->post_direct(path, kJsonType, [this, v](const DirectRequest& req) -> DirectReply {
      const Route route = observer_.route_of(req.path);
      VerbTrace trace;
      trace.want_decision = observer_.want_decision();
      Reply reply;
      try {
        reply = content_type_ok(req.content_type)
                    ? (verbs_.*v.run)(req.body, &trace)
                    : bad_request("Content-Type must be application/json, got \"" +
                                      std::string(req.content_type.value_or("")) + "\"",
                                  415);
      } catch (...) {
        reply = internal_error(std::current_exception());
      }
      observer_.on_verb(route, trace, reply);
      if (recorder_ && v.recorded) {
        recorder_->record(v.name, req.content_type.value_or(""), req.content_length, req.body, reply.status,
                          reply.body);
      }
      return DirectReply{reply.status, std::move(reply.body)};
    });
    auto not_allowed = [](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Allow", "POST");
      send(res, bad_request("method " + req.method + " not allowed on " + req.path + ": use POST", 405));
    };
    router_->Get(path, not_allowed);
    router_->Put(path, not_allowed);
    router_->Delete(path, not_allowed);
    router_->Patch(path, not_allowed);
  }

  router_->Get("/version", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(
        std::string("{\"version\":\"") + KEXT_VERSION + "\",\"compiler\":\"" + __VERSION__ + "\"}",
        kJsonType);
  });
}

std::string Server::path_prefix() const { return normalized_prefix(config_.path_prefix); }

bool Server::bind(std::string* error) { return transport_->bind(error); }

bool Server::serve() { return transport_->run(); }

void Server::shutdown(std::chrono::milliseconds grace) { transport_->drain(grace); }

void Server::stop() { transport_->stop(); }

}  // namespace kext
