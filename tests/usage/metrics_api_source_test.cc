#include "usage/metrics_api_source.h"

#include <gtest/gtest.h>

#include "common/rfc3339.h"
#include "kube/client/api_config.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/live_cluster.h"
#include "tests/support/wait.h"
#include "usage/poller.h"

namespace kext::usage {
namespace metrics_api_source_test {
namespace {

using namespace std::chrono_literals;

std::string node_metrics(const std::string& node, const std::string& cpu, const std::string& memory,
                         const std::string& timestamp = "2026-01-28T10:51:37Z") {
  return R"({"kind":"NodeMetrics","apiVersion":"metrics.k8s.io/v1beta1","metadata":{"name":")" + node +
         R"("},"timestamp":")" + timestamp + R"(","window":"20.0s","usage":{"cpu":")" + cpu +
         R"(","memory":")" + memory + R"("}})";
}

TEST(MetricsApiSource, ParsesQuantities) {
  struct Case {
    std::string cpu, memory;
    int64_t milli_cpu, bytes;
  };
  for (const Case& c : std::vector<Case>{{"123456789n", "1024Ki", 124, 1 << 20},
                                         {"250m", "1Gi", 250, int64_t{1} << 30},
                                         {"2", "1500M", 2000, 1500000000},
                                         {"0", "0", 0, 0}}) {
    const FetchResult r = parse_node_metrics_list(R"({"kind":"NodeMetricsList","items":[)" +
                                                  node_metrics("n1", c.cpu, c.memory) + "]}");
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(r.samples.size(), 1u);
    EXPECT_EQ(r.samples[0], (Sample{"n1", c.milli_cpu, c.bytes, int64_t{1769597497} * 1000})) << c.cpu;
  }
}

TEST(MetricsApiSource, ParseErrorsNameTheItem) {
  struct Case {
    std::string body, error;
  };
  for (const Case& c : std::vector<Case>{
           {"[]", "NodeMetricsList: not a JSON object"},
           {R"({"items":{}})", "NodeMetricsList: items is not an array"},
           {R"({"items":[)" + node_metrics("n1", "1", "1") + "," + node_metrics("n2", "1K", "1") + "]}",
            "NodeMetricsList: items[1].usage.cpu: \"1K\": unknown suffix \"K\""},
           {R"({"items":[)" + node_metrics("n1", "1", "1", "yesterday") + "]}",
            "NodeMetricsList: items[0].timestamp: missing or not an RFC 3339 time"},
           {R"({"items":[{"metadata":{}}]})", "NodeMetricsList: items[0].metadata.name: missing"},
       }) {
    EXPECT_EQ(parse_node_metrics_list(c.body).error, c.error) << c.body;
  }
  EXPECT_TRUE(parse_node_metrics_list(R"({"kind":"NodeMetricsList","items":[]})").ok());
}

// Through the API client against the in-repo API server: samples while it serves the list; a source
// that fails makes the view not fresh, and fresh again once it answers.
TEST(MetricsApiSource, ReadsNodeMetricsFromTheApiServer) {
  testing::FakeApiServer api;
  api.put("nodemetrics", node_metrics("n1", "500m", "1Gi"));
  api.put("nodemetrics", node_metrics("n2", "1", "2Gi"));
  kube::ApiClient client(kube::kubeconfig_config(testing::write_temp("usage-kubeconfig", api.kubeconfig())),
                         kube::ApiClient::Timeouts{10000ms, 10000ms});
  MetricsApiSource source(client);
  const FetchResult r = source.fetch();
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[1], (Sample{"n2", 1000, int64_t{2} << 30, int64_t{1769597497} * 1000}));

  int64_t now_ms = int64_t{1769597497} * 1000 + 5000;
  int errors = 0;
  Store store(
      StoreSettings{},
      [](std::string_view) {
        return Allocatable{2000, int64_t{4} << 30};
      },
      [&now_ms] { return now_ms; }, [](std::string_view) {});
  Poller poller(source, store, 1h, [&errors] { ++errors; });
  poller.poll_once();
  ASSERT_TRUE(store.current()->fresh());
  EXPECT_NEAR(store.current()->find("n1")->cpu_mean, 0.25, 1e-12);

  api.fail_requests(1, 503);
  poller.poll_once();
  EXPECT_FALSE(store.current()->fresh());
  EXPECT_EQ(errors, 1);
  poller.poll_once();
  EXPECT_TRUE(store.current()->fresh());
}

// The poller's thread fetches at start and stops when asked, however long its interval.
TEST(MetricsApiSource, PollerStartsAndStops) {
  testing::FakeApiServer api;
  // Measured now: a sample older than the store's window is dropped at once.
  api.put("nodemetrics", node_metrics("n1", "500m", "1Gi", rfc3339_seconds(unix_ms_now() / 1000)));
  kube::ApiClient client(kube::kubeconfig_config(testing::write_temp("usage-kubeconfig-2", api.kubeconfig())),
                         kube::ApiClient::Timeouts{10000ms, 10000ms});
  MetricsApiSource source(client);
  Store store(StoreSettings{}, {}, unix_ms_now, [](std::string_view) {});
  Poller poller(source, store, 1h);
  poller.start();
  EXPECT_TRUE(testing::wait_until([&] { return store.current()->find("n1") != nullptr; }));
  poller.stop();
}

}  // namespace
}  // namespace metrics_api_source_test
}  // namespace kext::usage
