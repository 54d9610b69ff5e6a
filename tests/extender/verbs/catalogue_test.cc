// The algorithm catalogue through HTTP: each filter rejects its own node for its own reason, and each
// score, alone in a policy, decides the ranking.
#include <gtest/gtest.h>

#include <map>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace catalogue_test {
namespace {

std::string node(const std::string& name, const std::string& labels = "", const std::string& spec = "",
                 const std::string& images = "", const std::string& cpu = "4") {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"(","labels":{)" + labels + R"(}},"spec":{)" +
         spec + R"(},"status":{"allocatable":{"cpu":")" + cpu +
         R"(","memory":"8Gi","pods":"110"},"images":[)" + images + "]}}";
}

std::string bound_pod(const std::string& name, const std::string& node, const std::string& cpu) {
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-)" + name +
         R"("},"spec":{"nodeName":")" + node +
         R"(","containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
         R"(","memory":"1Gi"}}}]},"status":{"phase":"Running"}})";
}

std::string list(const std::vector<std::string>& items) {
  std::string out = R"({"kind":"List","items":[)";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]}";
}

std::string pod(const std::string& extra_spec = "") {
  return R"({"metadata":{"name":"p","namespace":"default","uid":"uid-p"},"spec":{)" + extra_spec +
         R"("containers":[{"name":"c","image":"registry.example.com/app:v1","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}})";
}

TEST(CatalogueFilters, EachFilterRejectsItsOwnNode) {
  TestServer server(state_from_json(list({
      node("fits", R"("zone":"z1")"),
      node("busy", R"("zone":"z1")", "", "", "2"),
      node("tiny", R"("zone":"z1")", "", "", "500m"),
      node("elsewhere", R"("zone":"z2")"),
      node("tainted", R"("zone":"z1")",
           R"("taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}])"),
      node("cordoned", R"("zone":"z1")", R"("unschedulable":true)"),
      bound_pod("filler", "busy", "1500m"),
  })));
  auto res =
      server.post("/filter", names_request(pod(R"("nodeSelector":{"zone":"z1"},)"),
                                           {"fits", "busy", "tiny", "elsewhere", "tainted", "cordoned"}));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto r = parse(res->body);
  ASSERT_EQ(r["NodeNames"].Size(), 1u) << res->body;
  EXPECT_STREQ(r["NodeNames"][0].GetString(), "fits");
  // Only a resource shortfall can be fixed by preemption, and only when the request fits the empty
  // node (current NodeResourcesFit: a request above allocatable is unresolvable).
  ASSERT_EQ(r["FailedNodes"].MemberCount(), 1u) << res->body;
  EXPECT_STREQ(r["FailedNodes"]["busy"].GetString(), "Insufficient cpu");
  const auto& unresolvable = r["FailedAndUnresolvableNodes"];
  ASSERT_EQ(unresolvable.MemberCount(), 4u) << res->body;
  EXPECT_STREQ(unresolvable["tiny"].GetString(), "Insufficient cpu");
  EXPECT_STREQ(unresolvable["elsewhere"].GetString(), "node(s) didn't match Pod's node affinity/selector");
  EXPECT_STREQ(unresolvable["tainted"].GetString(), "node(s) had untolerated taint {dedicated: gpu}");
  EXPECT_STREQ(unresolvable["cordoned"].GetString(), "node(s) were unschedulable");
}

TEST(CatalogueFilters, PodFitsHostRejectsEveryOtherNode) {
  TestServer server(state_from_json(list({node("fits"), node("other")})));
  auto res = server.post("/filter", names_request(pod(R"("nodeName":"fits",)"), {"fits", "other"}));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto r = parse(res->body);
  ASSERT_EQ(r["NodeNames"].Size(), 1u) << res->body;
  EXPECT_STREQ(r["NodeNames"][0].GetString(), "fits");
  EXPECT_STREQ(r["FailedAndUnresolvableNodes"]["other"].GetString(),
               "node(s) didn't match the requested node name");
}

TEST(CatalogueFilters, TolerationsAndAffinityLetThePodIn) {
  TestServer server(state_from_json(list({
      node("tainted", R"("zone":"z1")",
           R"("taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}])"),
      node("cordoned", R"("zone":"z1")", R"("unschedulable":true)"),
  })));
  const std::string spec =
      R"("tolerations":[{"key":"dedicated","operator":"Exists"},{"key":"node.kubernetes.io/unschedulable","operator":"Exists","effect":"NoSchedule"}],)"
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["z1"]}]}]}}},)";
  auto res = server.post("/filter", names_request(pod(spec), {"tainted", "cordoned"}));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(parse(res->body)["NodeNames"].Size(), 2u) << res->body;
}

