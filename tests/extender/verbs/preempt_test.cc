// POST /preempt through HTTP: the recorded kube-scheduler 1.26 requests in both shapes, replayed on the
// cluster they came from, plus the rules the verb adds around the preemption library.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace preempt_test {
namespace {

// UID -> (pod name, node name) for every pod of a List.
std::map<std::string, std::pair<std::string, std::string>> pods_of(const rapidjson::Value& list) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  for (const auto& item : list["items"].GetArray()) {
    if (std::string(item["kind"].GetString()) != "Pod") continue;
    out[item["metadata"]["uid"].GetString()] = {item["metadata"]["name"].GetString(),
                                                item["spec"]["nodeName"].GetString()};
  }
  return out;
}

// The cluster of the default/ recording: cluster.json's nodes and PDB, with the pods the scheduler
// offered as victims bound to their nodes (cluster.json itself is from the cache/ run).
std::string default_run_cluster(const rapidjson::Document& request) {
  rapidjson::Document cluster = parse(read_file(fixture_path("cluster.json")));
  std::string out = R"({"kind":"List","items":[)";
  bool first = true;
  auto append = [&](const std::string& item) {
    if (!first) out += ",";
    out += item;
    first = false;
  };
  for (const auto& item : cluster["items"].GetArray()) {
    std::string kind = item["kind"].GetString();
    if (kind != "Node" && kind != "PodDisruptionBudget") continue;
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    item.Accept(w);
    append(buf.GetString());
  }
  for (const auto& node : request["NodeNameToVictims"].GetObject()) {
    for (const auto& pod : node.value["Pods"].GetArray()) {
      rapidjson::Document copy;
      copy.CopyFrom(pod, copy.GetAllocator());
      copy.AddMember("kind", "Pod", copy.GetAllocator());
      copy["spec"].AddMember("nodeName", rapidjson::Value(node.name, copy.GetAllocator()),
                             copy.GetAllocator());
      rapidjson::StringBuffer buf;
      rapidjson::Writer<rapidjson::StringBuffer> w(buf);
      copy.Accept(w);
      append(buf.GetString());
    }
  }
  return out + "]}";
}

// Checks the reply shape the scheduler requires and returns node -> victim UIDs.
std::map<std::string, std::vector<std::string>> victims_of(const std::string& body, int64_t expected_pdb) {
  auto r = parse(body);
  EXPECT_TRUE(r.IsObject()) << body;
  std::map<std::string, std::vector<std::string>> out;
  if (!r.IsObject() || !r.HasMember("NodeNameToMetaVictims")) {
    ADD_FAILURE() << "no NodeNameToMetaVictims in " << body;
    return out;
  }
  for (const auto& node : r["NodeNameToMetaVictims"].GetObject()) {
    EXPECT_EQ(node.value["NumPDBViolations"].GetInt64(), expected_pdb) << body;
    auto& uids = out[node.name.GetString()];
    for (const auto& p : node.value["Pods"].GetArray()) uids.push_back(p["UID"].GetString());
  }
  return out;
}

TEST(PreemptFixture, CacheModeChoosesVictimsFromTheClusterState) {
  TestServer server(fixture_cluster());
  auto res = server.post("/preempt", read_file(fixture_path("cache/0028-preempt--high-1.json")));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  // node-a, node-bb and node-ccc each need both low pods gone (the high pod asks for all 2 cpus), one of
  // them PDB-protected with no disruptions allowed: every criterion ties, so the smallest name wins.
  // node-dddd only holds the high pod of equal priority: no victims, so it is not a candidate.
  auto victims = victims_of(res->body, 1);
  ASSERT_EQ(victims.size(), 1u) << res->body;
  ASSERT_TRUE(victims.count("node-a")) << res->body;
  auto cluster_pods = pods_of(parse(read_file(fixture_path("cluster.json"))));
  std::set<std::string> names;
  for (const auto& uid : victims["node-a"]) {
    ASSERT_TRUE(cluster_pods.count(uid)) << uid;
    EXPECT_EQ(cluster_pods[uid].second, "node-a");
    names.insert(cluster_pods[uid].first);
  }
  EXPECT_EQ(names, (std::set<std::string>{"low-4", "low-8"}));
}

