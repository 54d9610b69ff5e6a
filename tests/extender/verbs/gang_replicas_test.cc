// Gang scheduling with two replicas of the extender (--enable-bind --leader-elect) on the in-repo API
// server: whichever replica the scheduler's requests reach, a group is admitted once, by the Lease
// holder; its room is seen as taken by the filters of both replicas; an ordinary pod that reaches bind
// on a node held for a group is refused; the group binds whole. Ten groups through two replicas under
// kube-scheduler's real queue: tests/sim/gang_real_time_test.cc.
#include "extender/verbs/gang_replicas.h"

#include <gtest/gtest.h>

#include <future>
#include <set>
#include <thread>

#include "tests/support/gang_scheduler.h"
#include "tests/support/replica_cluster.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace gang_replicas_test {
namespace {

using namespace std::chrono_literals;

// The room codec, both ways; and what a malformed room is refused with.
TEST(SharedRoom, RoundTripsAndNamesWhatIsWrong) {
  HeldRoom room;
  room.version = 7;
  auto member = [](const std::string& uid) {
    auto pod = std::make_shared<Pod>();
    pod->uid = uid;
    return std::make_shared<const PodInfo>(make_pod_info(pod));
  };
  room.by_node["n0"] = {member("u1"), member("u2")};
  room.by_node["n1"] = {member("u3")};

  bool unchanged = true;
  SharedRoom got = decode_shared_room(encode_shared_room("r0", room, false), &unchanged);
  EXPECT_FALSE(unchanged);
  EXPECT_EQ(got.holder, "r0");
  EXPECT_EQ(got.version, 7u);
  EXPECT_EQ(got.uids_by_node, (std::map<std::string, std::vector<std::string>, std::less<>>{
                                  {"n0", {"u1", "u2"}}, {"n1", {"u3"}}}));
  got = decode_shared_room(encode_shared_room("r0", room, true), &unchanged);
  EXPECT_TRUE(unchanged);
  EXPECT_EQ(got.version, 7u);
  EXPECT_TRUE(got.uids_by_node.empty());

  const struct {
    std::string body, error;
  } bad[] = {
      {"[", "gang room: "},
      {R"({"Version":1})", "gang room: Holder: expected string"},
      {R"({"Holder":"r0","Version":-1})", "gang room: Version: expected unsigned integer"},
      {R"({"Holder":"r0","Version":1,"Nodes":[]})", "Nodes: expected object, got array"},
      {R"({"Holder":"r0","Version":1,"Nodes":{"n0":"u1"}})", "Nodes.n0: expected array, got string"},
      {R"({"Holder":"r0","Version":1,"Nodes":{"n0":[1]}})", "Nodes.n0[]: expected string, got number"},
  };
  for (const auto& b : bad) {
    try {
      decode_shared_room(b.body, &unchanged);
      ADD_FAILURE() << b.body;
    } catch (const DecodeError& e) {
      EXPECT_EQ(std::string(e.what()).find(b.error), 0u) << b.body << ": " << e.what();
    }
  }
}

std::string error_of(const httplib::Result& r) {
  if (!r) return "<no reply>";
  auto d = parse(r->body);
  return d.IsObject() && d.HasMember("Error") && d["Error"].IsString() ? d["Error"].GetString() : "";
}

// Two replicas on eight nodes of 4 CPU; groups a and b of four 4-CPU members each fill four nodes.
class GangReplicas2 : public ::testing::Test {
 protected:
  static ReplicaClusterShape shape() {
    ReplicaClusterShape s;
    s.nodes = 8;
    s.pods = 0;
    return s;
  }
  void SetUp() override {
    for (const std::string g : {"a", "b"}) {
      cluster_.api.put("podgroups", pod_group_json("train", g, 4, 30));
      for (int i = 0; i < 4; ++i) cluster_.api.put("pods", member(g, i));
    }
    cluster_.api.put("pods", ordinary());
    for (const std::string id : {"r0", "r1"})
      ASSERT_GT(cluster_.start(id).port(), 0) << cluster_.replicas[id]->log();
    cluster_.publish();
    ASSERT_TRUE(cluster_.wait_ready(2));
    holder_ = cluster_.api.lease_holder(kLeaseKey);
    other_ = holder_ == "r0" ? "r1" : "r0";
    for (int i = 0; i < 8; ++i) nodes_.push_back(ReplicaCluster::node_name(i));
  }
  static std::string member(const std::string& g, int i) {
    return gang_pod_json("train", g + "-" + std::to_string(i), g, "4");
  }
  static std::string ordinary() { return pod_json("default", "o", "", "1", "Pending"); }

