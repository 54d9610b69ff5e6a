// /bind against the in-repo API server: the Binding is created, API errors come back in Error, the
// assumption stops a second pod from taking the same capacity, and concurrent binds are safe.
#include "extender/verbs/bind.h"

#include <gtest/gtest.h>

#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"
#include "tests/support/tcp_states.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace bind_test {
namespace {

using namespace std::chrono_literals;

std::string bind_body(const std::string& name, const std::string& node, const std::string& ns = "default") {
  return R"({"PodName":")" + name + R"(","PodNamespace":")" + ns + R"(","PodUID":"uid-)" + ns + "-" + name +
         R"(","Node":")" + node + "\"}";
}

std::string error_of(const Reply& r) {
  auto d = parse(r.body);
  return d.IsObject() && d.HasMember("Error") && d["Error"].IsString() ? d["Error"].GetString()
                                                                       : "<no Error>";
}

class Bind : public ::testing::Test {
 protected:
  void SetUp() override {
    api_.put("nodes", node_json("small", "1", "4Gi"));
    api_.put("nodes", node_json("big", "64", "256Gi"));
    for (int i = 0; i < 3; ++i) api_.put("pods", pod_json("default", "w" + std::to_string(i), "", "600m"));
    client_ = client_for(api_);
    live_ = std::make_unique<kube::LiveState>(*client_, server_.store(), fast_live_options());
    live_->start();
    ASSERT_TRUE(wait_until([&] { return server_.store().ready(); }));
  }

  int64_t cpu_on(const std::string& node) {
    const NodeInfo* n = server_.store().current()->find_node(node);
    return n ? n->requested.milli_cpu : 0;
  }

  bool filter_passes(const std::string& node) {
    const std::string req = R"({"Pod":{"metadata":{"name":"next","namespace":"default","uid":"next"},"spec":{
        "containers":[{"name":"c","resources":{"requests":{"cpu":"600m"}}}]}},"NodeNames":[")" +
                            node + "\"]}";
    auto d = parse(server_.post("/filter", req)->body);
    return d["NodeNames"].IsArray() && d["NodeNames"].Size() == 1;
  }

  FakeApiServer api_;
  TestServer server_{std::make_shared<ClusterState>()};
  std::unique_ptr<kube::ApiClient> client_;
  std::unique_ptr<kube::LiveState> live_;
};

TEST_F(Bind, CreatesTheBindingAndTheWatchConfirmsIt) {
  BindVerb verb(*client_, live_->cache(), 30s);
  Reply r = verb.bind(bind_body("w0", "big"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(error_of(r), "");
  auto b = api_.bindings();
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].name, "w0");
  EXPECT_EQ(b[0].node, "big");
  EXPECT_EQ(cpu_on("big"), 600);  // counted at once
  EXPECT_TRUE(wait_until(
      [&] { return server_.store().current()->find_pod("uid-default-w0")->pod->node_name == "big"; }));
  EXPECT_EQ(cpu_on("big"), 600);  // and once only after the watch shows it
}

TEST_F(Bind, ApiErrorsComeBackInErrorAndUndoTheAssumption) {
  BindVerb verb(*client_, live_->cache(), 30s);
  api_.fail_binds(500, "etcdserver: request timed out");
  Reply r = verb.bind(bind_body("w1", "small"));
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(error_of(r).find("etcdserver: request timed out"), std::string::npos) << r.body;
  EXPECT_NE(error_of(r).find("HTTP 500"), std::string::npos) << r.body;
  EXPECT_EQ(cpu_on("small"), 0);
  api_.fail_binds(0, "");

  Reply missing = verb.bind(bind_body("ghost", "small"));
  EXPECT_NE(error_of(missing).find("not found"), std::string::npos) << missing.body;

  ASSERT_EQ(error_of(verb.bind(bind_body("w1", "small"))), "");
  Reply again = verb.bind(bind_body("w1", "big"));
  EXPECT_NE(error_of(again).find("already assigned"), std::string::npos) << again.body;
}

// The API server closes a keep-alive connection that sat idle (FakeApiServer after 1 s; a restart closes
// them all): the next bind must not fail on the dead pooled connection (bench/soak found binds failing
// with "Write" after each pause).
TEST_F(Bind, ABindAfterTheServerClosedTheIdleConnectionSucceeds) {
  BindVerb verb(*client_, live_->cache(), 30s);
  EXPECT_EQ(error_of(verb.bind(bind_body("w0", "big"))), "");
  // Until every connection open now has closed: the watches' streams end at their idle timeout, and
  // the bind's pooled connection only when the server closes it.
  const std::set<int> open = established_to(api_.port());
  ASSERT_TRUE(wait_until([&] { return all_closed(open, api_.port()); }));
  EXPECT_EQ(error_of(verb.bind(bind_body("w1", "big"))), "");
  EXPECT_EQ(api_.bindings().size(), 2u);
}

TEST_F(Bind, MalformedRequestsAre400) {
  BindVerb verb(*client_, live_->cache(), 30s);
  EXPECT_EQ(verb.bind("").status, 400);
  EXPECT_EQ(verb.bind(R"({"PodName":"a","PodNamespace":"default"})").status, 400);
  Reply traversal = verb.bind(R"({"PodName":"../../nodes/x","PodNamespace":"default","Node":"n"})");
  EXPECT_EQ(traversal.status, 400);
  EXPECT_NE(error_of(traversal).find("PodName"), std::string::npos);
  EXPECT_TRUE(api_.bindings().empty());
}

TEST_F(Bind, AssumptionPreventsADoubleBookingUntilItsTtl) {
  api_.set_bind_updates_pod(false);  // the watch will not show these binds: only the assumptions count
  // A TTL no check below can outlast, however slow the build.
  BindVerb verb(*client_, live_->cache(), 1h);
  ASSERT_TRUE(filter_passes("small"));
  ASSERT_EQ(error_of(verb.bind(bind_body("w2", "small"))), "");
  EXPECT_FALSE(filter_passes("small"));  // 600m + 600m > 1 CPU: the next pod cannot have it
  EXPECT_EQ(cpu_on("small"), 600);
  // Never confirmed: once the TTL has passed, the capacity comes back.
  live_->cache().expire_assumed(StateCache::Clock::now() + 2h);
  EXPECT_TRUE(filter_passes("small"));
  EXPECT_EQ(cpu_on("small"), 0);
  // Housekeeping expires assumptions as their TTLs pass: the bind counted the pod before it returned.
  BindVerb brief(*client_, live_->cache(), 50ms);
  ASSERT_EQ(error_of(brief.bind(bind_body("w0", "small"))), "");
  EXPECT_TRUE(wait_until([&] { return cpu_on("small") == 0 && filter_passes("small"); }));
}

TEST_F(Bind, ConcurrentBindsAreAllCounted) {
  for (int i = 0; i < 24; ++i) api_.put("pods", pod_json("load", "c" + std::to_string(i), "", "100m"));
  ASSERT_TRUE(wait_until([&] { return server_.store().current()->find_pod("uid-load-c23") != nullptr; }));
  api_.set_bind_updates_pod(false);
  BindVerb verb(*client_, live_->cache(), 30s);
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 24; i += 8)
        if (error_of(verb.bind(bind_body("c" + std::to_string(i), "big", "load"))).empty()) ++ok;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 24);
  EXPECT_EQ(api_.bindings().size(), 24u);
  EXPECT_EQ(cpu_on("big"), 2400);
}

}  // namespace
}  // namespace bind_test
}  // namespace kext::testing