TEST(PreemptFixture, DefaultModeFullVictimsOnTheirOwnCluster) {
  const std::string body = read_file(fixture_path("default/0028-preempt--high-1.json"));
  rapidjson::Document request = parse(body);
  TestServer server(state_from_json(default_run_cluster(request)));
  auto res = server.post("/preempt", body);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto victims = victims_of(res->body, 1);
  ASSERT_EQ(victims.size(), 1u) << res->body;
  std::set<std::string> got(victims["node-a"].begin(), victims["node-a"].end());
  std::set<std::string> offered;
  for (const auto& p : request["NodeNameToVictims"]["node-a"]["Pods"].GetArray()) {
    offered.insert(p["metadata"]["uid"].GetString());
  }
  EXPECT_EQ(got, offered);
}

TEST(PreemptFixture, MaxCandidatesReturnsTheBestNodesInOrder) {
  std::string policy = std::string(default_policy_json());
  policy.replace(policy.find(R"("maxCandidates": 1)"), 18, R"("maxCandidates": 3)");
  TestServer server(fixture_cluster(), policy);
  auto res = server.post("/preempt", read_file(fixture_path("cache/0028-preempt--high-1.json")));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto victims = victims_of(res->body, 1);
  EXPECT_EQ(victims.size(), 3u) << res->body;
  for (const char* n : {"node-a", "node-bb", "node-ccc"}) EXPECT_EQ(victims[n].size(), 2u) << n;
  // The map is written best first: kube-scheduler reads it as a map, humans and logs read the order.
  EXPECT_LT(res->body.find("node-a"), res->body.find("node-bb"));
  EXPECT_LT(res->body.find("node-bb"), res->body.find("node-ccc"));
}

// Two 2-cpu nodes, each full with one 2-cpu low pod; n1's pod is covered by a PDB that allows no
// disruption, so n2 wins although n1 sorts first by name.
std::string pdb_cluster() {
  auto node = [](const std::string& n) {
    return R"({"kind":"Node","metadata":{"name":")" + n +
           R"("},"status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"10"}}})";
  };
  auto pod = [](const std::string& n, const std::string& node, const std::string& labels) {
    return R"({"kind":"Pod","metadata":{"name":")" + n + R"(","namespace":"default","uid":"uid-)" + n +
           R"(","labels":{)" + labels + R"(}},"spec":{"nodeName":")" + node +
           R"(","priority":100,"containers":[{"name":"c","resources":{"requests":{"cpu":"2"}}}]},"status":{"phase":"Running","startTime":"2026-01-01T00:00:00Z"}})";
  };
  return R"({"kind":"List","items":[)" + node("n1") + "," + node("n2") + "," +
         pod("guarded", "n1", R"("app":"db")") + "," + pod("free", "n2", R"("app":"web")") + "," +
         R"({"kind":"PodDisruptionBudget","metadata":{"name":"db","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":"db"}}},"status":{"disruptionsAllowed":0}})" +
         "]}";
}

std::string preemptor(const std::string& extra_spec = "") {
  return R"({"metadata":{"name":"vip","namespace":"default","uid":"uid-vip"},"spec":{"priority":1000,)" +
         extra_spec + R"("containers":[{"name":"c","resources":{"requests":{"cpu":"2"}}}]}})";
}

std::string meta_request(const std::string& pod, const std::string& victims) {
  return R"({"Pod":)" + pod + R"(,"NodeNameToVictims":null,"NodeNameToMetaVictims":{)" + victims + "}}";
}

const std::string kBothNodes =
    R"("n1":{"Pods":[{"UID":"uid-guarded"}],"NumPDBViolations":1},"n2":{"Pods":[{"UID":"uid-free"}],"NumPDBViolations":0})";