// a: 1 of 4 cpu used, zone z2, holds the pod's image. b: 3 of 4 cpu used, a PreferNoSchedule taint.
// c: empty.
std::string scoring_cluster() {
  return list({
      node(
          "a", R"("zone":"z2")", "",
          R"({"names":["registry.example.com/app:v1","registry.example.com/app@sha256:abc"],"sizeBytes":900000000})"),
      node("b", R"("zone":"z1")", R"("taints":[{"key":"batch","value":"yes","effect":"PreferNoSchedule"}])"),
      node("c", R"("zone":"z1")"),
      bound_pod("on-a", "a", "1"),
      bound_pod("on-b", "b", "3"),
  });
}

std::map<std::string, int64_t> scores_with(const std::string& priority, const std::string& pod_json) {
  const std::string policy =
      R"({"kind":"Policy","apiVersion":"v1","predicates":[],"priorities":[)" + priority + "]}";
  TestServer server(state_from_json(scoring_cluster()), policy);
  return host_scores(server.post("/prioritize", names_request(pod_json, {"a", "b", "c"})), 3);
}

std::map<std::string, int64_t> scores_with(const std::string& name) {
  return scores_with(R"({"name":")" + name + R"(","weight":1})", pod());
}

TEST(CatalogueScores, LeastRequestedPrefersTheEmptiestNode) {
  auto s = scores_with("LeastRequestedPriority");
  // (cpu, memory) → ((4-1-used)*10/4 + (8-2)*10/8 or (8-1)*10/8) / 2
  EXPECT_EQ(s["c"], 7);
  EXPECT_EQ(s["a"], 6);
  EXPECT_EQ(s["b"], 3);
}

TEST(CatalogueScores, MostRequestedPrefersTheFullestNode) {
  auto s = scores_with("MostRequestedPriority");
  EXPECT_GT(s["b"], s["a"]);
  EXPECT_GT(s["a"], s["c"]);
}

TEST(CatalogueScores, BalancedResourceAllocationPrefersEqualFractions) {
  // cpu/memory fractions with the pod: a 2/4 vs 2/8, b 4/4 vs 2/8, c 1/4 vs 1/8.
  auto s = scores_with("BalancedResourceAllocation");
  EXPECT_EQ(s["c"], 8);
  EXPECT_EQ(s["a"], 7);
  EXPECT_EQ(s["b"], 0);  // a fraction of 1 scores 0
}

TEST(CatalogueScores, RequestedToCapacityRatioFollowsItsShape) {
  // A rising shape: the fuller node scores higher (bin packing).
  auto s = scores_with(
      R"({"name":"RequestedToCapacityRatioPriority","weight":1,"argument":{"requestedToCapacityRatioArguments":{"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}],"resources":[{"name":"cpu","weight":1}]}}})",
      pod());
  EXPECT_EQ(s["b"], 10);
  EXPECT_EQ(s["a"], 5);
  EXPECT_EQ(s["c"], 2);
}

TEST(CatalogueScores, NodeAffinityNormalisesPreferredWeights) {
  const std::string spec =
      R"("affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,"preference":{"matchExpressions":[{"key":"zone","operator":"In","values":["z2"]}]}}]}},)";
  auto s = scores_with(R"({"name":"NodeAffinityPriority","weight":1})", pod(spec));
  EXPECT_EQ(s["a"], 10);
  EXPECT_EQ(s["b"], 0);
  EXPECT_EQ(s["c"], 0);
}

TEST(CatalogueScores, TaintTolerationPenalisesIntoleratedPreferNoSchedule) {
  auto s = scores_with("TaintTolerationPriority");
  EXPECT_EQ(s["a"], 10);
  EXPECT_EQ(s["b"], 0);
  EXPECT_EQ(s["c"], 10);
}

TEST(CatalogueScores, ImageLocalityPrefersTheNodeWithTheImage) {
  auto s = scores_with("ImageLocalityPriority");
  EXPECT_GT(s["a"], 0);
  EXPECT_EQ(s["b"], 0);
  EXPECT_EQ(s["c"], 0);
}

TEST(CatalogueScores, WeightsCombineIntoOneScore) {
  // Taint (b: 0, others 10) weight 3 + MostRequested weight 1: Σ w·s / Σ w.
  auto taint = scores_with("TaintTolerationPriority");
  auto most = scores_with("MostRequestedPriority");
  auto s = scores_with(
      R"({"name":"TaintTolerationPriority","weight":3},{"name":"MostRequestedPriority","weight":1})", pod());
  for (const char* n : {"a", "b", "c"}) EXPECT_EQ(s[n], (3 * taint[n] + most[n]) / 4) << n;
}

}  // namespace
}  // namespace catalogue_test
}  // namespace kext::testing
