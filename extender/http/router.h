#pragma once
// The route table: which handler answers a request the transport has framed, by method and exact
// path. Every endpoint goes through it alike (the verbs, the probes, /metrics, /debug/*), and every
// reply goes back through one ReplySink, which the transport implements with the reply writer. The
// router knows nothing of connections; the transport knows nothing of routes.
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "extender/http/message.h"

namespace kext {

// One request on its way through a router, from routing until its reply is written.
struct Exchange {
  const HttpRequest& request;
  HttpResponse response;
  std::chrono::steady_clock::time_point start;
  // What a verb's handler tells the access log: the pod it judged and how many nodes it weighed.
  std::string pod;
  size_t nodes = 0;
};

using Handler = std::function<void(Exchange&)>;

// Sees every exchange a router serves: before routing, and after its reply has been written.
class ExchangeObserver {
 public:
  virtual ~ExchangeObserver() = default;
  virtual void on_start(Exchange& x) = 0;
  virtual void on_end(const Exchange& x) = 0;
};

// Where a router's replies go: the transport's side of an exchange.
class ReplySink {
 public:
  virtual ~ReplySink() = default;
  virtual void send(const HttpRequest& req, HttpResponse& res) = 0;
};

class Router {
 public:
  // `method` on exactly `path` runs `handler`; a GET route answers HEAD too, without the body.
  void add(std::string method, std::string path, Handler handler);
  void get(std::string path, Handler handler) { add("GET", std::move(path), std::move(handler)); }
  void post(std::string path, Handler handler) { add("POST", std::move(path), std::move(handler)); }

  // Null: nothing observed. Must outlive the router's serving.
  void set_observer(ExchangeObserver* observer) { observer_ = observer; }

  // Runs the handler of `req`'s route and sends its reply through `sink`. No route: 404 with a JSON
  // Error naming the method and path (400 for a method HTTP/1.1 servers do not route). A handler that
  // throws: 500 with a JSON Error. An error status without a body gets a JSON Error naming it.
  void serve(const HttpRequest& req, ReplySink& sink) const;

 private:
  struct Route {
    std::string method;
    std::string path;
    Handler handler;
  };

  void run(Exchange& x) const;

  std::vector<Route> routes_;
  ExchangeObserver* observer_ = nullptr;
};

// "internal error: <what>": the Error of the 500 an exception out of a handler becomes.
std::string internal_error_message(std::exception_ptr ep);

}  // namespace kext
