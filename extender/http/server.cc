#include "extender/http/server.h"

#include <httplib.h>

#include <thread>

#include "extender/http/connections.h"
#include "extender/http/ops_routes.h"
#include "extender/http/recorder.h"
#include "policy/json.h"

namespace kext {

namespace {

// "application/json; charset=utf-8" rather than bare "application/json": cpp-httplib gzips bare
// application/json when the client accepts gzip (Go always does), which only costs CPU on loopback.
constexpr const char* kJsonType = "application/json; charset=utf-8";

// Moves the body in: set_content copies, and a multi-megabyte full-Nodes filter echo copied into
// fresh pages cost more in page faults than the whole verb (15000 nodes: ~80 ms of 110).
void send(httplib::Response& res, Reply&& reply) {
  res.status = reply.status;
  res.body = std::move(reply.body);
  res.headers.erase("Content-Type");
  res.set_header("Content-Type", kJsonType);
}

bool content_type_ok(const httplib::Request& req) {
  if (!req.has_header("Content-Type")) return true;  // curl -d without -H still gets served
  std::string ct = req.get_header_value("Content-Type");
  auto semi = ct.find(';');
  std::string base = ct.substr(0, semi);
  while (!base.empty() && base.back() == ' ') base.pop_back();
  for (auto& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base == "application/json" || base.ends_with("+json");
}

std::string normalized_prefix(std::string p) {
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (!p.empty() && p.front() != '/') p.insert(p.begin(), '/');
  return p;
}

}  // namespace

Server::Server(ServerConfig config, const Verbs& verbs, const StateStore& state, ServerObservers observers)
    : config_(std::move(config)),
      verbs_(verbs),
      state_(state),
      observer_(normalized_prefix(config_.path_prefix), observers, config_.verbosity),
      http_(make_http_server(config_.tls)) {
  // landscape.md §6: cpp-httplib's defaults close keep-alive connections after 5 requests and leave
  // Nagle on (40 ms stalls); the Go client keeps idle connections 90 s, so outlive that.
  http_->set_tcp_nodelay(true);
  http_->set_keep_alive_max_count(SIZE_MAX);
  http_->set_keep_alive_timeout(120);
  http_->set_read_timeout(10, 0);
  http_->set_write_timeout(10, 0);
  http_->set_payload_max_length(config_.max_body_bytes);
  const size_t threads = config_.threads;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  if (!config_.record_dir.empty()) {
    recorder_ = std::make_unique<Recorder>(RecorderConfig{config_.record_dir, config_.record_max_bytes});
  }
  observer_.attach(*http_);
  install_ops_routes(*http_, observer_.observers(), state_);
  install_routes();
}

Server::~Server() = default;

void Server::install_routes() {
  const std::string prefix = normalized_prefix(config_.path_prefix);

  using VerbFn = Reply (Verbs::*)(std::string_view, VerbTrace*) const;
  auto post_verb = [this, &prefix](const std::string& verb, VerbFn fn) {
    http_->Post(prefix + "/" + verb, [this, fn, verb](const httplib::Request& req, httplib::Response& res) {
      const Route route = observer_.route_of(req.path);
      VerbTrace trace;
      trace.want_decision = observer_.want_decision();
      Reply reply = content_type_ok(req) ? (verbs_.*fn)(req.body, &trace)
                                         : bad_request("Content-Type must be application/json, got \"" +
                                                           req.get_header_value("Content-Type") + "\"",
                                                       415);
      observer_.on_verb(route, trace, reply);
      if (recorder_) recorder_->record(verb, req, reply);
      send(res, std::move(reply));
    });
  };
  post_verb("filter", &Verbs::filter_traced);
  post_verb("prioritize", &Verbs::prioritize_traced);
  post_verb("preempt", &Verbs::preempt_traced);

  http_->Post(prefix + "/bind", [this](const httplib::Request& req, httplib::Response& res) {
    const Route route = observer_.route_of(req.path);
    VerbTrace trace;
    Reply reply = !bind_                  ? bad_request("bind is not enabled on this extender (--enable-bind)", 404)
                  : content_type_ok(req) ? bind_(req.body)
                                         : bad_request("Content-Type must be application/json, got \"" +
                                                           req.get_header_value("Content-Type") + "\"",
                                                       415);
    observer_.on_verb(route, trace, reply);
    if (recorder_) recorder_->record("bind", req, reply);
    send(res, std::move(reply));
  });
  // Wrong method on a verb: 405 with a JSON error rather than cpp-httplib's bare 404.
  for (const char* verb : {"filter", "prioritize", "preempt", "bind"}) {
    std::string path = prefix + "/" + verb;
    auto not_allowed = [](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Allow", "POST");
      send(res, bad_request("method " + req.method + " not allowed on " + req.path + ": use POST", 405));
    };
    http_->Get(path, not_allowed);
    http_->Put(path, not_allowed);
    http_->Delete(path, not_allowed);
    http_->Patch(path, not_allowed);
  }

  http_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
  // Not ready until the watch has listed every resource: answers from a half-filled cache would
  // admit pods onto nodes that look empty.
  http_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    if (!state_.ready()) {
      res.status = 503;
      res.set_content("cluster state not synced yet", "text/plain");
      return;
    }
    res.set_content("ok", "text/plain");
  });
  http_->Get("/version", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string("{\"version\":\"") + KEXT_VERSION + "\",\"compiler\":\"" + __VERSION__ + "\"}",
                    kJsonType);
  });

  http_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
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
  http_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = std::string("internal error: ") + e.what();
    } catch (...) {
    }
    send(res, bad_request(what, 500));
  });
}

bool Server::bind(std::string* error) {
  if (!http_->is_valid()) {
    if (error) *error = "TLS: cannot load --tls-cert-file/--tls-private-key-file/--client-ca-file";
    return false;
  }
  if (config_.port == 0) {
    port_ = http_->bind_to_any_port(config_.address);
    if (port_ <= 0) {
      if (error) *error = "cannot bind " + config_.address + " to any port";
      return false;
    }
    return true;
  }
  if (!http_->bind_to_port(config_.address, config_.port)) {
    if (error) *error = "cannot listen on " + config_.address + ":" + std::to_string(config_.port) + " (in use or not permitted)";
    return false;
  }
  port_ = config_.port;
  return true;
}

bool Server::serve() {
  serving_ = true;
  // shutdown() may have run before serve(): cpp-httplib's stop() does nothing until listening starts.
  const bool ok = stopping_ ? true : http_->listen_after_bind();
  serving_ = false;
  return ok;
}

void Server::shutdown(std::chrono::milliseconds grace) {
  using Clock = std::chrono::steady_clock;
  stopping_ = true;
  http_->stop();
  const auto grace_end = Clock::now() + grace;
  while (observer_.in_flight() > 0 && Clock::now() < grace_end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // What is left is idle keep-alive connections (or requests past the grace period).
  const auto give_up = Clock::now() + std::chrono::seconds(5);
  while (serving_ && Clock::now() < give_up) {
    if (http_->is_running()) http_->stop();  // listening began after the first stop()
    shutdown_connections_on_port(port_);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void Server::stop() { http_->stop(); }

}  // namespace kext
