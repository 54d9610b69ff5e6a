#pragma once
// cpp-httplib server tuned for kube-scheduler's Go client on a long-lived keep-alive connection.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "extender/http/request_observer.h"
#include "extender/http/tls.h"
#include "extender/http/verbs.h"

namespace httplib {
class Server;
}

namespace kext {

class Recorder;

struct ServerConfig {
  std::string address = "0.0.0.0";
  int port = 8888;  // 0 = any free port (tests)
  std::string path_prefix;  // verbs are served under it, e.g. "/scheduler"
  size_t max_body_bytes = 64u << 20;
  size_t threads = 16;  // a worker per keep-alive connection: scheduler connections + probes + curl
  TlsConfig tls;        // plain HTTP unless tls.cert_file is set
  int verbosity = 0;    // -v: 1 = one log line per request on stderr
  std::string record_dir;  // empty = not recording (README "Load testing")
  size_t record_max_bytes = size_t{256} << 20;
};

class Server {
 public:
  // observers: /metrics and /debug/decisions exist only for the ones given; they must outlive the Server.
  Server(ServerConfig config, const Verbs& verbs, const StateStore& state, ServerObservers observers = {});
  ~Server();

  // Binds the socket; returns false (with the reason in *error) if it cannot.
  bool bind(std::string* error);
  int port() const { return port_; }
  // Blocks serving until stop().
  bool serve();
  void stop();
  // Graceful stop (SIGTERM): stops accepting, lets requests in flight finish for up to `grace`, then
  // drops idle keep-alive connections so serve() returns without waiting out their timeout. Returns
  // once serve() has returned (or after `grace` plus a few seconds if a handler is stuck).
  void shutdown(std::chrono::milliseconds grace);
  size_t in_flight() const { return observer_.in_flight(); }
  // /bind answers 404 until a handler is set (--enable-bind). Set before serve().
  void set_bind_handler(std::function<Reply(std::string_view)> handler) { bind_ = std::move(handler); }

 private:
  void install_routes();

  ServerConfig config_;
  const Verbs& verbs_;
  const StateStore& state_;
  RequestObserver observer_;
  std::unique_ptr<httplib::Server> http_;
  std::function<Reply(std::string_view)> bind_;
  std::unique_ptr<Recorder> recorder_;  // null unless --record-dir
  int port_ = 0;
  std::atomic<bool> serving_{false};
  std::atomic<bool> stopping_{false};
};

}  // namespace kext
