// The real binary with the Kubernetes API as its source: clear start-up errors, readiness after the
// initial lists, decisions from the watched state, and /bind through the API.
#include <gtest/gtest.h>

#include "tests/support/extender_process.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace api_source_test {
namespace {

using namespace std::chrono_literals;

std::string start_up_error(const std::vector<std::string>& args) {
  ExtenderProcess p(args);
  EXPECT_EQ(p.port(), 0) << "expected a start-up failure, but it listens";
  EXPECT_EQ(p.wait_exit(10s), 1);
  return p.log();
}

TEST(ApiSource, StartUpErrorsNameTheProblem) {
  EXPECT_NE(start_up_error({"--kubeconfig", "/nonexistent/kubeconfig"})
                .find("--kubeconfig /nonexistent/kubeconfig: No such file"),
            std::string::npos);
  FakeApiServer api;
  const std::string kc = write_temp("startup-kubeconfig", api.kubeconfig());
  EXPECT_NE(start_up_error({"--kubeconfig", kc, "--context", "nope"}).find("context \"nope\" not found"),
            std::string::npos);
  EXPECT_NE(start_up_error({"--kubeconfig", kc, "--context", "other"})
                .find("names cluster \"elsewhere\", which is not defined"),
            std::string::npos);
  const std::string refused = write_temp("refused-kubeconfig",
                                         "clusters:\n- cluster:\n    server: https://127.0.0.1:1\n"
                                         "  name: c\ncontexts:\n- context:\n    cluster: c\n  name: x\n"
                                         "current-context: x\n");
  EXPECT_NE(start_up_error({"--kubeconfig", refused})
                .find("cannot reach the Kubernetes API at https://127.0.0.1:1"),
            std::string::npos);
  // Without the client certificate the API refuses the handshake: also a start-up error.
  EXPECT_NE(
      start_up_error({"--api-server", api.url(), "--api-ca-file", std::string(KEXT_CERTS_DIR) + "/ca.crt"})
          .find("cannot reach the Kubernetes API"),
      std::string::npos);
}

TEST(ApiSource, FlagConflictsAreRejected) {
  ExtenderProcess p({"--in-cluster", "--snapshot", "x.json"});
  EXPECT_EQ(p.wait_exit(10s), 2);
  EXPECT_NE(p.log().find("alternative cluster-state sources"), std::string::npos) << p.log();
  ExtenderProcess q({"--enable-bind"});
  EXPECT_EQ(q.wait_exit(10s), 2);
  EXPECT_NE(q.log().find("--enable-bind needs the Kubernetes API"), std::string::npos) << q.log();
}

// As kubectl: with no source flag, KUBECONFIG names the kubeconfig (its first file that exists).
TEST(ApiSource, KubeconfigVariableIsTheSourceWhenNoFlagNamesOne) {
  FakeApiServer api;
  api.put("nodes", node_json("n1", "2", "4Gi"));
  const std::string kc = write_temp("env-kubeconfig", api.kubeconfig(true));
  ExtenderProcess p(KEXT_BINARY, {"--enable-bind", "--shutdown-delay-seconds=0"}, "", 60s,
                    {"KUBECONFIG=/nonexistent/kubeconfig:" + kc});
  ASSERT_GT(p.port(), 0) << p.log();
  EXPECT_NE(p.log().find("kubeconfig " + kc + " from KUBECONFIG=/nonexistent/kubeconfig:" + kc),
            std::string::npos)
      << p.log();
  httplib::Client c("127.0.0.1", p.port());
  EXPECT_TRUE(wait_until([&] {
    auto r = c.Get("/readyz");
    return r && r->status == 200;  // the lists came from that API server
  }));
  kill(p.pid(), SIGTERM);
  EXPECT_EQ(p.wait_exit(10s), 0) << p.log();

  ExtenderProcess none(KEXT_BINARY, {}, "", 60s, {"KUBECONFIG=/nonexistent/a:/nonexistent/b"});
  EXPECT_EQ(none.wait_exit(10s), 2);
  EXPECT_NE(none.log().find("KUBECONFIG=\"/nonexistent/a:/nonexistent/b\": none of its files exists"),
            std::string::npos)
      << none.log();
}

TEST(ApiSource, ServesFromTheWatchAndBindsThroughTheApi) {
  FakeApiServer api;
  api.put("nodes", node_json("n1", "2", "4Gi"));
  api.put("pods", pod_json("default", "hog", "n1", "1500m"));
  api.put("pods", pod_json("default", "waiting", "", "400m"));
  const std::string kc = write_temp("binary-kubeconfig", api.kubeconfig(true));
  ExtenderProcess p({"--kubeconfig", kc, "--enable-bind"});
  ASSERT_GT(p.port(), 0) << p.log();
  httplib::Client c("127.0.0.1", p.port());
  ASSERT_TRUE(wait_until([&] {
    auto r = c.Get("/readyz");
    return r && r->status == 200;
  }));
  const std::string filter =
      R"({"Pod":{"metadata":{"name":"q","namespace":"default","uid":"q"},"spec":{"containers":[
      {"name":"c","resources":{"requests":{"cpu":"600m"}}}]}},"NodeNames":["n1"]})";
  auto r = c.Post("/filter", filter, "application/json");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("Insufficient cpu"), std::string::npos) << r->body;  // 1500m + 600m > 2

  auto b = c.Post(
      "/bind", R"({"PodName":"waiting","PodNamespace":"default","PodUID":"uid-default-waiting","Node":"n1"})",
      "application/json");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->status, 200);
  EXPECT_EQ(b->body, R"({"Error":""})");
  ASSERT_EQ(api.bindings().size(), 1u);
  EXPECT_EQ(api.bindings()[0].node, "n1");

  api.remove("pods", "default/hog");
  EXPECT_TRUE(wait_until([&] {
    auto f = c.Post("/filter", filter, "application/json");
    return f && f->body.find("\"NodeNames\":[\"n1\"]") != std::string::npos;  // 400m + 600m fits now
  }));
  ASSERT_TRUE(wait_until([&] {
    auto m = c.Get("/metrics");
    return m && m->body.find("kube_extender_watch_lag_seconds{resource=\"pods\"}") != std::string::npos;
  }));
  kill(p.pid(), SIGTERM);
  EXPECT_EQ(p.wait_exit(10s), 0) << p.log();
}

}  // namespace
}  // namespace api_source_test
}  // namespace kext::testing
