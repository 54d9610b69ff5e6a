// GET /debug/decisions for known requests: filter reasons, per-algorithm scores before and after
// weighting, preemption victims and the deciding criterion; and the ring's bounds.
#include "extender/observe/decision_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace decision_log_test {
namespace {

std::string node(const std::string& name, const std::string& spec = "") {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"("},"spec":{)" + spec +
         R"(},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}})";
}

std::string pod(const std::string& name, const std::string& node_name, const std::string& cpu) {
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-)" + name +
         R"("},"spec":{"nodeName":")" + node_name +
         R"(","containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
         R"(","memory":"1Gi"}}}]},"status":{"phase":"Running"}})";
}

// n1 empty; n2 with 3.5 of 4 cpu taken; n3 cordoned.
std::string cluster() {
  return R"({"kind":"List","items":[)" + node("n1") + "," + node("n2") + "," +
         node("n3", R"("unschedulable":true)") + "," + pod("p2", "n2", "3500m") + "]}";
}

const std::string kRequest =
    R"({"Pod":{"metadata":{"name":"new","namespace":"default","uid":"u-new"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}},"NodeNames":["n1","n2","n3","ghost"]})";

// LeastRequested weighs twice BalancedResourceAllocation, so weighting shows in the log.
const std::string kPolicy = R"({"kind":"Policy","apiVersion":"v1",
  "predicates":[{"name":"CheckNodeUnschedulable"},{"name":"PodFitsResources"}],
  "priorities":[{"name":"LeastRequestedPriority","weight":2},{"name":"BalancedResourceAllocation","weight":1}]})";

rapidjson::Document decisions(TestServer& server, const std::string& query) {
  auto res = server.client().Get(("/debug/decisions" + query).c_str());
  EXPECT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  return parse(res->body);
}

