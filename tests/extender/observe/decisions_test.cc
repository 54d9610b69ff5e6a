// Filter and prioritize decisions through HTTP on a small snapshot, in both node modes, plus the codec's
// tolerance for lowercase keys and nulls.
#include <gtest/gtest.h>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace decisions_test {
namespace {

std::string node_json(const std::string& name, const std::string& cpu, const std::string& mem,
                      const std::string& extra_spec = "") {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"(","labels":{"zone":"z1"}},"spec":{)" +
         extra_spec + R"(},"status":{"allocatable":{"cpu":")" + cpu + R"(","memory":")" + mem +
         R"(","pods":"110"}}})";
}

std::string pod_json(const std::string& name, const std::string& node, const std::string& cpu,
                     const std::string& mem, const std::string& phase = "Running") {
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-)" + name +
         R"("},"spec":{"nodeName":")" + node +
         R"(","containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu + R"(","memory":")" + mem +
         R"("}}}]},"status":{"phase":")" + phase + R"("}})";
}

// n1: empty 4 cpu. n2: 3.5 of 4 cpu used. n3: 1 of 4 cpu used by a Running pod plus a Succeeded pod
// that must not count. n4: cordoned.
std::string cluster_json() {
  return R"({"kind":"List","items":[)" + node_json("n1", "4", "8Gi") + "," + node_json("n2", "4", "8Gi") +
         "," + node_json("n3", "4", "8Gi") + "," + node_json("n4", "4", "8Gi", R"("unschedulable":true)") +
         "," + pod_json("p2", "n2", "3500m", "1Gi") + "," + pod_json("p3", "n3", "1", "1Gi") + "," +
         pod_json("done", "n3", "3", "1Gi", "Succeeded") + "]}";
}

const std::string kPod =
    R"({"metadata":{"name":"new","namespace":"default","uid":"u-new"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}})";

std::string names_request(const std::string& pod = kPod) {
  return R"({"Pod":)" + pod + R"(,"Nodes":null,"NodeNames":["n1","n2","n3","n4","ghost"]})";
}

std::string full_request() {
  return R"({"Pod":)" + kPod + R"(,"Nodes":{"metadata":{},"items":[)" + node_json("n1", "4", "8Gi") + "," +
         node_json("n2", "4", "8Gi") + "," + node_json("n3", "4", "8Gi") + "]},\"NodeNames\":null}";
}

TEST(Decisions, NamesModeFilterUsesSnapshotPods) {
  TestServer server(state_from_json(cluster_json()));
  auto res = server.post("/filter", names_request());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto r = parse(res->body);
  EXPECT_TRUE(r["Nodes"].IsNull());
  ASSERT_EQ(r["NodeNames"].Size(), 2u) << res->body;
  EXPECT_STREQ(r["NodeNames"][0].GetString(), "n1");
  EXPECT_STREQ(r["NodeNames"][1].GetString(), "n3");
  EXPECT_STREQ(r["FailedNodes"]["n2"].GetString(), "Insufficient cpu");
  EXPECT_STREQ(r["FailedAndUnresolvableNodes"]["n4"].GetString(), "node(s) were unschedulable");
  ASSERT_TRUE(r["FailedAndUnresolvableNodes"].HasMember("ghost"));
  EXPECT_EQ(r["FailedNodes"].MemberCount() + r["FailedAndUnresolvableNodes"].MemberCount(), 3u);
}

TEST(Decisions, FullModeEchoesPassingNodeObjects) {
  TestServer server(state_from_json(cluster_json()));
  auto res = server.post("/filter", full_request());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto r = parse(res->body);
  EXPECT_TRUE(r["NodeNames"].IsNull());
  ASSERT_TRUE(r["Nodes"].IsObject());
  ASSERT_EQ(r["Nodes"]["items"].Size(), 2u);
  EXPECT_STREQ(r["Nodes"]["items"][0]["metadata"]["name"].GetString(), "n1");
  EXPECT_STREQ(r["Nodes"]["items"][0]["metadata"]["labels"]["zone"].GetString(), "z1");
  EXPECT_STREQ(r["Nodes"]["items"][0]["status"]["allocatable"]["cpu"].GetString(), "4");
  EXPECT_STREQ(r["Nodes"]["items"][1]["metadata"]["name"].GetString(), "n3");
  EXPECT_STREQ(r["FailedNodes"]["n2"].GetString(), "Insufficient cpu");
}

