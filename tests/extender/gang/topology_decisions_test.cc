// A group with a required topology through the HTTP verbs: the domain it is admitted in, or why none
// fits, reaches the filter's reasons, /debug/decisions and /metrics as the gatekeeper words it
// (algorithms/gang/gatekeeper.cc), for a filter that admits the group and for a /preempt that evicts
// in one rack.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/kube_objects.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace topology_decisions_test {
namespace {

constexpr const char* kRackKey = "example.com/rack";

// Two racks, r1 and r2, of two 4-CPU nodes each: "r1-n1", "r1-n2", "r2-n1", "r2-n2".
std::vector<std::string> rack_nodes() {
  std::vector<std::string> out;
  for (const std::string rack : {"r1", "r2"})
    for (const std::string n : {"n1", "n2"})
      out.push_back(node_json(rack + "-" + n, "4", "16Gi", {{kRackKey, rack}}));
  return out;
}

std::vector<std::string> node_names() { return {"r1-n1", "r1-n2", "r2-n1", "r2-n2"}; }

// scheduler-plugins' PodGroup `name` of minMember 4 that requires one rack.
std::string rack_group(const std::string& name) {
  std::string json = pod_group_json("train", name, 4);
  const std::string md = R"("metadata":{)";
  return json.insert(json.find(md) + md.size(), R"("annotations":{"kube-extender.io/required-topology":")" +
                                                    std::string(kRackKey) + R"("},)");
}

// Group "a": four 2-CPU members of `priority`, and `others` (pods already running).
std::shared_ptr<const ClusterState> cluster(int priority, const std::vector<std::string>& others = {}) {
  std::string items = R"({"kind":"List","items":[)" + rack_group("a");
  for (const std::string& n : rack_nodes()) items += "," + n;
  for (int i = 0; i < 4; ++i)
    items += "," + gang_pod_json("train", "a-" + std::to_string(i), "a", "2", "", priority);
  for (const std::string& o : others) items += "," + o;
  return state_from_json(items + "]}");
}

std::string member(int i, int priority = 0) {
  return gang_pod_json("train", "a-" + std::to_string(i), "a", "2", "", priority);
}

std::string decisions(TestServer& server, const std::string& query) {
  auto res = server.client().Get(("/debug/decisions" + query).c_str());
  EXPECT_TRUE(res && res->status == 200);
  return res ? res->body : "";
}

std::string metrics(TestServer& server) {
  auto res = server.client().Get("/metrics");
  EXPECT_TRUE(res && res->status == 200);
  return res ? res->body : "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(GangTopologyVerbs, TheFilterThatAdmitsAGroupNamesItsRack) {
  TestServer server(cluster(0), std::string(default_policy_json()), {}, {}, GangConfig{});
  auto res = server.post("/filter", names_request(member(0), node_names()));
  ASSERT_TRUE(res && res->status == 200);
  const auto reply = parse(res->body);
  ASSERT_TRUE(reply["NodeNames"].IsArray());
  ASSERT_EQ(reply["NodeNames"].Size(), 1u) << res->body;
  const std::string node = reply["NodeNames"][0].GetString();
  const std::string rack = node.substr(0, 2);
  EXPECT_TRUE(server.gangs()->admitted("train/a"));

  const std::string log = decisions(server, "?verb=filter&pod=train/a-0");
  EXPECT_TRUE(has(log, "pod group train/a: admitted now in rack " + rack)) << log;
  const std::string m = metrics(server);
  EXPECT_TRUE(has(m, "\nkube_extender_gang_admissions_total 1\n")) << m;
  EXPECT_TRUE(has(m, "\nkube_extender_gang_topology_admissions_total{level=\"rack\"} 1\n")) << m;
  EXPECT_TRUE(has(m, "\nkube_extender_gang_topology_preemptions_total{level=\"rack\"} 0\n")) << m;
}

// Both racks full: r1 of pods of priority 100, r2 of priority 50. The group's filter refuses every node
// with the rack that comes closest; its /preempt evicts in r2 alone, the cheaper rack.
TEST(GangTopologyVerbs, APreemptionEvictsInTheCheapestRackAndSaysSo) {
  std::vector<std::string> fillers;
  for (const std::string& n : node_names()) {
    const int priority = n.starts_with("r1") ? 100 : 50;
    for (int i = 0; i < 2; ++i)
      fillers.push_back(
          pod_json("jobs", "f-" + n + "-" + std::to_string(i), n, "2", "Running", priority, "batch"));
  }
  TestServer server(cluster(1000, fillers), std::string(default_policy_json()), {}, {}, GangConfig{});
  auto res = server.post("/filter", names_request(member(0, 1000), node_names()));
  ASSERT_TRUE(res && res->status == 200);
  const auto reply = parse(res->body);
  ASSERT_TRUE(reply["FailedAndUnresolvableNodes"].IsObject()) << res->body;
  const std::string reason = reply["FailedAndUnresolvableNodes"]["r1-n1"].GetString();
  EXPECT_TRUE(has(reason, "pod group train/a: no rack has room for 4 × 2 CPU + 64Mi: best rack ")) << reason;
  EXPECT_TRUE(has(decisions(server, "?verb=filter&pod=train/a-0"), reason));

  std::string offered;
  for (const std::string& n : node_names()) {
    offered += std::string(offered.empty() ? "" : ",") + R"(")" + n + R"(":{"Pods":[{"UID":"uid-jobs-f-)" +
               n + R"(-0"},{"UID":"uid-jobs-f-)" + n + R"(-1"}]})";
  }
  auto p =
      server.post("/preempt", R"({"Pod":)" + member(0, 1000) +
                                  R"(,"NodeNameToVictims":null,"NodeNameToMetaVictims":{)" + offered + "}}");
  ASSERT_TRUE(p && p->status == 200);
  const auto victims = parse(p->body);
  ASSERT_TRUE(victims["NodeNameToMetaVictims"].IsObject()) << p->body;
  // The node this member is nominated to, in rack r2: the loop below then checks it.
  ASSERT_EQ(victims["NodeNameToMetaVictims"].MemberCount(), 1u) << p->body;
  for (const auto& n : victims["NodeNameToMetaVictims"].GetObject())
    EXPECT_TRUE(std::string(n.name.GetString()).starts_with("r2-")) << p->body;

  const std::string log = decisions(server, "?verb=preempt&pod=train/a-0");
  EXPECT_TRUE(has(log, "pod group train/a: admitted now, preempting 4 pods of priority <= 50 in rack r2"))
      << log;
  const std::string m = metrics(server);
  EXPECT_TRUE(has(m, "\nkube_extender_gang_topology_admissions_total{level=\"rack\"} 1\n")) << m;
  EXPECT_TRUE(has(m, "\nkube_extender_gang_topology_preemptions_total{level=\"rack\"} 1\n")) << m;
}

}  // namespace
}  // namespace topology_decisions_test
}  // namespace kext::testing
