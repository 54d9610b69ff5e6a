#include "extender/http/server.h"

#include <httplib.h>

#include "policy/json.h"

namespace kext {

namespace {

// "application/json; charset=utf-8" rather than bare "application/json": cpp-httplib gzips bare
// application/json when the client accepts gzip (Go always does), which only costs CPU on loopback.
constexpr const char* kJsonType = "application/json; charset=utf-8";

void send(httplib::Response& res, const Reply& reply) {
  res.status = reply.status;
  res.set_content(reply.body, kJsonType);
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

}  // namespace

Server::Server(ServerConfig config, const Verbs& verbs, const StateStore& state)
    : config_(std::move(config)), verbs_(verbs), state_(state), http_(std::make_unique<httplib::Server>()) {
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
  install_routes();
}

Server::~Server() = default;

void Server::install_routes() {
  const std::string prefix = [&] {
    std::string p = config_.path_prefix;
    while (!p.empty() && p.back() == '/') p.pop_back();
    if (!p.empty() && p.front() != '/') p.insert(p.begin(), '/');
    return p;
  }();

  using VerbFn = Reply (Verbs::*)(std::string_view) const;
  auto post_verb = [this, &prefix](const std::string& verb, VerbFn fn) {
    http_->Post(prefix + "/" + verb, [this, fn](const httplib::Request& req, httplib::Response& res) {
      if (!content_type_ok(req)) {
        send(res, bad_request("Content-Type must be application/json, got \"" +
                                  req.get_header_value("Content-Type") + "\"",
                              415));
        return;
      }
      send(res, (verbs_.*fn)(req.body));
    });
  };
  post_verb("filter", &Verbs::filter);
  post_verb("prioritize", &Verbs::prioritize);
  post_verb("preempt", &Verbs::preempt);

  for (const char* verb : {"bind"}) {
    http_->Post(prefix + "/" + verb, [verb](const httplib::Request&, httplib::Response& res) {
      send(res, bad_request(std::string("verb \"") + verb + "\" is not implemented by this extender", 404));
    });
  }
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
  http_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    (void)state_;
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

bool Server::serve() { return http_->listen_after_bind(); }

void Server::stop() { http_->stop(); }

}  // namespace kext
