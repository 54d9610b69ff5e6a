// The Prometheus usage source against a real Prometheus (Debian's package, tests/support/
// prometheus_server.h) scraping node-exporter's metrics that the test serves with the usage it chooses.
// The queries are the defaults with a shorter rate window: the default's window fills only a minute
// after Prometheus starts, and the test waits for its window to fill.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "json/json.h"
#include "policy/usage_config.h"
#include "tests/support/extender_process.h"
#include "tests/support/kube_objects.h"
#include "tests/support/prometheus_server.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"
#include "usage/prometheus_source.h"
#include "usage/usage_store.h"

namespace kext {
namespace real_prometheus_test {
namespace {

using testing::ExportedNode;
using testing::NodeExporter;
using testing::PrometheusServer;

constexpr std::string_view kWindow = "5s";
// The rate of the exporter's counters is exact (they carry their own timestamps) but for the timestamps'
// rounding to milliseconds and the source's to millicores.
constexpr double kCpuTolerance = 0.01;
constexpr int64_t kGi = int64_t{1} << 30;
// Starting Prometheus, filling a window and the queries, with room for a loaded machine.
constexpr std::chrono::seconds kLimit{20};

// The default CPU query over a window the test can fill.
std::string cpu_query() {
  std::string q(kDefaultPrometheusCpuQuery);
  const size_t at = q.find("[1m]");
  if (at == std::string::npos) {
    ADD_FAILURE() << "the default CPU query has no [1m] window to shorten: " << q;
    return q;
  }
  return q.replace(at, 4, "[" + std::string(kWindow) + "]");
}

const std::vector<ExportedNode> kNodes = {
    {"node-a", 4, 0.5, 16 * kGi, 2 * kGi},
    {"node-b", 4, 1.5, 16 * kGi, 9 * kGi},
    {"node-c", 8, 6.25, 32 * kGi, 30 * kGi},
};
// The node whose usage a test changes; the others' stays as kNodes sets it, whatever the tests' order.
const ExportedNode kChanging{"node-d", 4, 1, 16 * kGi, 4 * kGi};

// One exporter and one Prometheus for the tests of what it reads: starting Prometheus and filling a
// rate window is most of a test's time. Started by the first test that asks, on the main thread (the
// thread Prometheus' parent-death signal watches), and killed at exit.
struct Shared {
  std::unique_ptr<NodeExporter> exporter;
  std::unique_ptr<PrometheusServer> prometheus;
  std::string error;  // why there is none
};

// Prometheus has every node's series over a whole rate window (a sample at least a window old), so
// that rate() reads the usage set rather than extrapolating from part of the window.
std::string wait_for_full_window(PrometheusServer& prometheus, size_t nodes) {
  const std::string window_old = "node_memory_MemTotal_bytes offset " + std::string(kWindow);
  if (prometheus.wait_for_series(window_old, nodes, kLimit)) return "";
  return "no full window of samples: " + prometheus.last_error() + "\nPrometheus' log:\n" +
         prometheus.log_tail();
}

Shared start_shared() {
  Shared s;
  std::vector<ExportedNode> nodes = kNodes;
  nodes.push_back(kChanging);
  try {
    s.exporter = std::make_unique<NodeExporter>(nodes);
    s.prometheus = std::make_unique<PrometheusServer>(testing::scrape_config(s.exporter->address()));
    s.error = wait_for_full_window(*s.prometheus, nodes.size());
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  if (!s.error.empty()) s.prometheus.reset();
  return s;
}

Shared& shared() {
  static Shared s = start_shared();
  return s;
}

// The source as configured for this Prometheus: the default queries but the CPU query's window.
std::unique_ptr<usage::PrometheusSource> source_for(const PrometheusServer& prometheus) {
  PrometheusUsageConfig config;
  config.url = prometheus.url();
  config.cpu_query = cpu_query();
  return std::make_unique<usage::PrometheusSource>(config);
}

TEST(RealPrometheus, TheDefaultQueriesReadTheExportersUsage) {
  Shared& s = shared();
  ASSERT_TRUE(s.prometheus) << s.error;
  const std::map<std::string, double> cpu = s.prometheus->query(cpu_query());
  ASSERT_FALSE(cpu.empty()) << s.prometheus->last_error();
  const std::map<std::string, double> memory =
      s.prometheus->query(std::string(kDefaultPrometheusMemoryQuery));
  ASSERT_FALSE(memory.empty()) << s.prometheus->last_error();
  for (const ExportedNode& n : kNodes) {
    ASSERT_TRUE(cpu.contains(n.instance) && memory.contains(n.instance)) << n.instance;
    EXPECT_NEAR(cpu.at(n.instance), n.busy_cores, n.busy_cores * kCpuTolerance) << n.instance;
    EXPECT_EQ(memory.at(n.instance), static_cast<double>(n.memory_used)) << n.instance;
  }
}

TEST(RealPrometheus, PrometheusSourceFetchesEveryNodesUsage) {
  Shared& s = shared();
  ASSERT_TRUE(s.prometheus) << s.error;
  const int64_t before = usage::unix_ms_now();
  const usage::FetchResult r = source_for(*s.prometheus)->fetch();
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.samples.size(), kNodes.size() + 1);
  std::map<std::string, usage::Sample> by_node;
  for (const usage::Sample& sample : r.samples) by_node[sample.node] = sample;
  for (const ExportedNode& n : kNodes) {
    ASSERT_TRUE(by_node.contains(n.instance)) << n.instance;
    const usage::Sample& sample = by_node.at(n.instance);
    EXPECT_NEAR(sample.milli_cpu, n.busy_cores * 1000, n.busy_cores * 1000 * kCpuTolerance) << n.instance;
    EXPECT_EQ(sample.memory, n.memory_used) << n.instance;
    // Evaluated when asked, not at the last scrape's time.
    EXPECT_GE(sample.unix_ms, before) << n.instance;
    EXPECT_LE(sample.unix_ms, usage::unix_ms_now()) << n.instance;
  }
}

// A change of usage reaches the source once a window of scrapes has seen it.
TEST(RealPrometheus, PrometheusSourceFollowsAChangeOfUsage) {
  Shared& s = shared();
  ASSERT_TRUE(s.prometheus) << s.error;
  ExportedNode changed = kChanging;
  changed.busy_cores = 3;
  changed.memory_used = 12 * kGi;
  s.exporter->set(changed);
  const auto source = source_for(*s.prometheus);
  usage::FetchResult last;
  auto reads_change = [&] {
    last = source->fetch();
    for (const usage::Sample& sample : last.samples) {
      if (sample.node == changed.instance)
        return sample.memory == changed.memory_used &&
               std::abs(sample.milli_cpu - changed.busy_cores * 1000) <=
                   changed.busy_cores * 1000 * kCpuTolerance;
    }
    return false;
  };
  EXPECT_TRUE(testing::wait_until(reads_change, kLimit)) << last.error;
  s.exporter->set(kChanging);
}

// examples/load-aware.yaml pointed at this Prometheus (the CPU query's window shortened, read every
// second), in the real kube-extender with the nodes the exporter reports: the load plugins score by
// their usage, the hottest node last, rather than every node alike as without a sample.
TEST(RealPrometheus, TheLoadAwareExampleScoresByTheUsagePrometheusReports) {
  Shared& s = shared();
  ASSERT_TRUE(s.prometheus) << s.error;
  std::string config = testing::slurp(std::filesystem::path(KEXT_SOURCE_DIR) / "examples/load-aware.yaml");
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"url: http://prometheus-server.monitoring.svc:9090",
       "url: " + s.prometheus->url() + "\n    cpuQuery: '" + cpu_query() + "'"},
      {"intervalSeconds: 30", "intervalSeconds: 1"},
  };
  for (const auto& [from, to] : edits) {
    const size_t at = config.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    config.replace(at, from.size(), to);
  }
  testing::TempDir dir("load-aware-example");
  testing::spit(dir.path() / "config.yaml", config);
  std::string nodes = R"({"kind":"List","apiVersion":"v1","items":[)";
  std::string names;
  std::vector<ExportedNode> all = kNodes;
  all.push_back(kChanging);
  for (const ExportedNode& n : all) {
    nodes += (names.empty() ? "" : ",") +
             testing::node_json(n.instance, std::to_string(n.cpus), std::to_string(n.memory_total));
    names += (names.empty() ? "\"" : ",\"") + n.instance + "\"";
  }
  testing::spit(dir.path() / "nodes.json", nodes + "]}");
  testing::ExtenderProcess extender({"--config", (dir.path() / "config.yaml").string(), "--snapshot",
                                     (dir.path() / "nodes.json").string()});
  ASSERT_GT(extender.port(), 0) << extender.log();
  httplib::Client client("127.0.0.1", extender.port());
  ASSERT_TRUE(testing::wait_until([&] {
    const auto r = client.Get("/metrics");
    return r && r->body.find("kube_extender_usage_sample_age_seconds ") != std::string::npos;
  })) << extender.log();
  const std::string body =
      R"({"Pod":)" + testing::pod_json("default", "p", "") + R"(,"NodeNames":[)" + names + "]}";
  const auto r = client.Post("/prioritize", body, "application/json");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : httplib::to_string(r.error()));
  rapidjson::Document scores;
  scores.Parse(r->body.c_str());
  ASSERT_TRUE(scores.IsArray()) << r->body;
  std::map<std::string, int64_t> by_node;
  for (const json::Value& h : scores.GetArray()) by_node[h["Host"].GetString()] = h["Score"].GetInt64();
  ASSERT_EQ(by_node.size(), all.size()) << r->body;
  for (const ExportedNode& n : all) {
    if (n.instance != "node-c") {
      EXPECT_LT(by_node["node-c"], by_node[n.instance]) << r->body;
    }
  }
}