const json::Value& node_entry(const json::Value& decision, const std::string& name) {
  for (const auto& n : decision["nodes"].GetArray()) {
    if (n["name"].GetString() == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  return decision["nodes"][0];
}

TEST(DecisionLog, FilterRecordsEveryNodeWithItsReason) {
  TestServer server(state_from_json(cluster()), kPolicy);
  ASSERT_EQ(server.post("/filter", kRequest)->status, 200);

  auto doc = decisions(server, "?pod=default/new&limit=1");
  ASSERT_EQ(doc["decisions"].Size(), 1u);
  const auto& d = doc["decisions"][0];
  EXPECT_STREQ(d["verb"].GetString(), "filter");
  EXPECT_STREQ(d["pod"].GetString(), "default/new");
  EXPECT_STREQ(d["podUID"].GetString(), "u-new");
  EXPECT_EQ(d["status"].GetInt(), 200);
  EXPECT_GT(d["durationSeconds"].GetDouble(), 0);
  EXPECT_EQ(std::string(d["time"].GetString()).size(), std::string("2026-01-01T00:00:00.000000Z").size());
  ASSERT_EQ(d["nodes"].Size(), 4u);
  EXPECT_STREQ(node_entry(d, "n1")["filter"].GetString(), "passed");
  EXPECT_FALSE(node_entry(d, "n1").HasMember("reasons"));
  EXPECT_STREQ(node_entry(d, "n2")["filter"].GetString(), "failed");
  EXPECT_STREQ(node_entry(d, "n2")["reasons"].GetString(), "Insufficient cpu");
  EXPECT_STREQ(node_entry(d, "n3")["filter"].GetString(), "unresolvable");
  EXPECT_STREQ(node_entry(d, "n3")["reasons"].GetString(), "node(s) were unschedulable");
  EXPECT_STREQ(node_entry(d, "ghost")["reasons"].GetString(),
               "node not found in the extender's cluster state");
}

TEST(DecisionLog, PrioritizeRecordsScoresBeforeAndAfterWeighting) {
  TestServer server(state_from_json(cluster()), kPolicy);
  auto res = server.post("/prioritize", kRequest);
  ASSERT_EQ(res->status, 200);
  auto reply = parse(res->body);

  auto doc = decisions(server, "?limit=1");
  const auto& d = doc["decisions"][0];
  EXPECT_STREQ(d["verb"].GetString(), "prioritize");
  // n1: cpu (4-1)*10/4 = 7, memory (8-1)*10/8 = 8, mean 7; balance 1 - |0.25 - 0.125| -> 8.
  const auto& n1 = node_entry(d, "n1");
  ASSERT_EQ(n1["scores"].Size(), 2u);
  const auto& lr = n1["scores"][0];
  EXPECT_STREQ(lr["algorithm"].GetString(), "LeastRequestedPriority");
  EXPECT_EQ(lr["score"].GetInt64(), 7);
  EXPECT_EQ(lr["weight"].GetInt64(), 2);
  EXPECT_EQ(lr["weighted"].GetInt64(), 14);
  const auto& bra = n1["scores"][1];
  EXPECT_STREQ(bra["algorithm"].GetString(), "BalancedResourceAllocation");
  EXPECT_EQ(bra["weighted"].GetInt64(), bra["score"].GetInt64());
  EXPECT_EQ(n1["final"].GetInt64(), (14 + bra["score"].GetInt64()) / 3);

  // The log's final score is the reply's, node by node; unknown nodes are marked and score 0.
  for (const auto& h : reply.GetArray()) {
    EXPECT_EQ(node_entry(d, h["Host"].GetString())["final"].GetInt64(), h["Score"].GetInt64())
        << h["Host"].GetString();
  }
  EXPECT_FALSE(node_entry(d, "ghost")["known"].GetBool());
}

// The embedded default configuration runs its framework score plugins with v1.16 arithmetic; the log
// still calls them what the configuration does, so that it agrees with --write-config. A legacy Policy
// keeps its names (above).
TEST(DecisionLog, AlgorithmNamesAreTheWrittenConfigurationsPluginNames) {
  const std::string config(default_config_json());
  TestServer server(state_from_json(cluster()), config);
  ASSERT_EQ(server.post("/prioritize", kRequest)->status, 200);

  const auto written = parse(effective_config_json(load_scheduling_file(config)));
  std::vector<std::string> plugins;
  for (const auto& e : written["plugins"]["score"]["enabled"].GetArray())
    plugins.push_back(e["name"].GetString());
  ASSERT_EQ(plugins.size(), 5u);
  EXPECT_NE(std::find(plugins.begin(), plugins.end(), "NodeResourcesFit"), plugins.end());

  auto doc = decisions(server, "?limit=1");
  const auto& d = doc["decisions"][0];
  ASSERT_STREQ(d["verb"].GetString(), "prioritize");
  std::vector<std::string> logged;
  for (const auto& s : node_entry(d, "n1")["scores"].GetArray()) logged.push_back(s["algorithm"].GetString());
  EXPECT_EQ(logged, plugins);
}

TEST(DecisionLog, PreemptRecordsVictimsAndTheDecidingCriterion) {
  TestServer server(fixture_cluster());
  auto res = server.post("/preempt", read_file(fixture_path("default/0028-preempt--high-1.json")));
  ASSERT_EQ(res->status, 200) << res->body;
  auto reply = parse(res->body);
  const auto& victims = reply["NodeNameToMetaVictims"];
  ASSERT_EQ(victims.MemberCount(), 1u);
  const std::string chosen = victims.MemberBegin()->name.GetString();

  auto doc = decisions(server, "?limit=1");
  const auto& d = doc["decisions"][0];
  EXPECT_STREQ(d["verb"].GetString(), "preempt");
  ASSERT_GE(d["nodes"].Size(), 1u);
  const auto& best = d["nodes"][0];
  EXPECT_EQ(best["name"].GetString(), chosen);
  EXPECT_TRUE(best["chosen"].GetBool());
  EXPECT_TRUE(best["evaluated"].GetBool());
  EXPECT_EQ(best["victims"].Size(), victims.MemberBegin()->value["Pods"].Size());
  EXPECT_STREQ(best["victims"][0]["uid"].GetString(),
               victims.MemberBegin()->value["Pods"][0]["UID"].GetString());
  EXPECT_NE(std::string(best["victims"][0]["pod"].GetString()).find('/'), std::string::npos);
  EXPECT_EQ(std::string(d["decidedBy"].GetString()), best["decidedBy"].GetString());
  const std::set<std::string> criteria = {"zero_victims",      "pdb_violations", "highest_victim_priority",
                                          "sum_of_priorities", "num_victims",    "earliest_start_time",
                                          "node_name",         "none",           "last"};
  for (const auto& n : d["nodes"].GetArray()) {
    EXPECT_TRUE(criteria.count(n["decidedBy"].GetString())) << n["decidedBy"].GetString();
    if (&n != &best) {
      EXPECT_FALSE(n["chosen"].GetBool());
    }
  }
}

TEST(DecisionLog, FiltersByPodAndLimitsNewestFirst) {
  TestServer server(state_from_json(cluster()), kPolicy);
  std::string other = kRequest;
  other.replace(other.find("\"new\""), 5, "\"other\"");
  ASSERT_EQ(server.post("/filter", kRequest)->status, 200);
  ASSERT_EQ(server.post("/prioritize", kRequest)->status, 200);
  ASSERT_EQ(server.post("/filter", other)->status, 200);
  ASSERT_EQ(server.post("/filter", "{\"Pod\":1}")->status, 400);

  auto all = decisions(server, "");
  ASSERT_EQ(all["decisions"].Size(), 4u);
  EXPECT_EQ(all["decisions"][0]["status"].GetInt(), 400);  // newest first
  EXPECT_TRUE(all["decisions"][0]["reply"].HasMember("Error"));
  EXPECT_GT(all["decisions"][0]["seq"].GetUint64(), all["decisions"][1]["seq"].GetUint64());

  auto mine = decisions(server, "?pod=default/new");
  ASSERT_EQ(mine["decisions"].Size(), 2u);
  EXPECT_STREQ(mine["decisions"][0]["verb"].GetString(), "prioritize");
  EXPECT_STREQ(mine["decisions"][1]["verb"].GetString(), "filter");
  EXPECT_EQ(decisions(server, "?limit=2")["decisions"].Size(), 2u);
  EXPECT_EQ(decisions(server, "?pod=default/nobody")["decisions"].Size(), 0u);

  EXPECT_EQ(server.client().Get("/debug/decisions?limit=x")->status, 400);
  EXPECT_EQ(server.client().Get("/debug/decisions?pod=new")->status, 400);
}

TEST(DecisionLog, RingKeepsTheLastCapacityEntries) {
  DecisionLog log(3);
  for (int i = 0; i < 7; ++i) {
    auto d = std::make_unique<Decision>();
    d->verb = "filter";
    d->pod = "ns/p" + std::to_string(i);
    log.record(std::move(d));
  }
  auto last = log.last(10);
  ASSERT_EQ(last.size(), 3u);
  EXPECT_EQ(last[0]->pod, "ns/p6");
  EXPECT_EQ(last[2]->pod, "ns/p4");
  EXPECT_EQ(log.last(10, "ns/p1").size(), 0u);
  EXPECT_EQ(log.last(1).size(), 1u);
}

TEST(DecisionLog, RingKeepsWithinItsMemoryBudget) {
  auto big = [](int i) {
    auto d = std::make_unique<Decision>();
    d->verb = "filter";
    d->pod = "ns/p" + std::to_string(i);
    for (int n = 0; n < 100; ++n) d->nodes.push_back(std::string(100, 'n'));
    return d;
  };
  const size_t one = approximate_bytes(*big(0));
  DecisionLog log(1000, 3 * one + one / 2);
  for (int i = 0; i < 10; ++i) log.record(big(i));
  EXPECT_EQ(log.size(), 3u);
  EXPECT_LE(log.bytes(), 3 * one + one / 2);
  EXPECT_EQ(log.last(10)[0]->pod, "ns/p9");

  DecisionLog tiny(1000, 1);  // the newest decision always stays
  tiny.record(big(0));
  tiny.record(big(1));
  ASSERT_EQ(tiny.size(), 1u);
  EXPECT_EQ(tiny.last(1)[0]->pod, "ns/p1");
}

}  // namespace
}  // namespace decision_log_test
}  // namespace kext::testing
