// GangCoordinator on a fixed cluster state: what filter lets a gang member and every other pod through,
// and how binds are held, released, timed out and answered when a group is deleted.
#include "extender/gang/coordinator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "kube/codec/k8s_decode.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace coordinator_test {
namespace {

using namespace std::chrono_literals;

std::shared_ptr<const Pod> pod_of(const std::string& json) {
  rapidjson::Document d = parse(json);
  return std::make_shared<const Pod>(decode_pod(d, "pod"));
}

class Gangs : public ::testing::Test {
 protected:
  // Four nodes of 4 CPU; `objects` are added to them (pods, PodGroups).
  void load(const std::vector<std::string>& objects) {
    std::string items = R"({"kind":"List","items":[)";
    for (int i = 0; i < 4; ++i) items += (i ? "," : "") + node_json("n" + std::to_string(i), "4");
    for (const std::string& o : objects) items += "," + o;
    store_.publish(state_from_json(items + "]}"));
  }
  // `group`'s n pending members of `cpu` each: "<group>-0" ...
  static std::vector<std::string> members(const std::string& group, int n, const std::string& cpu) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
      out.push_back(gang_pod_json("train", group + "-" + std::to_string(i), group, cpu));
    return out;
  }
  GangGate gate(const std::string& group, int i, const std::string& cpu = "2") {
    auto pod = pod_of(gang_pod_json("train", group + "-" + std::to_string(i), group, cpu));
    return coordinator_.gate(*pod, *store_.current(), nullptr);
  }
  static std::string uid(const std::string& group, int i) {
    return "uid-train-" + group + "-" + std::to_string(i);
  }
  BindPermit permit(const std::string& group, int i) {
    return coordinator_.permit(uid(group, i), "train", group + "-" + std::to_string(i));
  }
  // Group a of `pods` pending 1-CPU members and its PodGroup.
  void group_a(int pods, int min_member, int timeout_seconds = 0) {
    auto objects = members("a", pods, "1");
    objects.push_back(pod_group_json("train", "a", min_member, timeout_seconds));
    load(objects);
  }
  // A coordinator of its own whose filter of a-0 admitted group a.
  std::unique_ptr<GangCoordinator> admitted_a(GangConfig config) {
    auto c = std::make_unique<GangCoordinator>(profile_.engine, store_, config);
    auto pod = pod_of(gang_pod_json("train", "a-0", "a", "1"));
    EXPECT_EQ(c->gate(*pod, *store_.current(), nullptr).kind, GangGate::Kind::kOnlyNode);
    return c;
  }
  // a-i's bind, held by `c` (on another thread).
  static std::future<BindPermit> held_bind(GangCoordinator& c, int i) {
    const size_t before = c.held_binds();
    auto f = std::async(std::launch::async,
                        [&c, i] { return c.permit(uid("a", i), "train", "a-" + std::to_string(i)); });
    EXPECT_TRUE(wait_until([&] { return c.held_binds() == before + 1; }));
    return f;
  }

  // Free CPU (millicores) on `node` for an ordinary pod, with the held room counted.
  int64_t free_cpu(const std::string& node) {
    const NodeInfo* n = store_.current()->find_node(node);
    std::vector<const NodeInfo*> nodes{n};
    std::deque<NodeInfo> copies;
    apply_held_room(*coordinator_.held_room(), nodes, copies, "");
    return nodes[0]->node->allocatable.milli_cpu - nodes[0]->requested.milli_cpu;
  }

  Profile profile_ = load_scheduling_file(std::string(default_policy_json())).profile;
  StateStore store_;
  GangConfig config_{std::chrono::milliseconds(300), gang::Time(0), 16};
  // coordinator_'s time: it moves only when a test advances it. Held binds still wait in real time.
  std::atomic<int64_t> now_ms_{0};
  void advance(gang::Time d) { now_ms_ += d.count(); }
  GangCoordinator coordinator_{profile_.engine, store_, config_, nullptr,
                               [this] { return gang::Time(now_ms_.load()); }};
};

