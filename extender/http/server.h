#pragma once
// cpp-httplib server tuned for kube-scheduler's Go client on a long-lived keep-alive connection.
#include <cstddef>
#include <memory>
#include <string>

#include "extender/http/verbs.h"

namespace httplib {
class Server;
}

namespace kext {

struct ServerConfig {
  std::string address = "0.0.0.0";
  int port = 8888;  // 0 = any free port (tests)
  std::string path_prefix;  // verbs are served under it, e.g. "/scheduler"
  size_t max_body_bytes = 64u << 20;
  size_t threads = 16;  // a worker per keep-alive connection: scheduler connections + probes + curl
};

class Server {
 public:
  Server(ServerConfig config, const Verbs& verbs, const StateStore& state);
  ~Server();

  // Binds the socket; returns false (with the reason in *error) if it cannot.
  bool bind(std::string* error);
  int port() const { return port_; }
  // Blocks serving until stop().
  bool serve();
  void stop();

 private:
  void install_routes();

  ServerConfig config_;
  const Verbs& verbs_;
  const StateStore& state_;
  std::unique_ptr<httplib::Server> http_;
  int port_ = 0;
};

}  // namespace kext
