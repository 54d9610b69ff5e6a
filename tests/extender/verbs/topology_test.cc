// PodTopologySpread, InterPodAffinity and NodePorts over HTTP, in both node modes: they count over the
// extender's whole cluster state, not only the request's nodes; and /preempt evicts the pod whose
// removal lifts an anti-affinity violation (SelectVictimsOnNode's PreFilter RemovePod).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace verbs_topology_test {
namespace {

std::string node(const std::string& name, const std::string& zone) {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" +
         name + R"(","topology.kubernetes.io/zone":")" + zone +
         R"("}},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}})";
}

// A running pod; `spec` adds to its spec (affinity, ports, priority).
std::string pod(const std::string& name, const std::string& node_name, const std::string& app,
                const std::string& spec = "", const std::string& cpu = "100m") {
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-)" + name +
         R"(","labels":{"app":")" + app + R"("}},"spec":{"nodeName":")" + node_name + R"(",)" + spec +
         R"("containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
         R"("}},"ports":[{"containerPort":80}]}]},"status":{"phase":"Running"}})";
}

const std::string kAntiWebOnHost =
    R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
    R"({"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}},)";
const std::string kHostPort =
    R"("containers":[{"name":"c","ports":[{"containerPort":80,"hostPort":8080}]}],)";

// Zone a: n1 (web-1), n2 (a pod holding host port 8080); zone b: n3, n4 (a pod that will not share
// its host with a web pod); n5 in zone b is in the state but never in a request.
std::shared_ptr<const ClusterState> cluster() {
  const std::vector<std::string> items = {
      node("n1", "a"),
      node("n2", "a"),
      node("n3", "b"),
      node("n4", "b"),
      node("n5", "b"),
      pod("web-1", "n1", "web"),
      R"({"kind":"Pod","metadata":{"name":"proxy","namespace":"default","uid":"uid-proxy"},"spec":{"nodeName":"n2",)" +
          kHostPort.substr(0, kHostPort.size() - 1) + R"(},"status":{"phase":"Running"}})",
      pod("guard", "n4", "guard", kAntiWebOnHost),
      pod("web-2", "n5", "web"),
  };
  std::string out = R"({"kind":"List","items":[)";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return state_from_json(out + "]}");
}

// One more web pod: host port 8080, spread over zones (DoNotSchedule, maxSkew 1), not on a host with
// another web pod.
const std::string kWebPod =
    R"({"metadata":{"name":"web-3","namespace":"default","uid":"uid-web-3","labels":{"app":"web"}},"spec":{)" +
    kAntiWebOnHost + kHostPort.substr(0, kHostPort.size() - 1) +
    R"(,"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",)"
    R"("whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"web"}}}]}})";

const std::vector<std::string> kNames = {"n1", "n2", "n3", "n4"};
// kube-scheduler's default profile: every plugin the extender has, at their default weights.
const std::string kModern = R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})";

std::map<std::string, std::string> members(const rapidjson::Document& reply, const char* key) {
  std::map<std::string, std::string> out;
  const auto it = reply.FindMember(key);
  if (it == reply.MemberEnd() || !it->value.IsObject()) return out;
  for (const auto& m : it->value.GetObject()) out[m.name.GetString()] = m.value.GetString();
  return out;
}

std::string full_request(const std::string& pod_json, const std::vector<std::string>& names) {
  std::string items;
  for (const auto& n : names)
    items += (items.empty() ? "" : ",") + node(n, n == "n1" || n == "n2" ? "a" : "b");
  return R"({"Pod":)" + pod_json + R"(,"Nodes":{"items":[)" + items + "]}}";
}

std::vector<std::string> passed(const rapidjson::Document& r) {
  std::vector<std::string> out;
  if (r.HasMember("NodeNames") && r["NodeNames"].IsArray()) {
    for (const auto& n : r["NodeNames"].GetArray()) out.push_back(n.GetString());
  } else if (r.HasMember("Nodes") && r["Nodes"].IsObject()) {
    for (const auto& n : r["Nodes"]["items"].GetArray()) out.push_back(n["metadata"]["name"].GetString());
  }
  return out;
}

