// Resource sums at the int64 limit through HTTP: "8Ei" is capped at int64 max by the quantity parser,
// and two of them wrapped to -2 bytes. A pod asking for them must be refused by /filter, a node holding
// them must be full, and /prioritize must answer scores within 0..10.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace saturation_test {
namespace {

std::string node(const std::string& name, const std::string& memory) {
  return R"({"kind":"Node","metadata":{"name":")" + name +
         R"("},"status":{"allocatable":{"cpu":"4","memory":")" + memory + R"(","pods":"110"}}})";
}

std::string containers(const std::vector<std::string>& memory, const std::string& cpu) {
  std::string out = "[";
  for (size_t i = 0; i < memory.size(); ++i) {
    out += std::string(i ? "," : "") + R"({"name":"c)" + std::to_string(i) +
           R"(","resources":{"requests":{"cpu":")" + cpu + R"(","memory":")" + memory[i] + R"("}}})";
  }
  return out + "]";
}

std::string bound_pod(const std::string& name, const std::string& node_name, const std::string& cpu,
                      const std::string& memory) {
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-)" + name +
         R"("},"spec":{"nodeName":")" + node_name + R"(","containers":)" + containers({memory}, cpu) +
         R"(},"status":{"phase":"Running"}})";
}

std::string pod(const std::vector<std::string>& memory, const std::string& cpu) {
  return R"({"metadata":{"name":"p","namespace":"default","uid":"uid-p"},"spec":{"containers":)" +
         containers(memory, cpu) + "}}";
}

// small: empty 4 cpu / 8Gi. busy: the same with a 1 cpu / 2Gi pod. full: 16Gi holding two 8Ei pods.
std::string cluster() {
  return R"({"kind":"List","items":[)" + node("small", "8Gi") + "," + node("busy", "8Gi") + "," +
         node("full", "16Gi") + "," + bound_pod("filler", "busy", "1", "2Gi") + "," +
         bound_pod("huge-1", "full", "100m", "8Ei") + "," + bound_pod("huge-2", "full", "100m", "8Ei") + "]}";
}

const std::vector<std::string> kNodes = {"small", "busy", "full"};
const std::string kTwo8Ei = pod({"8Ei", "8Ei"}, "100m");
const std::string kOne8Ei = pod({"8Ei"}, "500m");
const std::string kSmall = pod({"1Gi"}, "100m");

TEST(Saturation, FilterRejectsTwo8EiContainersAndCountsA8EiNodeAsFull) {
  TestServer server(state_from_json(cluster()));
  auto res = server.post("/filter", names_request(kTwo8Ei, kNodes));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto r = parse(res->body);
  EXPECT_EQ(r["NodeNames"].Size(), 0u) << res->body;
  // Larger than any node: preemption cannot help.
  ASSERT_EQ(r["FailedAndUnresolvableNodes"].MemberCount(), 3u) << res->body;
  EXPECT_STREQ(r["FailedAndUnresolvableNodes"]["small"].GetString(), "Insufficient memory");

  // The same pod against the request's own node object (nodeCacheCapable: false).
  res = server.post("/filter",
                    R"({"Pod":)" + kTwo8Ei + R"(,"Nodes":{"items":[)" + node("small", "8Gi") + "]}}");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  r = parse(res->body);
  EXPECT_EQ(r["Nodes"]["items"].Size(), 0u) << res->body;
  EXPECT_STREQ(r["FailedAndUnresolvableNodes"]["small"].GetString(), "Insufficient memory");

  // A node holding two 8Ei pods is full, not empty.
  res = server.post("/filter", names_request(kSmall, kNodes));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  r = parse(res->body);
  ASSERT_EQ(r["NodeNames"].Size(), 2u) << res->body;
  EXPECT_STREQ(r["FailedNodes"]["full"].GetString(), "Insufficient memory");
}

std::map<std::string, int64_t> scores(TestServer& server, const std::string& pod_json) {
  return host_scores(server.post("/prioritize", names_request(pod_json, kNodes)), kNodes.size());
}

std::string policy_with(const std::string& priority) {
  return R"({"kind":"Policy","apiVersion":"v1","predicates":[],"priorities":[)" + priority + "]}";
}

TEST(Saturation, PrioritizeScoresStayInRange) {
  const std::vector<std::pair<std::string, std::string>> policies = {
      {"default", std::string(default_policy_json())},
      {"LeastRequested", policy_with(R"({"name":"LeastRequestedPriority","weight":1})")},
      {"MostRequested", policy_with(R"({"name":"MostRequestedPriority","weight":1})")},
      {"BalancedResourceAllocation", policy_with(R"({"name":"BalancedResourceAllocation","weight":1})")},
      {"RequestedToCapacityRatio",
       policy_with(
           R"({"name":"RequestedToCapacityRatioPriority","weight":1,"argument":{"requestedToCapacityRatioArguments":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}})")},
  };
  for (const auto& [name, policy] : policies) {
    TestServer server(state_from_json(cluster()), policy);
    for (const auto& p : {kTwo8Ei, kOne8Ei, kSmall}) {
      for (const auto& [host, score] : scores(server, p)) {
        SCOPED_TRACE(name + " " + host + " " + p);
        EXPECT_GE(score, 0);
        EXPECT_LE(score, 10);
      }
    }
  }
}

TEST(Saturation, LeastRequestedScoresAn8EiRequestAsFullMemory) {
  TestServer server(state_from_json(cluster()),
                    policy_with(R"({"name":"LeastRequestedPriority","weight":1})"));
  // Memory scores 0 wherever 8Ei is involved; cpu: small (4000-200)*10/4000 = 9, busy 7, full 9.
  auto s = scores(server, kTwo8Ei);
  EXPECT_EQ(s["small"], 4);
  EXPECT_EQ(s["busy"], 3);
  EXPECT_EQ(s["full"], 4);
  // One 8Ei on a node that already holds pods: the wrapped sum scored 2147483650 here.
  s = scores(server, kOne8Ei);
  EXPECT_EQ(s["busy"], 3);  // cpu (4000-1500)*10/4000 = 6
  // A small pod on the node holding two 8Ei pods: memory is full, cpu (4000-300)*10/4000 = 9.
  s = scores(server, kSmall);
  EXPECT_EQ(s["full"], 4);
}

}  // namespace
}  // namespace saturation_test
}  // namespace kext::testing