  httplib::Client client(const std::string& replica) {
    httplib::Client c("127.0.0.1", cluster_.replicas[replica]->port());
    c.set_read_timeout(10, 0);
    return c;
  }
  // The nodes `pod` passes on `replica`.
  std::vector<std::string> filter(const std::string& replica, const std::string& pod) {
    auto r = client(replica).Post("/filter", names_request(pod, nodes_), "application/json");
    std::vector<std::string> out;
    if (!r || r->status != 200) {
      ADD_FAILURE() << (r ? r->body : "no reply");
      return out;
    }
    auto d = parse(r->body);
    EXPECT_EQ(error_of(r), "") << r->body;
    if (d["NodeNames"].IsArray())
      for (const auto& n : d["NodeNames"].GetArray()) out.emplace_back(n.GetString());
    return out;
  }
  httplib::Result bind(const std::string& replica, const std::string& ns, const std::string& name,
                       const std::string& node) {
    return client(replica).Post("/bind",
                                R"({"PodName":")" + name + R"(","PodNamespace":")" + ns +
                                    R"(","PodUID":"uid-)" + ns + "-" + name + R"(","Node":")" + node + "\"}",
                                "application/json");
  }
  // The binds the Lease holder holds now (kube_extender_gang_held_binds), -1 without an answer.
  int64_t held_by_holder() {
    constexpr std::string_view kGauge = "\nkube_extender_gang_held_binds ";
    auto r = client(holder_).Get("/metrics");
    const size_t at = r && r->status == 200 ? r->body.find(kGauge) : std::string::npos;
    return at == std::string::npos ? -1 : std::stoll(r->body.substr(at + kGauge.size()));
  }
  std::multiset<std::string> bound() const {
    std::multiset<std::string> out;
    for (const auto& b : cluster_.api.bindings()) out.insert(b.name);
    return out;
  }
  std::string logs() {
    std::string out;
    for (auto& [id, p] : cluster_.replicas) out += "--- " + id + "\n" + p->log();
    return out;
  }

  ReplicaCluster cluster_{KEXT_BINARY, shape()};
  std::string holder_, other_;
  std::vector<std::string> nodes_;
};

TEST_F(GangReplicas2, AGroupIsAdmittedOnceAndItsRoomIsTakenOnBothReplicas) {
  // a's first member reaches the replica not holding the Lease: the holder admits a, and the ordinary
  // pod filtered on the holder finds a's four nodes taken.
  std::vector<std::string> a0 = filter(other_, member("a", 0));
  ASSERT_EQ(a0.size(), 1u) << logs();
  EXPECT_EQ(filter(holder_, ordinary()).size(), 4u);
  // b's first member reaches the holder: the other replica's filters see b's room too, once its copy
  // of the holder's room is refreshed (every kRoomRefresh).
  ASSERT_EQ(filter(holder_, member("b", 0)).size(), 1u);
  EXPECT_TRUE(wait_until([&] { return filter(other_, ordinary()).empty(); })) << logs();
  EXPECT_EQ(filter(holder_, ordinary()), std::vector<std::string>{});
  // Every member goes to the node held for it, on either replica; no two share one.
  std::map<std::string, std::string> node_of;
  std::set<std::string> nodes;
  for (const std::string g : {"a", "b"}) {
    for (int i = 0; i < 4; ++i) {
      std::vector<std::string> n = filter(i % 2 ? holder_ : other_, member(g, i));
      ASSERT_EQ(n.size(), 1u) << g << i;
      node_of[g + "-" + std::to_string(i)] = n[0];
      nodes.insert(n[0]);
    }
  }
  EXPECT_EQ(nodes.size(), 8u);
  EXPECT_EQ(node_of["a-0"], a0[0]);
}

TEST_F(GangReplicas2, AnOrdinaryPodBoundIntoHeldRoomIsRefusedAndTheGroupBindsWhole) {
  // The ordinary pod is filtered before a is admitted, and offered every node.
  const std::vector<std::string> offered = filter(other_, ordinary());
  ASSERT_EQ(offered.size(), 8u);
  std::map<std::string, std::string> node_of;
  for (int i = 0; i < 4; ++i) {
    std::vector<std::string> n = filter(i % 2 ? holder_ : other_, member("a", i));
    ASSERT_EQ(n.size(), 1u) << i << logs();
    node_of["a-" + std::to_string(i)] = n[0];
  }
  // Its bind, to a node now held for a, reaches the replica not holding the Lease and is refused.
  auto r = bind(other_, "default", "o", node_of["a-0"]);
  EXPECT_EQ(error_of(r), "not binding pod default/o to node " + node_of["a-0"] +
                             ": room there is held for pod group train/a (Insufficient cpu)");
  EXPECT_EQ(bound().count("o"), 0u);

  // a's binds, half through each replica, are held until all four have come, then all go.
  std::vector<std::future<std::string>> binds;
  for (int i = 0; i < 4; ++i) {
    const std::string name = "a-" + std::to_string(i);
    binds.push_back(std::async(std::launch::async, [this, i, name, node = node_of[name]] {
      return error_of(bind(i % 2 ? holder_ : other_, "train", name, node));
    }));
    if (i < 3) {
      EXPECT_TRUE(wait_until([&] { return held_by_holder() == i + 1; })) << logs();
      EXPECT_EQ(bound().size(), 0u) << "a partial group was bound";
    }
  }
  for (auto& b : binds) EXPECT_EQ(b.get(), "");
  EXPECT_EQ(bound(), (std::multiset<std::string>{"a-0", "a-1", "a-2", "a-3"}));
  for (const auto& b : cluster_.api.bindings()) EXPECT_EQ(b.node, node_of[b.name]);

  // The ordinary pod now binds elsewhere, on a node no group holds.
  std::string free_node;
  for (const std::string& n : nodes_) {
    bool taken = false;
    for (const auto& [m, node] : node_of) taken |= node == n;
    if (!taken) free_node = n;
  }
  EXPECT_EQ(error_of(bind(other_, "default", "o", free_node)), "");
}

