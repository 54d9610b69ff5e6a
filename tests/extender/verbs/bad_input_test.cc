// A catalogue of hostile and malformed requests: each gets a 4xx with a JSON Error naming the problem,
// and the server answers the next good request normally.
#include <gtest/gtest.h>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace bad_input_test {
namespace {

struct BadCase {
  const char* name;
  std::string method;  // POST unless set
  std::string path;
  std::string body;
  std::string content_type;
  int status;
  std::string error_contains;
};

const std::string kGoodPod =
    R"({"metadata":{"name":"p","namespace":"d","uid":"u"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]}})";

std::string with_pod(const std::string& pod) { return R"({"Pod":)" + pod + R"(,"NodeNames":["n1"]})"; }
std::string with_container_requests(const std::string& requests) {
  return with_pod(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":)" +
                  requests + "}}]}}");
}

std::vector<BadCase> catalogue() {
  const std::string json = "application/json";
  std::string deep(100000, '[');
  std::vector<BadCase> c = {
      {"empty body", "POST", "/filter", "", json, 400, "empty request body"},
      {"whitespace body", "POST", "/filter", "   ", json, 400, "malformed JSON"},
      {"truncated json", "POST", "/filter", R"({"Pod":{"metadata":)", json, 400, "malformed JSON"},
      {"not json", "POST", "/filter", "hello", json, 400, "malformed JSON"},
      {"trailing comma", "POST", "/filter", R"({"Pod":{},})", json, 400, "malformed JSON"},
      {"top-level array", "POST", "/filter", "[]", json, 400, "expected a JSON object"},
      {"top-level string", "POST", "/prioritize", R"("x")", json, 400, "expected a JSON object"},
      {"top-level null", "POST", "/filter", "null", json, 400, "expected a JSON object"},
      {"missing Pod", "POST", "/filter", R"({"NodeNames":["n1"]})", json, 400, "Pod: missing"},
      {"null Pod", "POST", "/prioritize", R"({"Pod":null,"NodeNames":["n1"]})", json, 400, "Pod: missing"},
      {"Pod is a string", "POST", "/filter", R"({"Pod":"p","NodeNames":["n1"]})", json, 400,
       "Pod: expected object"},
      {"no nodes at all", "POST", "/filter", R"({"Pod":)" + kGoodPod + "}", json, 400, "Nodes and NodeNames"},
      {"NodeNames is an object", "POST", "/filter", R"({"Pod":)" + kGoodPod + R"(,"NodeNames":{}})", json,
       400, "NodeNames: expected array"},
      {"NodeNames holds a number", "POST", "/filter", R"({"Pod":)" + kGoodPod + R"(,"NodeNames":[1]})", json,
       400, "NodeNames[0]: expected string"},
      {"Nodes is an array", "POST", "/filter", R"({"Pod":)" + kGoodPod + R"(,"Nodes":[]})", json, 400,
       "Nodes: expected object"},
      {"Nodes.items is an object", "POST", "/filter", R"({"Pod":)" + kGoodPod + R"(,"Nodes":{"items":{}}})",
       json, 400, "Nodes.items: expected array"},
      {"node without a name", "POST", "/filter",
       R"({"Pod":)" + kGoodPod + R"(,"Nodes":{"items":[{"metadata":{}}]}})", json, 400,
       "Nodes.items[0].metadata.name"},
      {"node allocatable bad quantity", "POST", "/filter",
       R"({"Pod":)" + kGoodPod +
           R"(,"Nodes":{"items":[{"metadata":{"name":"n"},"status":{"allocatable":{"cpu":"4K"}}}]}})",
       json, 400, "Nodes.items[0].status.allocatable.cpu"},
      {"bad cpu suffix", "POST", "/filter", with_container_requests(R"({"cpu":"1K"})"), json, 400,
       "Pod.spec.containers[0].resources.requests.cpu"},
      {"empty quantity", "POST", "/filter", with_container_requests(R"({"memory":""})"), json, 400,
       "requests.memory"},
      {"quantity with space", "POST", "/filter", with_container_requests(R"({"memory":"1 Gi"})"), json, 400,
       "invalid quantity"},
      {"quantity is an object", "POST", "/filter", with_container_requests(R"({"cpu":{}})"), json, 400,
       "expected quantity string"},
      {"quantity exponent overflow", "POST", "/filter", with_container_requests(R"({"cpu":"1e999999999"})"),
       json, 400, "invalid quantity"},
      {"quantity double dot", "POST", "/filter", with_container_requests(R"({"cpu":"1.2.3"})"), json, 400,
       "invalid quantity"},
      {"containers is an object", "POST", "/filter", with_pod(R"({"spec":{"containers":{}}})"), json, 400,
       "Pod.spec.containers: expected array"},
      {"priority is a string", "POST", "/filter", with_pod(R"({"spec":{"priority":"5"}})"), json, 400,
       "Pod.spec.priority: expected integer"},
      {"priority is a float", "POST", "/filter", with_pod(R"({"spec":{"priority":5.5}})"), json, 400,
       "Pod.spec.priority: expected integer"},
      {"priority out of int32", "POST", "/filter", with_pod(R"({"spec":{"priority":99999999999}})"), json,
       400, "out of int32 range"},
      {"labels hold a number", "POST", "/filter", with_pod(R"({"metadata":{"labels":{"a":1}}})"), json, 400,
       "Pod.metadata.labels.a: expected string"},
      {"tolerations not array", "POST", "/filter", with_pod(R"({"spec":{"tolerations":"x"}})"), json, 400,
       "Pod.spec.tolerations: expected array"},
      {"affinity terms wrong type", "POST", "/filter",
       with_pod(
           R"({"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":5}}}}})"),
       json, 400, "nodeSelectorTerms: expected array"},
      {"bad startTime", "POST", "/filter", with_pod(R"({"status":{"startTime":"yesterday"}})"), json, 400,
       "Pod.status.startTime: not an RFC 3339 time"},
      {"deep nesting", "POST", "/filter", deep, json, 400, "malformed JSON"},
      {"invalid utf-8 escape", "POST", "/filter", R"({"Pod":{"metadata":{"name":"\uZZZZ"}}})", json, 400,
       "malformed JSON"},
      {"wrong content type", "POST", "/filter", with_pod(kGoodPod), "text/plain", 415, "Content-Type"},
      {"form content type", "POST", "/prioritize", with_pod(kGoodPod), "application/x-www-form-urlencoded",
       415, "Content-Type"},
      {"GET on filter", "GET", "/filter", "", json, 405, "use POST"},
      {"PUT on prioritize", "PUT", "/prioritize", with_pod(kGoodPod), json, 405, "use POST"},
      {"unknown path", "POST", "/nope", "{}", json, 404, "no such path"},
      {"prioritize with bad quantity", "POST", "/prioritize", with_container_requests(R"({"cpu":"--1"})"),
       json, 400, "invalid quantity"},
      // The API server refuses negative amounts; a saturating sum of mixed signs would depend on order.
      {"negative memory request", "POST", "/filter", with_container_requests(R"({"memory":"-8Ei"})"), json,
       400, "Pod.spec.containers[0].resources.requests.memory: must not be negative"},
      {"negative numeric cpu request", "POST", "/prioritize", with_container_requests(R"({"cpu":-1})"), json,
       400, "requests.cpu: must not be negative"},
      {"negative overhead", "POST", "/filter", with_pod(R"({"spec":{"overhead":{"memory":"-1Gi"}}})"), json,
       400, "Pod.spec.overhead.memory: must not be negative"},
      {"negative allocatable", "POST", "/filter",
       R"({"Pod":)" + kGoodPod +
           R"(,"Nodes":{"items":[{"metadata":{"name":"n"},"status":{"allocatable":{"memory":"-1"}}}]}})",
       json, 400, "Nodes.items[0].status.allocatable.memory: must not be negative"},
      {"preferred weight out of int32", "POST", "/prioritize",
       with_pod(
           R"({"spec":{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":4294967297,"preference":{}}]}}}})"),
       json, 400, "preferredDuringSchedulingIgnoredDuringExecution[0].weight: out of int32 range"},
  };
  return c;
}

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST(BadInputCatalogue, HasAtLeastThirtyCases) { EXPECT_GE(catalogue().size(), 30u); }