// examples/prometheus-node-exporter.yaml's relabeling in a real Prometheus: a node's discovered labels
// (given statically: Debian's build has no kubernetes_sd_configs) make a target at its InternalIP on
// node-exporter's port, named by the node's name, its zone kept.
TEST(RealPrometheus, TheExampleScrapeConfigNamesEachTargetByItsNode) {
  std::string config =
      testing::slurp(std::filesystem::path(KEXT_SOURCE_DIR) / "examples/prometheus-node-exporter.yaml");
  const std::string discovery = "  kubernetes_sd_configs:\n  - role: node\n";
  const size_t at = config.find(discovery);
  ASSERT_NE(at, std::string::npos) << config;
  // A documentation address (TEST-NET-1): nothing answers the scrape, and nothing else receives it.
  config.replace(at, discovery.size(),
                 "  static_configs:\n"
                 "  - targets: ['192.0.2.10:10250']\n"
                 "    labels:\n"
                 "      __meta_kubernetes_node_name: node-a\n"
                 "      __meta_kubernetes_node_address_InternalIP: 192.0.2.10\n"
                 "      __meta_kubernetes_node_label_topology_kubernetes_io_zone: zone-1\n");
  PrometheusServer prometheus(config);
  std::string targets;
  const bool listed = testing::wait_until(
      [&] {
        targets = prometheus.get("/api/v1/targets");
        return targets.find("\"scrapeUrl\":\"http://192.0.2.10:9100/metrics\"") != std::string::npos;
      },
      kLimit);
  ASSERT_TRUE(listed) << targets;
  EXPECT_NE(targets.find("\"instance\":\"node-a\""), std::string::npos) << targets;
  EXPECT_NE(targets.find("\"zone\":\"zone-1\""), std::string::npos) << targets;
}

// Without the binary the test fails saying what to install, rather than waiting for a port.
TEST(RealPrometheus, AMissingBinaryIsAClearFailure) {
  const std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  setenv("PATH", "/nonexistent", 1);
  std::string message;
  try {
    PrometheusServer prometheus("127.0.0.1:1");
  } catch (const std::exception& e) {
    message = e.what();
  }
  setenv("PATH", path.c_str(), 1);
  EXPECT_NE(message.find("install Debian's prometheus package"), std::string::npos) << message;
}

}  // namespace
}  // namespace real_prometheus_test
}  // namespace kext