// kube_extender_gang_admissions_total on each replica, by identity.
std::map<std::string, std::string> admissions(ReplicaCluster& cluster) {
  std::map<std::string, std::string> out;
  const std::string name = "\nkube_extender_gang_admissions_total ";
  for (auto& [id, p] : cluster.replicas) {
    httplib::Client c("127.0.0.1", p->port());
    auto m = c.Get("/metrics");
    const size_t at = m ? m->body.find(name) : std::string::npos;
    out[id] = at == std::string::npos
                  ? "?"
                  : m->body.substr(at + name.size(), m->body.find('\n', at + 1) - at - name.size());
  }
  return out;
}

// A full cluster: a member's /preempt that reaches the replica not holding the Lease is the holder's to
// answer, which admits the group with its evictions; the next member's, on the holder, evicts on another
// node.
TEST(GangReplicas, AMembersPreemptionIsDecidedByTheHolder) {
  ReplicaClusterShape shape;
  shape.nodes = 4;
  shape.pods = 0;
  ReplicaCluster cluster(KEXT_BINARY, shape);
  std::vector<std::string> nodes;
  for (int i = 0; i < shape.nodes; ++i) {
    nodes.push_back(ReplicaCluster::node_name(i));
    cluster.api.put("pods", pod_json("default", "filler-" + nodes.back(), nodes.back(), "3", "Running", 0));
  }
  cluster.api.put("podgroups", pod_group_json("train", "p", 2, 30));
  std::vector<std::string> members;
  for (int i = 0; i < 2; ++i) {
    members.push_back(gang_pod_json("train", "p-" + std::to_string(i), "p", "3", "", 100));
    cluster.api.put("pods", members.back());
  }
  for (const std::string id : {"r0", "r1"})
    ASSERT_GT(cluster.start(id).port(), 0) << cluster.replicas[id]->log();
  cluster.publish();
  ASSERT_TRUE(cluster.wait_ready(2));
  const std::string holder = cluster.api.lease_holder(kLeaseKey);
  const std::string other = holder == "r0" ? "r1" : "r0";

  // node -> victims' UIDs, from `replica`'s /preempt for `member` with every node offered.
  auto preempt = [&](const std::string& replica, const std::string& member) {
    std::string offered;
    for (const std::string& n : nodes)
      offered += std::string(offered.empty() ? "" : ",") + R"(")" + n +
                 R"(":{"Pods":[{"UID":"uid-default-filler-)" + n + R"("}]})";
    httplib::Client c("127.0.0.1", cluster.replicas[replica]->port());
    auto res = c.Post(
        "/preempt",
        R"({"Pod":)" + member + R"(,"NodeNameToVictims":null,"NodeNameToMetaVictims":{)" + offered + "}}",
        "application/json");
    std::map<std::string, std::vector<std::string>> out;
    EXPECT_TRUE(res && res->status == 200) << (res ? res->body : "no reply");
    if (!res || res->status != 200) return out;
    auto r = parse(res->body);
    for (const auto& node : r["NodeNameToMetaVictims"].GetObject())
      for (const auto& v : node.value["Pods"].GetArray())
        out[node.name.GetString()].push_back(v["UID"].GetString());
    return out;
  };
  const auto first = preempt(other, members[0]);
  ASSERT_EQ(first.size(), 1u);
  const std::string node0 = first.begin()->first;
  EXPECT_EQ(first.begin()->second, std::vector<std::string>{"uid-default-filler-" + node0});
  const auto second = preempt(holder, members[1]);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(second.begin()->first, node0);
  EXPECT_EQ(preempt(other, members[0]), first);
  EXPECT_EQ(admissions(cluster), (std::map<std::string, std::string>{{holder, "1"}, {other, "0"}}));
}

}  // namespace
}  // namespace gang_replicas_test
}  // namespace kext::testing