TEST_F(Gangs, PodsOfNoGroupAreOrdinary) {
  load({});
  auto pod = pod_of(pod_json("default", "web", "", "1"));
  GangGate g = coordinator_.gate(*pod, *store_.current(), nullptr);
  EXPECT_EQ(g.kind, GangGate::Kind::kOrdinary);
  EXPECT_EQ(g.group, "");
  EXPECT_EQ(coordinator_.permit("uid-default-web", "default", "web").group, "");
}

TEST_F(Gangs, UnknownGroupAndTooFewMembersWaitWithAReason) {
  auto objects = members("a", 2, "1");
  load(objects);
  GangGate g = gate("a", 0, "1");
  EXPECT_EQ(g.kind, GangGate::Kind::kRefuse);
  EXPECT_EQ(g.reason, "pod group train/a: no such PodGroup: the pod waits until it exists");

  objects.push_back(pod_group_json("train", "a", 3));
  load(objects);
  g = gate("a", 0, "1");
  EXPECT_EQ(g.kind, GangGate::Kind::kRefuse);
  EXPECT_EQ(g.reason, "pod group train/a: 2 pods of minMember 3: waiting for the rest");
  EXPECT_EQ(g.state, "waiting for members");
  EXPECT_TRUE(coordinator_.held_room()->empty());
}

TEST_F(Gangs, AdmissionHoldsRoomForTheWholeGroupAndFiltersEachMemberToItsNode) {
  auto objects = members("a", 4, "2");
  objects.push_back(pod_group_json("train", "a", 4));
  load(objects);
  std::set<std::string> nodes;
  for (int i = 0; i < 4; ++i) {
    GangGate g = gate("a", i);
    ASSERT_EQ(g.kind, GangGate::Kind::kOnlyNode) << i << ": " << g.reason;
    nodes.insert(g.node);
    EXPECT_EQ(g.reason, "pod group train/a: node " + g.node + " is held for this member");
  }
  // 8 CPU held in all; LeastRequested spreads the members one a node.
  int64_t free = 0;
  for (int n = 0; n < 4; ++n) free += free_cpu("n" + std::to_string(n));
  EXPECT_EQ(free, 16000 - 8000);
  EXPECT_EQ(nodes.size(), 4u);
  // The member's own room is not in its way.
  const NodeInfo* own = store_.current()->find_node(*nodes.begin());
  std::vector<const NodeInfo*> view{own};
  std::deque<NodeInfo> copies;
  apply_held_room(*coordinator_.held_room(), view, copies, uid("a", 0));
  EXPECT_LE(view[0]->pods.size(), 1u);
}

TEST_F(Gangs, TwoGangsThatFitOnlyOneAtATimeNeverBothHoldRoom) {
  // 16 CPU: each group wants 12.
  auto objects = members("a", 3, "4");
  for (auto& m : members("b", 3, "4")) objects.push_back(m);
  objects.push_back(pod_group_json("train", "a", 3, 0, "2026-01-01T00:00:00Z"));
  objects.push_back(pod_group_json("train", "b", 3, 0, "2026-01-01T00:00:01Z"));
  load(objects);
  GangGate b = gate("b", 0, "4");
  ASSERT_EQ(b.kind, GangGate::Kind::kOnlyNode);
  GangGate a = gate("a", 0, "4");
  EXPECT_EQ(a.kind, GangGate::Kind::kRefuse);
  EXPECT_EQ(a.state, "waiting for room");
  EXPECT_NE(a.reason.find("pod group train/a: member train/a-"), std::string::npos) << a.reason;
  EXPECT_NE(a.reason.find("fits no node with 1 of 3 members placed"), std::string::npos) << a.reason;
  EXPECT_TRUE(coordinator_.admitted("train/b"));
  EXPECT_FALSE(coordinator_.admitted("train/a"));
}

