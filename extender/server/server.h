#pragma once
// The extender's HTTP server: the verbs, probes and observation routes in one route table per listener,
// over the Transport, which owns the connections and their bounds.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "extender/http/router.h"
#include "extender/http/tls.h"
#include "extender/http/transport.h"
#include "extender/observe/recorder.h"
#include "extender/server/request_observer.h"
#include "extender/verbs/verbs.h"

namespace kext {

struct ServerConfig {
  std::string address = "0.0.0.0";
  int port = 8888;          // 0 = any free port (tests)
  std::string path_prefix;  // verbs are served under it, e.g. "/scheduler"
  TransportLimits limits;   // connections, deadlines, sizes, workers
  TlsConfig tls;            // plain HTTP unless tls.cert_file is set
  // A second, plain-HTTP listener with only /metrics, /healthz and /readyz, so that Prometheus and
  // the kubelet's probes need no access to the verbs. -1 = none, 0 = any free port (tests).
  int metrics_port = -1;
  std::string metrics_address;  // empty = `address`
  int verbosity = 0;            // -v: 1 = one log line per request on stderr
  std::string record_dir;       // empty = not recording (docs/load-testing.md)
  size_t record_max_bytes = kDefaultRecordMaxBytes;
};

class Server {
 public:
  // observers: /metrics and /debug/decisions exist only for the ones given; they must outlive the Server.
  Server(ServerConfig config, const Verbs& verbs, const StateStore& state, ServerObservers observers = {});
  ~Server();

  // The verbs' path prefix as served: "" or "/path", without a trailing slash.
  std::string path_prefix() const;
  // A route of another capacity on the verbs' listener (POST /capacity), observed as every route is.
  // Before serve(): the route table is read without a lock while serving.
  void add_route(std::string method, std::string path, Handler handler) {
    router_->add(std::move(method), std::move(path), std::move(handler));
  }
  // Binds the socket; returns false (with the reason in *error) if it cannot.
  bool bind(std::string* error);
  int port() const { return transport_->port(0); }
  // The metrics listener's port; -1 when there is none.
  int metrics_port() const { return config_.metrics_port < 0 ? -1 : transport_->port(1); }
  // Blocks serving until stop().
  bool serve();
  void stop();
  // Graceful stop (SIGTERM): stops accepting and closes idle keep-alive connections; requests being
  // received or run finish for up to `grace`. Returns once serve() has returned (or after `grace`
  // plus a few seconds if a handler is stuck).
  void shutdown(std::chrono::milliseconds grace);
  // /readyz answers 503 on every listener from now on; everything else is served as before.
  void set_terminating() { terminating_.store(true); }
  // Requests being received or run.
  size_t in_flight() const { return observer_.in_flight() + transport_->receiving(); }
  // Request bytes held across connections, and whole requests waiting for a worker (their bounds are
  // --max-buffered-bytes and --max-queued-requests).
  size_t buffered_bytes() const { return transport_->buffered_bytes(); }
  size_t queued_requests() { return transport_->queued(); }

  // A verb as the server runs it.
  using VerbRun = Reply (Verbs::*)(std::string_view body, VerbTrace* trace) const;

 private:
  void install_routes();
  void run_verb(std::string_view name, VerbRun run, bool recorded, Exchange& x);

  ServerConfig config_;
  std::atomic<bool> terminating_{false};
  const Verbs& verbs_;
  const StateStore& state_;
  RequestObserver observer_;
  std::unique_ptr<Router> router_;          // everything, on the verb port
  std::unique_ptr<Router> metrics_router_;  // /metrics and the probes, on the metrics port
  SslCtxPtr tls_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Recorder> recorder_;  // null unless --record-dir
};

}  // namespace kext
