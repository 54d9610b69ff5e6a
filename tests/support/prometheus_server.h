#pragma once
// A real Prometheus for the tests of the Prometheus usage source: Debian's `prometheus` binary
// (tools/install-deps.sh installs it) started as a child process on loopback, with its own
// configuration and data directory, scraping a node-exporter look-alike the test serves with the usage
// it chooses. The metric names and labels are node-exporter's (node_cpu_seconds_total{cpu,mode},
// node_memory_MemTotal_bytes, node_memory_MemAvailable_bytes), one `instance` per simulated node, so
// that the source's default PromQL reads them as it reads a cluster's.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/temp_dir.h"

namespace httplib {
class Server;
}

namespace kext::testing {

// One simulated node as its node-exporter would report it.
struct ExportedNode {
  std::string instance;  // the `instance` label: the node's name, as a cluster's relabeling sets it
  int cpus = 4;
  double busy_cores = 0;  // the non-idle CPU counters advance by this many seconds per second
  int64_t memory_total = 0;
  int64_t memory_used = 0;  // MemAvailable is MemTotal minus this
};

// Serves GET /metrics in Prometheus' text exposition format on 127.0.0.1, every node's series in one
// scrape (Prometheus keeps their `instance` labels with honor_labels). The CPU counters are computed at
// each scrape from the time elapsed, so their rate is the usage set, whenever Prometheus scrapes.
class NodeExporter {
 public:
  explicit NodeExporter(std::vector<ExportedNode> nodes);
  ~NodeExporter();
  NodeExporter(const NodeExporter&) = delete;
  NodeExporter& operator=(const NodeExporter&) = delete;

  // "127.0.0.1:<port>", a scrape target.
  std::string address() const;
  // Replaces the node of the same instance (added when new); its counters continue from their value.
  void set(const ExportedNode& node);
  // The exposition text as a scrape now reads it.
  std::string render() const;

 private:
  struct Counters {
    ExportedNode node;
    double busy_seconds = 0;  // over every CPU, up to `since`
    double idle_seconds = 0;
    std::chrono::steady_clock::time_point since;
  };
  static void advance(Counters& c, std::chrono::steady_clock::time_point now);

  mutable std::mutex mu_;
  std::map<std::string, Counters> nodes_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::thread thread_;
};

// The `prometheus` binary on PATH, or "" when it is not installed.
std::string prometheus_binary();

// A Prometheus configuration scraping `target` ("host:port", path /metrics) every `interval`, keeping
// the `instance` labels the target serves.
std::string scrape_config(const std::string& target, std::chrono::seconds interval = std::chrono::seconds(1));

// Prometheus with the configuration `config_yaml`, listening on a free loopback port, its data in a
// temporary directory. The constructor returns once Prometheus answers /-/ready, and throws (the test
// fails with the message) when the binary is missing or does not start. The destructor kills it and
// removes its directory; if the test process dies first, the kernel kills it when the thread that
// constructed it ends (its parent-death signal), so construct it on a thread that outlives it.
class PrometheusServer {
 public:
  explicit PrometheusServer(const std::string& config_yaml);
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  // "http://127.0.0.1:<port>", the base URL of its HTTP API.
  std::string url() const;
  int port() const { return port_; }

  // An instant query through /api/v1/query: each series' `instance` label and value. Empty on any
  // error (the body is in last_error()).
  std::map<std::string, double> query(const std::string& promql);
  // Whether `promql` returned at least `series` series within `limit`: scrapes are asynchronous, and a
  // rate needs two of them in its window.
  bool wait_for_series(const std::string& promql, size_t series, std::chrono::milliseconds limit);
  const std::string& last_error() const { return last_error_; }
  // The body of GET `path` ("/api/v1/targets"); "" on a transport error.
  std::string get(const std::string& path);
  // The end of Prometheus' log, for a failure message.
  std::string log_tail() const;

 private:
  bool start(const std::string& binary);

  TempDir dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string last_error_;
};

}  // namespace kext::testing
