#pragma once
// extender-sim --extender against the real kube-extender: run_sim on a thread, the extender a child
// process watching the API the simulation serves.
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/run.h"
#include "tests/support/extender_process.h"
#include "tests/support/tcp_balancer.h"
#include "tests/support/wait.h"

namespace kext::simtool {

// A port free now (bound and released), for the two processes that must know each other's port.
inline int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

struct HttpRun {
  std::string log;
  std::string error;                         // run_sim's exception, "" if none
  std::string metrics;                       // the extender's /metrics after the run
  std::vector<std::string> replica_metrics;  // run_with_replicas: each replica's /metrics
};

// run_sim with --extender on a thread, the real kube-extender started once the API listens.
// run_sim(c) on a thread, its exception into out.error; returns once its API answers on api_port, or
// once the run has ended (it could not listen, say).
// `ended` turns true once the run has ended and out.error is written: only then may another thread read
// out.error.
inline std::thread start_sim(const SimCommand& c, int api_port, HttpRun& out, std::ostringstream& log,
                             std::shared_ptr<std::atomic<bool>> ended) {
  std::thread sim([c, &out, &log, ended] {
    try {
      run_sim(c, &log);
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    ended->store(true);
  });
  httplib::Client api("127.0.0.1", api_port);
  kext::testing::wait_until([&] { return ended->load() || static_cast<bool>(api.Get("/api/v1/nodes")); },
                            std::chrono::seconds(20));
  return sim;
}

// start_sim with its API on a port free_port picked. A port picked so is free only when picked: another
// socket can take it before the simulation listens (an outgoing connection's ephemeral port, with the
// suites running two at a time), and then another port is picked. Sets c.api_listen and api_port.
inline std::thread start_sim_on_free_port(SimCommand& c, int& api_port, HttpRun& out,
                                          std::ostringstream& log) {
  for (int attempt = 1;; ++attempt) {
    api_port = free_port();
    c.api_listen = "127.0.0.1:" + std::to_string(api_port);
    auto ended = std::make_shared<std::atomic<bool>>(false);
    std::thread sim = start_sim(c, api_port, out, log, ended);
    const bool taken =
        ended->load() && out.error.starts_with("--api-listen " + c.api_listen + ": cannot listen");
    if (!taken || attempt == 5) return sim;
    sim.join();
    out.error.clear();
    log.str("");
  }
}

// With `log_file`, the extender's stderr goes there (nothing blocks on an undrained pipe in a long run).
inline HttpRun run_with_extender(SimCommand c, bool node_cache_capable, const std::string& prefix = "",
                                 const std::vector<std::string>& extender_args = {},
                                 const std::string& log_file = "") {
  int api_port = 0;
  const int ext_port = free_port();
  c.extender_url = "http://127.0.0.1:" + std::to_string(ext_port) + prefix;
  c.node_cache_capable = node_cache_capable;
  c.extender_timeout_seconds = 60;
  HttpRun out;
  std::ostringstream log;
  std::thread sim = start_sim_on_free_port(c, api_port, out, log);
  std::vector<std::string> args{"--port", std::to_string(ext_port), "--api-server",
                                "http://127.0.0.1:" + std::to_string(api_port)};
  args.insert(args.end(), extender_args.begin(), extender_args.end());
  kext::testing::ExtenderProcess ext(KEXT_BINARY, args, log_file);
  sim.join();
  EXPECT_EQ(ext.port(), ext_port) << ext.log();
  if (auto m = httplib::Client("127.0.0.1", ext_port).Get("/metrics")) out.metrics = m->body;
  out.log = log.str();
  return out;
}

// run_sim with --extender at `replicas` kube-extenders with --enable-bind --leader-elect (the Lease in
// the simulated API) behind a connection-pinning balancer, as the shipped high-availability set-up
// runs them; NodeNames. Replica i logs to "<log_prefix>-i.log".
inline HttpRun run_with_replicas(SimCommand c, int replicas, const std::string& log_prefix) {
  int api_port = 0;
  kext::testing::Balancer lb;
  c.extender_url = "http://127.0.0.1:" + std::to_string(lb.port());
  c.node_cache_capable = true;
  c.extender_timeout_seconds = 60;
  HttpRun out;
  std::ostringstream log;
  std::thread sim = start_sim_on_free_port(c, api_port, out, log);
  std::vector<std::unique_ptr<kext::testing::ExtenderProcess>> processes;
  std::vector<int> ports;
  for (int i = 0; i < replicas; ++i) {
    const std::vector<std::string> args{"--api-server",
                                        "http://127.0.0.1:" + std::to_string(api_port),
                                        "--enable-bind",
                                        "--leader-elect",
                                        "--leader-elect-identity",
                                        "r" + std::to_string(i),
                                        "--leader-elect-lease-duration",
                                        "3s",
                                        "--leader-elect-renew-deadline",
                                        "2s",
                                        "--leader-elect-retry-period",
                                        "200ms"};
    processes.push_back(std::make_unique<kext::testing::ExtenderProcess>(
        KEXT_BINARY, args, log_prefix + "-" + std::to_string(i) + ".log"));
    ports.push_back(processes.back()->port());
  }
  lb.set_backends(ports);
  sim.join();
  if (!out.error.empty()) {
    for (const auto& p : processes) out.error += "\n--- " + p->log();  // what each replica said
  }
  if (auto m = httplib::Client("127.0.0.1", lb.port()).Get("/metrics")) out.metrics = m->body;
  for (int port : ports) {
    auto m = httplib::Client("127.0.0.1", port).Get("/metrics");
    out.replica_metrics.push_back(m ? m->body : "");
  }
  out.log = log.str();
  return out;
}

}  // namespace kext::simtool
