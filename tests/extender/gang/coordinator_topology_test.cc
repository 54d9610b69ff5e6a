// What a group's topology is admitted with in the extender: the PodGroup's topology annotation, the
// configuration's gang.topologyLevels (through the profile to the coordinator, as kube-extender's
// main passes them), and the nodes of the members already bound (coordinator.cc members_in).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "kube/codec/k8s_decode.h"
#include "tests/support/kube_objects.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace coordinator_topology_test {
namespace {

constexpr const char* kBlock = "example.com/block";
constexpr const char* kRack = "example.com/rack";

// An ExtenderConfiguration with kube-scheduler's default plugins and `levels` as gang.topologyLevels.
std::string config_with_levels(const std::string& levels) {
  return R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration",
             "gang":{"topologyLevels":)" +
         levels + "}}";
}

// pod_group_json with one topology annotation.
std::string annotated_group(const std::string& name, int min_member, std::string_view annotation,
                            const std::string& key) {
  std::string json = pod_group_json("train", name, min_member);
  const std::string metadata = R"("metadata":{)";
  return json.insert(json.find(metadata) + metadata.size(),
                     R"("annotations":{")" + std::string(annotation) + R"(":")" + key + R"("},)");
}

// A 4-CPU node in `block` and `rack`.
std::string node_in(const std::string& name, const std::string& block, const std::string& rack) {
  return node_json(name, "4", "8Gi", {{kBlock, block}, {kRack, rack}});
}

std::shared_ptr<const ClusterState> cluster(const std::vector<std::string>& objects) {
  std::string items = R"({"kind":"List","items":[)";
  for (size_t i = 0; i < objects.size(); ++i) items += (i ? "," : "") + objects[i];
  return state_from_json(items + "]}");
}

// Admits `group` at the filter of its member `member` (1 CPU): the nodes room is held on. Expects room
// held for exactly `held_members` members, so that a caller's loop over the nodes never passes empty.
std::set<std::string> admitted_on(TestServer& server, const std::string& group, int member,
                                  size_t held_members) {
  rapidjson::Document d = parse(gang_pod_json("train", group + "-" + std::to_string(member), group, "1"));
  const Pod pod = decode_pod(d, "pod");
  const GangGate g = server.gangs()->gate(pod, *server.store().current(), nullptr);
  EXPECT_EQ(g.kind, GangGate::Kind::kOnlyNode) << g.reason;
  std::set<std::string> nodes;
  size_t held = 0;
  for (const auto& [node, members] : server.gangs()->held_room()->by_node) {
    nodes.insert(node);
    held += members.size();
  }
  EXPECT_EQ(held, held_members);
  return nodes;
}

// A preferred rack that no rack can take falls back to one block (the coarser level configured),
// where spreading over as few racks as possible would take racks of both blocks: a1 (3 free CPU)
// and b1 or b2 (2 each).
TEST(GangTopologyInputs, ConfiguredLevelsReachTheCoordinator) {
  std::vector<std::string> objects = {node_in("n0", "A", "a1"),
                                      node_in("n1", "A", "a2"),
                                      node_in("n2", "B", "b1"),
                                      node_in("n3", "B", "b2"),
                                      pod_json("default", "used-0", "n0", "1"),
                                      pod_json("default", "used-1", "n1", "3"),
                                      pod_json("default", "used-2", "n2", "2"),
                                      pod_json("default", "used-3", "n3", "2"),
                                      annotated_group("g", 4, gang::kPreferredTopologyAnnotation, kRack)};
  for (int i = 0; i < 4; ++i) objects.push_back(gang_pod_json("train", "g-" + std::to_string(i), "g", "1"));
  TestServer server(cluster(objects),
                    config_with_levels(std::string(R"([")") + kBlock + R"(",")" + kRack + R"("])"), {}, {},
                    GangConfig{});
  const std::set<std::string> nodes = admitted_on(server, "g", 0, 4);
  const std::set<std::string> block_a = {"n0", "n1"};
  const std::set<std::string> block_b = {"n2", "n3"};
  EXPECT_TRUE(nodes == block_a || nodes == block_b) << ::testing::PrintToString(nodes);
}

// A group that lost a member is admitted again in the rack its bound member runs in, though the
// other rack packs tighter.
TEST(GangTopologyInputs, BoundMembersKeepTheGroupInTheirRack) {
  const std::vector<std::string> objects = {
      node_in("n0", "A", "r1"),
      node_in("n1", "A", "r1"),
      node_in("n2", "A", "r2"),
      node_in("n3", "A", "r2"),
      pod_json("default", "used", "n0", "2"),
      annotated_group("g", 3, gang::kRequiredTopologyAnnotation, kRack),
      gang_pod_json("train", "g-0", "g", "1", "n2"),
      gang_pod_json("train", "g-1", "g", "1"),
      gang_pod_json("train", "g-2", "g", "1"),
  };
  TestServer server(cluster(objects), config_with_levels("[]"), {}, {}, GangConfig{});
  const std::set<std::string> nodes = admitted_on(server, "g", 1, 2);
  ASSERT_FALSE(nodes.empty());
  for (const std::string& node : nodes) EXPECT_TRUE(node == "n2" || node == "n3") << node;
}

}  // namespace
}  // namespace coordinator_topology_test
}  // namespace kext::testing
