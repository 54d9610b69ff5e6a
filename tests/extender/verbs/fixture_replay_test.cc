// Replays the real kube-scheduler 1.26 request bodies through the HTTP server with cluster.json as the
// snapshot, and checks every reply against the protocol the scheduler enforces.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "tests/support/test_server.h"

namespace kext::testing {
namespace fixture_replay_test {
namespace {

std::vector<std::string> fixture_requests(const std::string& mode, const std::string& verb) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(fixture_path(mode))) {
    std::string name = e.path().filename().string();
    if (name.find("-" + verb + "--") == std::string::npos || name.ends_with(".response.json")) continue;
    out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> sent_names(const rapidjson::Document& req) {
  std::vector<std::string> names;
  if (req["Nodes"].IsObject()) {
    for (const auto& n : req["Nodes"]["items"].GetArray())
      names.emplace_back(n["metadata"]["name"].GetString());
  } else {
    for (const auto& n : req["NodeNames"].GetArray()) names.emplace_back(n.GetString());
  }
  return names;
}

// The filter reply contract: the mode's key is used, every sent node is accounted for exactly once,
// nothing that was not sent comes back, and every rejection has a reason.
void check_filter_reply(const rapidjson::Document& req, const rapidjson::Document& reply, bool full) {
  ASSERT_TRUE(reply.IsObject());
  ASSERT_TRUE(reply.HasMember("Error"));
  EXPECT_STREQ(reply["Error"].GetString(), "");
  std::vector<std::string> sent = sent_names(req);
  std::set<std::string> sent_set(sent.begin(), sent.end());
  std::multiset<std::string> seen;
  if (full) {
    ASSERT_TRUE(reply["Nodes"].IsObject());
    EXPECT_TRUE(reply["NodeNames"].IsNull());
    for (const auto& n : reply["Nodes"]["items"].GetArray()) {
      std::string name = n["metadata"]["name"].GetString();
      EXPECT_TRUE(sent_set.count(name)) << name;
      seen.insert(name);
      // Echoed unchanged: the status the scheduler sent survives.
      EXPECT_TRUE(n.HasMember("status"));
    }
  } else {
    EXPECT_TRUE(reply["Nodes"].IsNull());
    ASSERT_TRUE(reply["NodeNames"].IsArray());
    for (const auto& n : reply["NodeNames"].GetArray()) {
      EXPECT_TRUE(sent_set.count(n.GetString())) << n.GetString();
      seen.insert(n.GetString());
    }
  }
  for (const char* key : {"FailedNodes", "FailedAndUnresolvableNodes"}) {
    ASSERT_TRUE(reply[key].IsObject()) << key;
    for (auto it = reply[key].MemberBegin(); it != reply[key].MemberEnd(); ++it) {
      EXPECT_TRUE(sent_set.count(it->name.GetString())) << it->name.GetString();
      EXPECT_GT(it->value.GetStringLength(), 0u) << "empty reason for " << it->name.GetString();
      seen.insert(it->name.GetString());
    }
  }
  EXPECT_EQ(seen, std::multiset<std::string>(sent.begin(), sent.end()));
}

class FixtureReplay : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureReplay, FilterAndPrioritizeRepliesFollowTheProtocol) {
  const std::string mode = GetParam();
  TestServer server(fixture_cluster());
  auto filters = fixture_requests(mode, "filter");
  auto prioritizes = fixture_requests(mode, "prioritize");
  ASSERT_GE(filters.size(), 4u);
  ASSERT_GE(prioritizes.size(), 1u);
  for (const auto& path : filters) {
    SCOPED_TRACE(path);
    std::string body = read_file(path);
    auto res = server.post("/filter", body);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    check_filter_reply(parse(body), parse(res->body), mode == "default");
  }
  for (const auto& path : prioritizes) {
    SCOPED_TRACE(path);
    std::string body = read_file(path);
    auto res = server.post("/prioritize", body);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    auto reply = parse(res->body);
    ASSERT_TRUE(reply.IsArray());
    std::vector<std::string> sent = sent_names(parse(body));
    ASSERT_EQ(reply.Size(), sent.size());
    for (rapidjson::SizeType i = 0; i < reply.Size(); ++i) {
      EXPECT_EQ(std::string(reply[i]["Host"].GetString()), sent[i]);
      ASSERT_TRUE(reply[i]["Score"].IsInt64());
      EXPECT_GE(reply[i]["Score"].GetInt64(), 0);
      EXPECT_LE(reply[i]["Score"].GetInt64(), 10);
    }
  }
}

// cluster.json is the state after the scenario: every node already holds 2 cpu of pods, so low-1
// (1 cpu) fits nowhere; node-eeeee's NoSchedule taint is not tolerated and is unresolvable.
TEST_P(FixtureReplay, FirstFilterRejectsFullNodesForKubernetesReasons) {
  const std::string mode = GetParam();
  TestServer server(fixture_cluster());
  auto res = server.post("/filter", read_file(fixture_path(mode + "/0001-filter--low-1-first.json")));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  auto reply = parse(res->body);
  for (const char* node : {"node-a", "node-bb", "node-ccc", "node-dddd"}) {
    ASSERT_TRUE(reply["FailedNodes"].HasMember(node)) << node << " in " << res->body;
    EXPECT_STREQ(reply["FailedNodes"][node].GetString(), "Insufficient cpu");
  }
}

INSTANTIATE_TEST_SUITE_P(BothModes, FixtureReplay, ::testing::Values("cache", "default"));

}  // namespace
}  // namespace fixture_replay_test
}  // namespace kext::testing