TEST_F(Gangs, AnOlderWaitingGroupIsAdmittedBeforeAYoungerOne) {
  // Room for one group of 3 x 4 CPU at a time. a (older) waits behind c; once c is gone, b's filter
  // admits a first, and b waits.
  auto objects = members("a", 3, "4");
  for (auto& m : members("b", 3, "4")) objects.push_back(m);
  for (auto& m : members("c", 3, "4")) objects.push_back(m);
  objects.push_back(pod_group_json("train", "a", 3, 0, "2026-01-01T00:00:01Z"));
  objects.push_back(pod_group_json("train", "b", 3, 0, "2026-01-01T00:00:02Z"));
  objects.push_back(pod_group_json("train", "c", 3, 1, "2026-01-01T00:00:00Z"));
  load(objects);
  ASSERT_EQ(gate("c", 0, "4").kind, GangGate::Kind::kOnlyNode);
  EXPECT_EQ(gate("a", 0, "4").kind, GangGate::Kind::kRefuse);
  advance(1100ms);  // past c's timeout: nothing held
  GangGate b = gate("b", 0, "4");
  EXPECT_EQ(b.kind, GangGate::Kind::kRefuse) << b.reason;
  EXPECT_TRUE(coordinator_.admitted("train/a"));
  EXPECT_FALSE(coordinator_.admitted("train/b"));
}

TEST_F(Gangs, AMemberThatFitsNowhereLeavesNothingHeld) {
  auto objects = members("a", 2, "2");
  objects.push_back(gang_pod_json("train", "a-2", "a", "6"));
  objects.push_back(pod_group_json("train", "a", 3));
  load(objects);
  GangGate g = gate("a", 0);
  EXPECT_EQ(g.kind, GangGate::Kind::kRefuse);
  EXPECT_NE(g.reason.find("member train/a-2 fits no node with 2 of 3 members placed (4 Insufficient cpu)"),
            std::string::npos)
      << g.reason;
  EXPECT_TRUE(coordinator_.held_room()->empty());
}

TEST_F(Gangs, BindsAreHeldUntilMinMemberArriveThenAllGo) {
  group_a(3, 3);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(gate("a", i, "1").kind, GangGate::Kind::kOnlyNode);
  auto first = held_bind(coordinator_, 0);
  auto second = held_bind(coordinator_, 1);
  EXPECT_EQ(first.wait_for(50ms), std::future_status::timeout) << "released before the group is complete";
  BindPermit third = permit("a", 2);
  EXPECT_EQ(third.error, "");
  EXPECT_EQ(third.group, "train/a");
  // Let go with the completing permit, before their threads wake: the gauge extender-sim waits on
  // never counts a bind already on its way out.
  EXPECT_EQ(coordinator_.held_binds(), 0u);
  EXPECT_EQ(first.get().error, "");
  EXPECT_EQ(second.get().error, "");
  for (int i = 0; i < 3; ++i) coordinator_.bound({"train/a", "", {}}, uid("a", i), true);
  EXPECT_TRUE(coordinator_.held_room()->empty());
  EXPECT_FALSE(coordinator_.admitted("train/a")) << "done: forgotten";
}

// The scheduler's queue brings a group's members to bind seconds apart (its backoff doubles from 1 s
// to 10 s): a member whose call had to be answered first still counts as arrived, keeps its node, and
// is bound by the bind that completes its group.
TEST_F(Gangs, AHoldEndsBelowTheHttpTimeoutAndTheMemberStaysAtBind) {
  group_a(2, 2);
  const std::string node = gate("a", 0, "1").node;
  ASSERT_EQ(gate("a", 1, "1").kind, GangGate::Kind::kOnlyNode);
  const auto start = std::chrono::steady_clock::now();
  BindPermit p = permit("a", 0);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 250ms);
  EXPECT_NE(p.error.find("not binding pod train/a-0 yet: pod group train/a has 1 of 2 members at bind after "
                         "0.3s; this member stays at bind, and is bound to node " +
                         node + " as soon as its group completes"),
            std::string::npos)
      << p.error;
  EXPECT_TRUE(p.detached.empty());
  EXPECT_TRUE(coordinator_.admitted("train/a"));
  EXPECT_FALSE(coordinator_.held_room()->empty());
  EXPECT_EQ(coordinator_.held_binds(), 0u);
  EXPECT_EQ(coordinator_.detached_members(), 1u);

  BindPermit last = permit("a", 1);
  EXPECT_EQ(last.error, "");
  ASSERT_EQ(last.detached.size(), 1u);
  EXPECT_EQ(last.detached[0].uid, uid("a", 0));
  EXPECT_EQ(last.detached[0].namespace_, "train");
  EXPECT_EQ(last.detached[0].name, "a-0");
  EXPECT_EQ(last.detached[0].node, node);
  EXPECT_EQ(coordinator_.detached_members(), 0u);
  coordinator_.bound(last, uid("a", 1), true);
  coordinator_.bound(last, uid("a", 0), true);
  EXPECT_TRUE(coordinator_.held_room()->empty());
}

