#include "extender/http/router.h"

#include <utility>

#include "extender/http/reply_writer.h"
#include "json/json.h"

namespace kext {

namespace {

// The methods a route may be registered for; any other gets 400, as from cpp-httplib before.
bool routable_method(std::string_view m) {
  return m == "GET" || m == "HEAD" || m == "POST" || m == "PUT" || m == "DELETE" || m == "PATCH" ||
         m == "OPTIONS";
}

void json_error(HttpResponse& res, int status, std::string_view message) {
  res.set(status, std::string(kJsonContentType), json::error_body(message));
}

// Ends the exchange for its observer even when sending the reply throws (out of memory).
struct EndObserved {
  ExchangeObserver* observer;
  const Exchange& x;
  ~EndObserved() {
    if (observer) observer->on_end(x);
  }
};

}  // namespace

std::string internal_error_message(std::exception_ptr ep) {
  try {
    std::rethrow_exception(ep);
  } catch (const std::exception& e) {
    return std::string("internal error: ") + e.what();
  } catch (...) {
  }
  return "internal error";
}

void Router::add(std::string method, std::string path, Handler handler) {
  routes_.push_back(Route{std::move(method), std::move(path), std::move(handler)});
}

void Router::run(Exchange& x) const {
  const HttpRequest& req = x.request;
  const std::string_view method = req.is_head() ? std::string_view("GET") : req.method;
  for (const Route& r : routes_) {
    if (r.path != req.path || r.method != method) continue;
    try {
      r.handler(x);
    } catch (...) {
      x.response = HttpResponse{};
      json_error(x.response, 500, internal_error_message(std::current_exception()));
    }
    return;
  }
  if (!routable_method(req.method)) return json_error(x.response, 400, "HTTP error 400");
  json_error(x.response, 404, "no such path: " + std::string(req.method) + " " + std::string(req.path));
}

void Router::serve(const HttpRequest& req, ReplySink& sink) const {
  Exchange x{req, HttpResponse{}, std::chrono::steady_clock::now(), {}, 0};
  if (observer_) observer_->on_start(x);
  EndObserved end{observer_, x};
  run(x);
  if (x.response.status >= 400 && x.response.body.empty()) {
    json_error(x.response, x.response.status, "HTTP error " + std::to_string(x.response.status));
  }
  sink.send(req, x.response);
}

}  // namespace kext