TEST(BadInputCatalogue, EveryCaseGetsA4xxJsonErrorAndTheServerKeepsServing) {
  ClusterStateBuilder b;
  Node n;
  n.name = "n1";
  n.allocatable.milli_cpu = 4000;
  n.allocatable.memory = 1LL << 33;
  n.allocatable.pods = 110;
  b.add_node(n);
  TestServer server(std::move(b).build());
  for (const auto& c : catalogue()) {
    SCOPED_TRACE(c.name);
    auto res = [&] {
      if (c.method == "GET") return server.client().Get(c.path.c_str());
      if (c.method == "PUT") return server.client().Put(c.path.c_str(), c.body, c.content_type.c_str());
      return server.post(c.path, c.body, c.content_type);
    }();
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, c.status) << res->body;
    auto r = parse(res->body);
    ASSERT_TRUE(r.IsObject()) << res->body;
    ASSERT_TRUE(r.HasMember("Error") && r["Error"].IsString()) << res->body;
    EXPECT_NE(std::string(r["Error"].GetString()).find(c.error_contains), std::string::npos)
        << "error was: " << r["Error"].GetString();
    auto good = server.post("/filter", with_pod(kGoodPod));
    ASSERT_TRUE(good);
    ASSERT_EQ(good->status, 200) << good->body;
    EXPECT_EQ(parse(good->body)["NodeNames"].Size(), 1u);
  }
}

TEST(BadInputCatalogue, OversizedBodyIsRefused) {
  ServerConfig cfg;
  cfg.limits.max_body_bytes = 4096;
  TestServer server(std::make_shared<const ClusterState>(), std::string(default_policy_json()), cfg);
  auto res = server.post("/filter", std::string(10000, ' '));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
}

TEST(BadInputCatalogue, UnimplementedVerbsAnswer404WithJsonError) {
  TestServer server(std::make_shared<const ClusterState>());
  auto res = server.post("/bind", R"({"PodName":"p","PodNamespace":"d","PodUID":"u","Node":"n"})");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_TRUE(parse(res->body).HasMember("Error"));
}

}  // namespace
}  // namespace bad_input_test
}  // namespace kext::testing