TEST(TopologyOverHttp, FiltersCountTheWholeClusterInBothNodeModes) {
  TestServer server(cluster(), kModern);
  for (bool names_mode : {true, false}) {
    SCOPED_TRACE(names_mode ? "NodeNames" : "Nodes");
    auto res =
        server.post("/filter", names_mode ? names_request(kWebPod, kNames) : full_request(kWebPod, kNames));
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    const auto r = parse(res->body);
    // Zone a holds web-1, zone b web-2 (on n5, outside the request): one more web pod in zone a is
    // within maxSkew 1 only because n5's pod counts for zone b.
    EXPECT_EQ(passed(r), std::vector<std::string>{"n3"}) << res->body;
    EXPECT_EQ(members(r, "FailedNodes"),
              (std::map<std::string, std::string>{
                  {"n1", "node(s) didn't match pod anti-affinity rules"},
                  {"n2", "node(s) didn't have free ports for the requested pod ports"},
                  {"n4", "node(s) didn't satisfy existing pods anti-affinity rules"}}))
        << res->body;
    EXPECT_TRUE(members(r, "FailedAndUnresolvableNodes").empty()) << res->body;
  }
}

TEST(TopologyOverHttp, SpreadSkewFailsTheCrowdedZone) {
  // Without web-2 on n5, zone b has no web pod: zone a (web-1) is one over the minimum already.
  const std::string pod_json =
      R"({"metadata":{"name":"web-3","namespace":"default","uid":"uid-web-3","labels":{"app":"web"}},"spec":{)"
      R"("topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",)"
      R"("whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"web"}}}]}})";
  const std::string list = std::string(R"({"kind":"List","items":[)") + node("n1", "a") + "," +
                           node("n2", "a") + "," + node("n3", "b") + "," + pod("web-1", "n1", "web") + "]}";
  TestServer server(state_from_json(list), kModern);
  auto res = server.post("/filter", names_request(pod_json, {"n1", "n2", "n3"}));
  ASSERT_TRUE(res);
  const auto r = parse(res->body);
  EXPECT_EQ(passed(r), std::vector<std::string>{"n3"}) << res->body;
  EXPECT_EQ(members(r, "FailedNodes"), (std::map<std::string, std::string>{
                                           {"n1", "node(s) didn't match pod topology spread constraints"},
                                           {"n2", "node(s) didn't match pod topology spread constraints"}}))
      << res->body;
}

TEST(TopologyOverHttp, PreferredAntiAffinityScoresTheOtherZoneHigher) {
  const std::string only_affinity =
      R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration",
    "plugins":{"score":{"disabled":[{"name":"*"}],"enabled":[{"name":"InterPodAffinity"}]}}})";
  const std::string pod_json =
      R"({"metadata":{"name":"web-3","namespace":"default","uid":"uid-web-3","labels":{"app":"web"}},"spec":{)"
      R"("affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,)"
      R"("podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}}]}}}})";
  TestServer server(cluster(), only_affinity);
  for (bool names_mode : {true, false}) {
    SCOPED_TRACE(names_mode ? "NodeNames" : "Nodes");
    auto res = server.post("/prioritize",
                           names_mode ? names_request(pod_json, kNames) : full_request(pod_json, kNames));
    // n1 holds a web pod (−100 there), the others none: normalised to 0..100, sent as /10. n5's web
    // pod is outside the request and does not lower any of these.
    EXPECT_EQ(host_scores(res, 4),
              (std::map<std::string, int64_t>{{"n1", 0}, {"n2", 10}, {"n3", 10}, {"n4", 10}}));
  }
}

TEST(TopologyOverHttp, PreemptionEvictsThePodThatBlocksAntiAffinity) {
  // n1 has room for the preemptor; only web-1's presence (priority 0) stands in its way.
  const std::string preemptor =
      R"({"metadata":{"name":"web-3","namespace":"default","uid":"uid-web-3","labels":{"app":"web"}},"spec":{)" +
      kAntiWebOnHost +
      R"("priority":1000,"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]}})";
  TestServer server(cluster(), kModern);
  auto res = server.post(
      "/preempt",
      R"({"Pod":)" + preemptor +
          R"(,"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":"uid-web-1"}],"NumPDBViolations":0}}})");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const auto r = parse(res->body);
  ASSERT_TRUE(r.HasMember("NodeNameToMetaVictims") && r["NodeNameToMetaVictims"].HasMember("n1"))
      << res->body;
  const auto& pods = r["NodeNameToMetaVictims"]["n1"]["Pods"];
  ASSERT_EQ(pods.Size(), 1u) << res->body;
  EXPECT_STREQ(pods[0]["UID"].GetString(), "uid-web-1");
}

}  // namespace
}  // namespace verbs_topology_test
}  // namespace kext::testing