TEST(Preempt, FewestPdbViolationsWins) {
  TestServer server(state_from_json(pdb_cluster()));
  auto res = server.post("/preempt", meta_request(preemptor(), kBothNodes));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto victims = victims_of(res->body, 0);
  ASSERT_EQ(victims.size(), 1u) << res->body;
  EXPECT_EQ(victims["n2"], std::vector<std::string>{"uid-free"});
}

TEST(Preempt, LegacyLowercaseKeysAreAccepted) {
  TestServer server(state_from_json(pdb_cluster()));
  std::string body = R"({"pod":)" + preemptor() + R"(,"nodeNameToMetaVictims":{)" + kBothNodes + "}}";
  auto res = server.post("/preempt", body);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(victims_of(res->body, 0).count("n2"), 1u) << res->body;
}

TEST(Preempt, PreemptionPolicyNeverGetsAnEmptyMap) {
  TestServer server(state_from_json(pdb_cluster()));
  auto res = server.post("/preempt", meta_request(preemptor(R"("preemptionPolicy":"Never",)"), kBothNodes));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto r = parse(res->body);
  ASSERT_TRUE(r["NodeNameToMetaVictims"].IsObject()) << res->body;
  EXPECT_EQ(r["NodeNameToMetaVictims"].MemberCount(), 0u);
}

TEST(Preempt, OnlyNodesTheSchedulerSentAreConsidered) {
  TestServer server(state_from_json(pdb_cluster()));
  auto res = server.post("/preempt", meta_request(preemptor(), R"("n1":{"Pods":[{"UID":"uid-guarded"}]})"));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto victims = victims_of(res->body, 1);
  ASSERT_EQ(victims.size(), 1u) << res->body;
  EXPECT_EQ(victims["n1"], std::vector<std::string>{"uid-guarded"});
}

TEST(Preempt, NodeThatFitsNoMatterWhatIsNotReturned) {
  // The preemptor asks for more cpu than n1 has even when empty: no victims can help there.
  TestServer server(state_from_json(pdb_cluster()));
  std::string big =
      R"({"metadata":{"name":"vip","namespace":"default","uid":"uid-vip"},"spec":{"priority":1000,"containers":[{"name":"c","resources":{"requests":{"cpu":"3"}}}]}})";
  auto res = server.post("/preempt", meta_request(big, kBothNodes));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(parse(res->body)["NodeNameToMetaVictims"].MemberCount(), 0u) << res->body;
}

TEST(Preempt, UnknownNodeKeepsTheSchedulersFullVictims) {
  TestServer server(state_from_json(pdb_cluster()));
  std::string ghost_pod =
      R"({"metadata":{"name":"g","namespace":"default","uid":"uid-g"},"spec":{"priority":5,"containers":[{"name":"c"}]}})";
  std::string body = R"({"Pod":)" + preemptor() + R"(,"NodeNameToVictims":{"ghost":{"Pods":[)" + ghost_pod +
                     R"(],"NumPDBViolations":0}}})";
  auto res = server.post("/preempt", body);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto victims = victims_of(res->body, 0);
  EXPECT_EQ(victims["ghost"], std::vector<std::string>{"uid-g"}) << res->body;
}

TEST(Preempt, UnknownUidOnUnknownNodeIsAClearError) {
  TestServer server(state_from_json(pdb_cluster()));
  auto res = server.post("/preempt", meta_request(preemptor(), R"("ghost":{"Pods":[{"UID":"nope"}]})"));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  auto r = parse(res->body);
  ASSERT_TRUE(r.HasMember("Error")) << res->body;
  std::string error = r["Error"].GetString();
  EXPECT_NE(error.find("\"nope\""), std::string::npos) << error;
  EXPECT_NE(error.find("ghost"), std::string::npos) << error;
  // ...and the server keeps serving.
  auto again = server.post("/preempt", meta_request(preemptor(), kBothNodes));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
}

TEST(Preempt, MissingPreemptorIsRejected) {
  TestServer server(state_from_json(pdb_cluster()));
  auto res = server.post("/preempt", R"({"NodeNameToMetaVictims":{}})");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_NE(res->body.find("Pod"), std::string::npos) << res->body;
}

}  // namespace
}  // namespace preempt_test
}  // namespace kext::testing