// The scheduler schedules a deferred member again (its bind was answered with an Error): its filter
// passes only its node, before and after its group completes, and a bind anywhere else is refused,
// never made. The scheduler's own bind to the held node after the group's completion is a plain bind.
TEST_F(Gangs, ADeferredMemberKeepsToItsNodeThroughEveryRetry) {
  group_a(2, 2);
  const std::string node = gate("a", 0, "1").node;
  ASSERT_EQ(gate("a", 1, "1").kind, GangGate::Kind::kOnlyNode);
  ASSERT_NE(permit("a", 0).error, "") << "deferred: the hold ends before its group completes";
  const std::string other = node == "n0" ? "n1" : "n0";
  struct Retry {
    const char* when;
    bool complete_first;
  };
  for (const Retry r : {Retry{"before its group completes", false}, Retry{"after", true}}) {
    SCOPED_TRACE(r.when);
    if (r.complete_first) {
      BindPermit last = coordinator_.permit(uid("a", 1), "train", "a-1", gate("a", 1, "1").node);
      ASSERT_EQ(last.error, "");
      ASSERT_EQ(last.detached.size(), 1u);
      coordinator_.bound(last, uid("a", 1), true);
    }
    const GangGate again = gate("a", 0, "1");
    EXPECT_EQ(again.kind, GangGate::Kind::kOnlyNode);
    EXPECT_EQ(again.node, node);
    const BindPermit elsewhere = coordinator_.permit(uid("a", 0), "train", "a-0", other);
    EXPECT_EQ(elsewhere.error, "not binding pod train/a-0 to node " + other + ": node " + node +
                                   " is held for this member of pod group train/a");
    EXPECT_TRUE(elsewhere.detached.empty());
  }
  const BindPermit there = coordinator_.permit(uid("a", 0), "train", "a-0", node);
  EXPECT_EQ(there.error, "");
  coordinator_.bound(there, uid("a", 0), true);
  EXPECT_TRUE(coordinator_.held_room()->empty());
}

// The bind that completes a group makes the Bindings of its members whose calls were answered before
// (BindPermit::detached); the cache counts each on its node from the moment it is sent. The scheduler,
// which had that member's call answered with an Error and has not seen its Binding yet, may try it
// again meanwhile: its filter passes only that node, and a bind anywhere else is refused. Passing
// every node let the scheduler bind a member outside its group's rack, before the Binding on its way.
TEST_F(Gangs, AMemberWhoseBindingIsOnItsWayKeepsToItsNode) {
  group_a(2, 2);
  GangCoordinator c(profile_.engine, store_, GangConfig{10s, gang::Time(0), 0});  // no call is held
  auto gate_c = [&](int i) {
    auto pod = pod_of(gang_pod_json("train", "a-" + std::to_string(i), "a", "1"));
    return c.gate(*pod, *store_.current(), nullptr);
  };
  const std::string node = gate_c(0).node;
  const std::string node1 = gate_c(1).node;
  ASSERT_NE(c.permit(uid("a", 0), "train", "a-0", node).error, "") << "deferred: answered at once";
  const BindPermit last = c.permit(uid("a", 1), "train", "a-1", node1);
  ASSERT_EQ(last.error, "");
  ASSERT_EQ(last.detached.size(), 1u);
  c.bound(last, uid("a", 1), true);
  // a-0's Binding is sent: the cache counts it on its node.
  load({gang_pod_json("train", "a-0", "a", "1", node), gang_pod_json("train", "a-1", "a", "1", node1),
        pod_group_json("train", "a", 2)});

  const GangGate again = gate_c(0);
  EXPECT_EQ(again.kind, GangGate::Kind::kOnlyNode);
  EXPECT_EQ(again.node, node);
  EXPECT_EQ(again.reason, "pod group train/a: this member is bound to node " + node + " already");
  const std::string other = node == "n3" ? "n2" : "n3";
  EXPECT_EQ(c.permit(uid("a", 0), "train", "a-0", other).error,
            "not binding pod train/a-0 to node " + other + ": it is bound to node " + node + " already");
  const BindPermit there = c.permit(uid("a", 0), "train", "a-0", node);
  EXPECT_EQ(there.error, "") << "the scheduler's own bind to that node: done when the API says so";
  EXPECT_TRUE(c.held_room(store_.current().get())->empty());
}

