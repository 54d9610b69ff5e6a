// The wiring: a StateStore's usage reaches the ClusterView the verbs build (kube/state/cluster_view.h),
// and the real kube-extender with a `usage:` section polls the metrics API of the in-repo API server and
// reports it in /metrics.
#include <gtest/gtest.h>
#include <httplib.h>

#include "common/rfc3339.h"
#include "kube/state/cluster_view.h"
#include "tests/support/extender_process.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/live_cluster.h"
#include "tests/support/test_server.h"
#include "tests/support/wait.h"
#include "usage/service.h"

namespace kext::usage {
namespace extender_usage_test {
namespace {

TEST(UsageWiring, TheClusterViewCarriesTheStoresUsage) {
  StateStore state;
  state.publish(testing::fixture_cluster());
  EXPECT_EQ(state.usage(), nullptr);
  Store store(
      StoreSettings{}, allocatable_from(state), unix_ms_now, [](std::string_view) {},
      [&state](std::shared_ptr<const UsageView> v) { state.publish_usage(std::move(v)); });
  store.record({Sample{"node-a", 500, 200, unix_ms_now()}});
  const auto view = cluster_view_of(state.current(), state.usage());
  ASSERT_NE(view, nullptr);
  ASSERT_NE(view->view.usage, nullptr);
  const NodeUsage* u = view->view.usage->find("node-a");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->milli_cpu, 500);
  EXPECT_DOUBLE_EQ(u->cpu_mean, 0.25);  // of the fixture's 2 allocatable cores
  EXPECT_TRUE(view->view.usage->fresh());
  EXPECT_EQ(cluster_view_of(state.current())->view.usage, nullptr);  // no source: none
}

TEST(UsageWiring, PrometheusLabelsResolveToNodes) {
  StateStore state;
  state.publish(testing::fixture_cluster());
  const NodeResolver resolve = node_resolver_from(state);
  EXPECT_EQ(resolve("node-a:9100"), "node-a");
  EXPECT_EQ(resolve("node-bb"), "node-bb");
  EXPECT_EQ(resolve("10.0.0.9:9100"), "");
}

std::string metrics_of(int port) {
  httplib::Client client("127.0.0.1", port);
  const httplib::Result r = client.Get("/metrics");
  return r && r->status == 200 ? r->body : std::string();
}

TEST(UsageWiring, TheExtenderPollsTheMetricsApiAndReportsIt) {
  testing::FakeApiServer api;
  api.put("nodemetrics", R"({"metadata":{"name":"n1"},"timestamp":")" +
                             rfc3339_seconds(unix_ms_now() / 1000) +
                             R"(","window":"20s","usage":{"cpu":"250m","memory":"1Gi"}})");
  const std::string config = testing::write_temp("usage-config.yaml", R"(apiVersion: kube-extender.io/v1alpha1
kind: ExtenderConfiguration
usage:
  source: metricsAPI
  intervalSeconds: 1
  staleAfterSeconds: 60
)");
  // stderr to a file: the test reads the WARNING while the process runs.
  testing::ExtenderProcess extender(
      KEXT_BINARY,
      {"--kubeconfig", testing::write_temp("usage-extender-kubeconfig", api.kubeconfig()), "--config",
       config},
      testing::write_temp("usage-extender-log", ""));
  ASSERT_GT(extender.port(), 0) << extender.log();
  EXPECT_TRUE(testing::wait_until([&] {
    return metrics_of(extender.port()).find("kube_extender_usage_sample_age_seconds ") != std::string::npos;
  }));
  EXPECT_NE(
      metrics_of(extender.port()).find("kube_extender_usage_fetch_errors_total{source=\"metricsAPI\"} 0"),
      std::string::npos);
  api.forbid("nodemetrics");
  EXPECT_TRUE(testing::wait_until([&] {
    return metrics_of(extender.port())
               .find("kube_extender_usage_fetch_errors_total{source=\"metricsAPI\"} 0") == std::string::npos;
  }));
  EXPECT_TRUE(testing::wait_until(
      [&] { return extender.log().find("WARNING: node usage is not fresh") != std::string::npos; }));
}

}  // namespace
}  // namespace extender_usage_test
}  // namespace kext::usage