// The request's node object wins over the snapshot's: n1 shrunk to 500m no longer fits.
TEST(Decisions, FullModeRequestObjectOverridesSnapshotNode) {
  TestServer server(state_from_json(cluster_json()));
  std::string body = R"({"Pod":)" + kPod + R"(,"Nodes":{"items":[)" + node_json("n1", "500m", "8Gi") + "]}}";
  auto res = server.post("/filter", body);
  ASSERT_TRUE(res);
  auto r = parse(res->body);
  EXPECT_EQ(r["Nodes"]["items"].Size(), 0u);
  EXPECT_STREQ(r["FailedAndUnresolvableNodes"]["n1"].GetString(), "Insufficient cpu");
}

TEST(Decisions, PrioritizePrefersTheEmptierNode) {
  TestServer server(state_from_json(cluster_json()),
                    R"({"kind":"Policy","apiVersion":"v1","predicates":[{"name":"PodFitsResources"}],
                        "priorities":[{"name":"LeastRequestedPriority","weight":1}]})");
  std::string body = R"({"Pod":)" + kPod + R"(,"NodeNames":["n1","n3","ghost"]})";
  auto res = server.post("/prioritize", body);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto r = parse(res->body);
  ASSERT_EQ(r.Size(), 3u);
  // n1: cpu (4000-1000)*10/4000 = 7, mem (8Gi-1Gi)*10/8Gi = 8 -> 7. n3: cpu 5, mem 7 -> 6.
  EXPECT_STREQ(r[0]["Host"].GetString(), "n1");
  EXPECT_EQ(r[0]["Score"].GetInt64(), 7);
  EXPECT_STREQ(r[1]["Host"].GetString(), "n3");
  EXPECT_EQ(r[1]["Score"].GetInt64(), 6);
  EXPECT_EQ(r[2]["Score"].GetInt64(), 0);
}

TEST(Codec, LowercaseEnvelopeKeysAreAccepted) {
  TestServer server(state_from_json(cluster_json()));
  std::string body = R"({"pod":)" + kPod + R"(,"nodes":null,"nodenames":["n1","n2"]})";
  auto res = server.post("/filter", body);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto r = parse(res->body);
  ASSERT_EQ(r["NodeNames"].Size(), 1u);
  EXPECT_STREQ(r["NodeNames"][0].GetString(), "n1");
}

TEST(Codec, NullsWhereGoMayWriteThemAreAccepted) {
  TestServer server(state_from_json(cluster_json()));
  std::string pod =
      R"({"metadata":{"name":"x","namespace":"default","uid":"u","labels":null,"creationTimestamp":null},
          "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"},"limits":null}}],"nodeSelector":null,
          "tolerations":null,"affinity":null,"initContainers":null,"overhead":null},"status":{"startTime":null}})";
  auto res = server.post("/filter", names_request(pod));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(parse(res->body)["NodeNames"].Size(), 2u);
}

TEST(Codec, EmptyNodeNamesGetsAnEmptyReply) {
  TestServer server(state_from_json(cluster_json()));
  auto res = server.post("/filter", R"({"Pod":)" + kPod + R"(,"NodeNames":[]})");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  auto r = parse(res->body);
  EXPECT_EQ(r["NodeNames"].Size(), 0u);
}

TEST(Server, PathPrefixServesVerbsUnderIt) {
  ServerConfig cfg;
  cfg.path_prefix = "/scheduler/";
  TestServer server(state_from_json(cluster_json()), std::string(default_policy_json()), cfg);
  auto res = server.post("/scheduler/filter", names_request());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  auto bare = server.post("/filter", names_request());
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, 404);
}

TEST(Server, HealthReadyVersion) {
  TestServer server(state_from_json(cluster_json()));
  for (const char* path : {"/healthz", "/readyz", "/version"}) {
    auto res = server.client().Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path;
  }
  auto v = parse(server.client().Get("/version")->body);
  EXPECT_TRUE(v.HasMember("version"));
}

TEST(Server, KeepAliveConnectionServesManyRequests) {
  TestServer server(state_from_json(cluster_json()));
  // cpp-httplib's default closes a keep-alive connection after 5 requests; ours must not.
  for (int i = 0; i < 50; ++i) {
    auto res = server.post("/filter", names_request());
    ASSERT_TRUE(res) << i;
    ASSERT_EQ(res->status, 200);
  }
}

}  // namespace
}  // namespace decisions_test
}  // namespace kext::testing