TEST_F(Gangs, AtTheTimeoutEveryHeldBindFailsAndTheRoomIsReleased) {
  group_a(3, 3, 1);
  auto c = admitted_a(GangConfig{5s, gang::Time(60'000), 16});
  BindPermit p = c->permit(uid("a", 0), "train", "a-0");
  EXPECT_EQ(p.error,
            "not binding pod train/a-0: pod group train/a timed out after 1s with 1 of minMember 3 "
            "members at bind");
  EXPECT_TRUE(c->held_room()->empty());
  auto pod = pod_of(gang_pod_json("train", "a-0", "a", "1"));
  GangGate again = c->gate(*pod, *store_.current(), nullptr);
  EXPECT_EQ(again.kind, GangGate::Kind::kRefuse);
  EXPECT_EQ(again.state, "backing off");
}

TEST_F(Gangs, ADeletedGroupAnswersItsHeldBinds) {
  group_a(3, 3);
  auto c = admitted_a(GangConfig{10s, gang::Time(0), 16});
  auto held = held_bind(*c, 0);
  load(members("a", 3, "1"));  // the PodGroup is gone
  BindPermit other = c->permit(uid("a", 1), "train", "a-1");
  EXPECT_EQ(other.error, "not binding pod train/a-1: pod group train/a is not admitted");
  EXPECT_EQ(held.get().error, "not binding pod train/a-0: pod group train/a was deleted");
  EXPECT_TRUE(c->held_room()->empty());
}

TEST_F(Gangs, StopAnswersHeldBindsAtOnce) {
  group_a(2, 2);
  auto c = admitted_a(GangConfig{10s, gang::Time(0), 16});
  auto held = held_bind(*c, 0);
  c->stop();
  EXPECT_EQ(held.get().error, "not binding pod train/a-0: the extender is shutting down");
}

// Held calls are bounded; a member over the bound is answered at once and still counts as arrived.
TEST_F(Gangs, HeldBindsAreBoundedAndOverTheBoundStillArrive) {
  group_a(3, 3);
  auto c = admitted_a(GangConfig{10s, gang::Time(0), 1});
  auto held = held_bind(*c, 0);
  BindPermit second = c->permit(uid("a", 1), "train", "a-1");
  EXPECT_NE(second.error.find("not binding pod train/a-1 yet: pod group train/a has 2 of 3 members at bind "
                              "(1 bind calls are held already: --gang-max-held-binds)"),
            std::string::npos)
      << second.error;
  BindPermit third = c->permit(uid("a", 2), "train", "a-2");
  EXPECT_EQ(third.error, "");
  ASSERT_EQ(third.detached.size(), 1u);
  EXPECT_EQ(third.detached[0].uid, uid("a", 1));
  EXPECT_EQ(held.get().error, "") << "a-0's held call binds it";
}

// With several replicas the scheduler may filter on one and bind through the Lease holder, which never
// saw the group: the holder admits it at the first bind, and holds the binds as if it had.
TEST_F(Gangs, AGroupFilteredElsewhereIsAdmittedAtItsFirstBind) {
  group_a(2, 2);
  GangCoordinator c(profile_.engine, store_, GangConfig{10s, gang::Time(0), 16});
  auto first = held_bind(c, 0);
  EXPECT_TRUE(c.admitted("train/a"));
  EXPECT_EQ(c.permit(uid("a", 1), "train", "a-1").error, "");
  EXPECT_EQ(first.get().error, "");

  // A group that does not fit here is refused at bind; nothing of it is held.
  auto objects = members("b", 8, "3");
  objects.push_back(pod_group_json("train", "b", 8));
  load(objects);
  GangCoordinator other(profile_.engine, store_, GangConfig{10s, gang::Time(0), 16});
  BindPermit p = other.permit(uid("b", 0), "train", "b-0");
  EXPECT_EQ(p.group, "train/b");
  EXPECT_EQ(p.error, "not binding pod train/b-0: pod group train/b is not admitted");
  EXPECT_TRUE(other.held_room()->empty());
}

// The other side of the same: the replica that admitted the group at filter never sees its binds
// (the holder made them). Once the watch shows the members bound, their room is theirs, no longer
// held, and the group is complete: it does not time out.
TEST_F(Gangs, RoomHeldForMembersTheWatchShowsBoundIsReleased) {
  group_a(2, 2, 1);
  ASSERT_EQ(gate("a", 0, "1").kind, GangGate::Kind::kOnlyNode);
  ASSERT_EQ(gate("a", 1, "1").kind, GangGate::Kind::kOnlyNode);
  ASSERT_FALSE(coordinator_.held_room()->empty());
  load({gang_pod_json("train", "a-0", "a", "1", "n0"), gang_pod_json("train", "a-1", "a", "1", "n1"),
        pod_group_json("train", "a", 2, 1)});
  EXPECT_TRUE(coordinator_.held_room(store_.current().get())->empty());
  EXPECT_FALSE(coordinator_.admitted("train/a")) << "complete: forgotten";
}

TEST_F(Gangs, ARunningGroupsLaterMembersAreOrdinary) {
  std::vector<std::string> objects{gang_pod_json("train", "a-0", "a", "1", "n0"),
                                   gang_pod_json("train", "a-1", "a", "1", "n1"),
                                   gang_pod_json("train", "a-2", "a", "1"), pod_group_json("train", "a", 2)};
  load(objects);
  GangGate g = gate("a", 2, "1");
  EXPECT_EQ(g.kind, GangGate::Kind::kOrdinary);
  EXPECT_EQ(g.state, "running, 2 bound");
  BindPermit p = permit("a", 2);
  EXPECT_EQ(p.group, "train/a");
  EXPECT_EQ(p.error, "");
}

// A bind check_bind lets go takes its room in every admission until it ends: the cache counts the pod
// on its node only once its Binding is sent, and an admission on a state taken before that gave the
// same room to a member (seen against the real scheduler with two replicas: the member was then
// unschedulable on the node held for it, and its group timed out).
TEST_F(Gangs, ABindInFlightTakesItsRoomFromAdmissions) {
  // Group a: four members of 4 CPU need every node whole; pod "web" (4 CPU) is being bound to n0.
  auto objects = members("a", 4, "4");
  objects.push_back(pod_group_json("train", "a", 4));
  objects.push_back(pod_json("default", "web", "", "4", "Pending"));
  load(objects);
  const std::shared_ptr<const ClusterState> before_the_assumption = store_.current();
  ASSERT_EQ(coordinator_.check_bind("uid-default-web", "default", "web", "n0"), "");

  auto a0 = pod_of(gang_pod_json("train", "a-0", "a", "4"));
  GangGate g = coordinator_.gate(*a0, *before_the_assumption, nullptr);
  EXPECT_EQ(g.kind, GangGate::Kind::kRefuse) << "admitted onto n0, where web is being bound: " << g.node;
  EXPECT_EQ(g.state, "waiting for room");

  // The bind failed: the room is free again, and the group is admitted whole.
  coordinator_.bind_ended("uid-default-web");
  EXPECT_EQ(coordinator_.gate(*a0, *before_the_assumption, nullptr).kind, GangGate::Kind::kOnlyNode);
}

// An ordinary pod filtered where a group's room was not yet seen (before its admission, or on a replica
// whose copy of the holder's room lagged) reaches bind on a node held for the group: refused when it
// fits there only in the held room, let through otherwise.
TEST_F(Gangs, AnOrdinaryBindIntoHeldRoomIsRefused) {
  // Group a: four members of 4 CPU hold every node whole. Pod "small" (1 CPU) fits any node without
  // them; "huge" (8 CPU) fits none even so.
  auto objects = members("a", 4, "4");
  objects.push_back(pod_group_json("train", "a", 4));
  objects.push_back(pod_json("default", "small", "", "1", "Pending"));
  objects.push_back(pod_json("default", "huge", "", "8", "Pending"));
  load(objects);
  EXPECT_EQ(coordinator_.check_bind("uid-default-small", "default", "small", "n0"), "") << "nothing held yet";
  coordinator_.bind_ended("uid-default-small");  // its Binding failed: the pod is pending again

  ASSERT_EQ(gate("a", 0, "4").kind, GangGate::Kind::kOnlyNode);
  for (int i = 0; i < 4; ++i) {
    const std::string node = "n" + std::to_string(i);
    EXPECT_EQ(coordinator_.check_bind("uid-default-small", "default", "small", node),
              "not binding pod default/small to node " + node +
                  ": room there is held for pod group train/a (Insufficient cpu)");
    // Not the room's doing: left to bind (and fail) as it would.
    EXPECT_EQ(coordinator_.check_bind("uid-default-huge", "default", "huge", node), "");
  }
  // A member binds into its own room. A pod the state does not have yet (its bind passed on from a
  // replica whose watch is ahead) cannot be checked against the room: refused, and tried again.
  const std::string a0_node = gate("a", 0, "4").node;
  EXPECT_EQ(coordinator_.check_bind(uid("a", 0), "train", "a-0", a0_node), "");
  EXPECT_EQ(coordinator_.check_bind("uid-unknown", "default", "unknown", "n0"),
            "not binding pod default/unknown to node n0: room there is held for pod group train/a, and the "
            "extender's cache does not have the pod yet to check it");
}

// The e2e cluster's nodes are tainted, and its pods tolerate the taint. The cache keeps no pod's
// tolerations, so the check cannot ask whether the pod fits the node at all, only whether the held room
// changes the answer (seen against the real scheduler with two replicas: a pod filtered on a lagging
// replica was bound into a member's held room, the member was then unschedulable there, and its group
// timed out).
TEST_F(Gangs, AnOrdinaryBindIntoHeldRoomIsRefusedOnATaintedNode) {
  const kubeobjects::Taint taint{"dedicated", "gang", "NoSchedule"};
  const kubeobjects::Toleration tolerates{"dedicated", "Equal", "gang", "NoSchedule", std::nullopt};
  std::string items = R"({"kind":"List","items":[)";
  for (int i = 0; i < 4; ++i)
    items += (i ? "," : "") + node_json("n" + std::to_string(i), "4", "8Gi", {}, {taint});
  auto pending = [&](const std::string& ns, const std::string& name, const std::string& group,
                     const std::string& cpu) {
    kubeobjects::Pod p = pod_object(ns, name, "", cpu, "c", "trainer");
    if (!group.empty()) p.metadata.labels = {{"scheduling.x-k8s.io/pod-group", group}};
    p.phase = "Pending";
    p.tolerations.push_back(tolerates);
    return kubeobjects::to_json(p, kubeobjects::TypeMeta::kWrite);
  };
  for (int i = 0; i < 4; ++i) items += "," + pending("train", "a-" + std::to_string(i), "a", "4");
  items += "," + pod_group_json("train", "a", 4) + "," + pending("default", "small", "", "1") + "]}";
  store_.publish(state_from_json(items));

  auto a0 = pod_of(pending("train", "a-0", "a", "4"));
  ASSERT_EQ(coordinator_.gate(*a0, *store_.current(), nullptr).kind, GangGate::Kind::kOnlyNode);
  for (int i = 0; i < 4; ++i) {
    const std::string node = "n" + std::to_string(i);
    EXPECT_EQ(coordinator_.check_bind("uid-default-small", "default", "small", node),
              "not binding pod default/small to node " + node +
                  ": room there is held for pod group train/a (Insufficient cpu)");
  }
}

}  // namespace
}  // namespace coordinator_test
}  // namespace kext::testing
