// Gang scheduling through the HTTP verbs, each protocol case on its own (timeouts, upstream's API,
// preemption). Whether gangs bind under kube-scheduler's real queue (backoff, unschedulable pods,
// asynchronous binds) is tests/sim/gang_real_time_test.cc's, with extender-sim --real-time as the
// scheduler. Here the verbs are driven one pod at a time
// through /filter, its /bind sent on without waiting (the scheduler's binding cycle runs on its own
// goroutine), a pod whose filter finds no node or whose bind fails sent back to the queue. Against the
// in-repo API server, which watches back each Binding.
#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "extender/verbs/bind.h"
#include "tests/support/gang_scheduler.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace verbs_gang_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

ServerConfig many_workers() {
  ServerConfig c;
  c.limits.threads = 48;  // room for every held bind and the filters around them
  return c;
}

class GangVerbs : public ::testing::Test {
 protected:
  // 10 nodes of 4 CPU: the cluster of the deadlock measured with kube-scheduler 1.26.
  void SetUp() override {
    for (int i = 0; i < 10; ++i) {
      nodes_.push_back("n" + std::to_string(i));
      api_.put("nodes", node_json(nodes_.back(), "4", "64Gi"));
    }
  }
  void start() {
    client_ = client_for(api_);
    live_ = std::make_unique<kube::LiveState>(*client_, server_.store(), fast_live_options());
    live_->start();
    ASSERT_TRUE(wait_until([&] { return server_.store().ready(); }));
    binder_ = std::make_unique<BindVerb>(*client_, live_->cache(), 30s, nullptr, nullptr, server_.gangs());
  }
  // Creates `group`'s PodGroup and its n members of 2 CPU; returns the members' pod JSON.
  std::vector<std::string> gang(const std::string& group, int min_member, int n, int timeout_seconds,
                                const std::string& created) {
    api_.put("podgroups", pod_group_json("train", group, min_member, timeout_seconds, created));
    std::vector<std::string> pods;
    for (int i = 0; i < n; ++i) {
      pods.push_back(gang_pod_json("train", group + "-" + std::to_string(i), group, "2"));
      api_.put("pods", pods.back());
    }
    return pods;
  }
  std::map<std::string, int> bound_by_app() const { return bound_by_prefix(api_); }

  int most_bound_while(const std::string& app, const std::function<void()>& run) {
    return most_bound_at_once(api_, app, run);
  }
  void schedule(const std::vector<std::string>& pods, const std::function<bool()>& done) {
    schedule_gang_pods(server_.port(), nodes_, pods, done);
  }

  FakeApiServer api_;
  TestServer server_{std::make_shared<ClusterState>(), std::string(default_policy_json()), many_workers(),
                     [this](std::string_view body) { return binder_->bind(body); },
                     GangConfig{1s, gang::Time(1000), 40}};
  std::vector<std::string> nodes_;
  std::unique_ptr<kube::ApiClient> client_;
  std::unique_ptr<kube::LiveState> live_;
  std::unique_ptr<BindVerb> binder_;
};

// kube-scheduler's queue brings a group's members to bind seconds apart. A member whose call was
// answered before its group completed stays at bind on its node: the bind that completes the group
// makes its Binding too, and when the scheduler sends that member's bind again (after its backoff),
// the pod is on that node already and the bind is done.
TEST_F(GangVerbs, AMemberAnsweredBeforeItsGroupCompletedIsBoundWithIt) {
  const std::vector<std::string> pods = gang("e", 2, 2, 30, "2026-01-01T00:00:00Z");
  start();
  auto filter = [&](const std::string& json) {
    auto r = server_.post("/filter", names_request(json, nodes_));
    EXPECT_TRUE(r && r->status == 200);
    auto d = parse(r->body);
    return d["NodeNames"].IsArray() && d["NodeNames"].Size() == 1 ? std::string(d["NodeNames"][0].GetString())
                                                                  : std::string();
  };
  auto bind = [&](const std::string& name, const std::string& node) {
    auto r =
        server_.post("/bind", R"({"PodName":")" + name + R"(","PodNamespace":"train","PodUID":"uid-train-)" +
                                  name + R"(","Node":")" + node + R"("})");
    EXPECT_TRUE(r && r->status == 200);
    return std::string(parse(r->body)["Error"].GetString());
  };
  const std::string n0 = filter(pods[0]);
  ASSERT_FALSE(n0.empty());
  const std::string held = bind("e-0", n0);  // held for the 1 s hold, then answered
  EXPECT_NE(held.find("this member stays at bind, and is bound to node " + n0), std::string::npos) << held;
  EXPECT_TRUE(api_.bindings().empty());
  const std::string n1 = filter(pods[1]);
  ASSERT_FALSE(n1.empty());
  EXPECT_EQ(bind("e-1", n1), "");
  EXPECT_EQ(bound_by_app()["e"], 2) << "e-0 bound with e-1";
  EXPECT_EQ(bind("e-0", n0), "") << "the scheduler's retry: on its node already";
  EXPECT_EQ(api_.bindings().size(), 2u);
}

// A group admitted whose last member never reaches bind (stuck in the scheduler): the members that do
// are held, answered, held again, and at the group's timeout all answered with an Error; no pod of it is
// ever bound, and nothing stays held.
TEST_F(GangVerbs, AGangThatCannotCompleteBindsNothingAndHoldsNothingAfterItsTimeout) {
  std::vector<std::string> pods = gang("d", 4, 4, 2, "2026-01-01T00:00:00Z");
  pods.pop_back();  // d-3 exists, but never comes to the extender
  start();
  const auto start_at = Clock::now();
  const int most = most_bound_while("d", [&] {
    schedule(pods, [&] {
      return Clock::now() - start_at > 3500ms;  // past the 2 s timeout, and into the 1 s backoff
    });
  });
  EXPECT_EQ(most, 0);
  EXPECT_GE(server_.metrics().gangs_timed_out(), 1u);
  EXPECT_EQ(server_.gangs()->held_binds(), 0u);
  // The scheduler has stopped sending d's pods: once the admission that followed the backoff times out
  // too, nothing is held, without any request to notice it.
  EXPECT_TRUE(wait_until([&] { return server_.gangs()->held_room()->empty(); }, 5s));
  EXPECT_FALSE(server_.gangs()->admitted("train/d"));
}

// Upstream's PodGroups (scheduling.k8s.io/v1alpha2), their pods naming them in spec.schedulingGroup:
// a gang binds whole, a gang short of minCount binds nothing, and the basic policy's pods bind one by
// one as any pod.
TEST_F(GangVerbs, UpstreamPodGroupsBindWholeOrAsAnyPodUnderTheBasicPolicy) {
  const std::string upstream = "podgroups.scheduling.k8s.io";
  api_.put(upstream, upstream_pod_group_json("train", "u", 4));
  api_.put(upstream, upstream_pod_group_json("train", "short", 3));
  api_.put(upstream, upstream_pod_group_json("train", "basic", 0));
  // The same name in scheduler-plugins' API is another group, which u's pods do not belong to.
  api_.put("podgroups", pod_group_json("train", "u", 9));
  std::vector<std::string> pods;
  for (int i = 0; i < 4; ++i)
    pods.push_back(upstream_gang_pod_json("train", "u-" + std::to_string(i), "u", "2"));
  for (int i = 0; i < 2; ++i)
    pods.push_back(upstream_gang_pod_json("train", "short-" + std::to_string(i), "short", "1"));
  for (int i = 0; i < 2; ++i)
    pods.push_back(upstream_gang_pod_json("train", "basic-" + std::to_string(i), "basic", "1"));
  for (const auto& p : pods) api_.put("pods", p);
  start();
  const int most_u = most_bound_while("u", [&] {
    schedule(pods, [&] {
      auto b = bound_by_app();
      return b["u"] == 4 && b["basic"] == 2;
    });
  });
  auto bound = bound_by_app();
  EXPECT_EQ(bound["u"], 4);
  EXPECT_TRUE(most_u == 0 || most_u == 4) << most_u;
  EXPECT_EQ(bound["basic"], 2);
  EXPECT_EQ(bound["short"], 0);
  auto log = server_.client().Get("/debug/decisions?verb=filter&pod=train/short-0");
  ASSERT_TRUE(log);
  EXPECT_NE(log->body.find("pod group train/short (scheduling.k8s.io): 2 pods of minCount 3"),
            std::string::npos)
      << log->body;
}

// Whole-group preemption, as the scheduler's PostFilter calls /preempt for a member that no node
// passed. Every node runs a 3-CPU pod: a group of two 3-CPU members fits nowhere, and evicting one pod
// makes room for one member only.
class GangPreemption : public GangVerbs {
 protected:
  // Fills every node with a 3-CPU pod of `priority` ("filler-<node>"); n0's belongs to a running group.
  void fill(int priority) {
    api_.put("podgroups", pod_group_json("train", "running", 1));
    for (const std::string& n : nodes_) {
      api_.put("pods", n == "n0" ? gang_pod_json("train", "filler-n0", "running", "3", "n0", priority)
                                 : pod_json("default", "filler-" + n, n, "3", "Running", priority, "filler"));
    }
    api_.put("podgroups", pod_group_json("train", "p", 2, 30));
    for (int i = 0; i < 2; ++i) {
      members_.push_back(gang_pod_json("train", "p-" + std::to_string(i), "p", "3", "", 100));
      api_.put("pods", members_.back());
    }
  }
  // /preempt for `member`, every node offered with its filler; node -> victims' UIDs.
  std::map<std::string, std::vector<std::string>> preempt(const std::string& member) {
    std::string offered;
    for (const std::string& n : nodes_) {
      const std::string uid = n == "n0" ? "uid-train-filler-n0" : "uid-default-filler-" + n;
      offered +=
          std::string(offered.empty() ? "" : ",") + R"(")" + n + R"(":{"Pods":[{"UID":")" + uid + R"("}]})";
    }
    auto res = server_.client().Post(
        "/preempt",
        R"({"Pod":)" + member + R"(,"NodeNameToVictims":null,"NodeNameToMetaVictims":{)" + offered + "}}",
        "application/json");
    std::map<std::string, std::vector<std::string>> out;
    EXPECT_TRUE(res && res->status == 200);
    if (!res) return out;
    auto r = parse(res->body);
    for (const auto& node : r["NodeNameToMetaVictims"].GetObject())
      for (const auto& p : node.value["Pods"].GetArray())
        out[node.name.GetString()].push_back(p["UID"].GetString());
    return out;
  }
  // The nodes /filter passes for `pod`.
  std::vector<std::string> filter(const std::string& pod) {
    auto res = server_.client().Post("/filter", names_request(pod, nodes_), "application/json");
    std::vector<std::string> out;
    EXPECT_TRUE(res && res->status == 200);
    if (!res) return out;
    auto d = parse(res->body);
    if (d["NodeNames"].IsArray())
      for (const auto& n : d["NodeNames"].GetArray()) out.push_back(n.GetString());
    return out;
  }
  std::vector<std::string> members_;
};

TEST_F(GangPreemption, EachMemberEvictsOnlyOnTheNodeHeldForItAndTheRoomIsHeld) {
  fill(0);
  start();
  ASSERT_TRUE(filter(members_[0]).empty()) << "the group has no room without evictions";
  EXPECT_FALSE(server_.gangs()->admitted("train/p"));

  // The first member's preemption admits the whole group: one node for each member, evicting one pod
  // of lower priority on each, never the running group's member on n0.
  const auto first = preempt(members_[0]);
  ASSERT_EQ(first.size(), 1u);
  const std::string node0 = first.begin()->first;
  EXPECT_NE(node0, "n0");
  EXPECT_EQ(first.begin()->second, std::vector<std::string>{"uid-default-filler-" + node0});
  EXPECT_TRUE(server_.gangs()->admitted("train/p"));

  // The second member preempts on its own node, another one; asked again, the first gets the same.
  const auto second = preempt(members_[1]);
  ASSERT_EQ(second.size(), 1u);
  const std::string node1 = second.begin()->first;
  EXPECT_NE(node1, node0);
  EXPECT_NE(node1, "n0");
  EXPECT_EQ(second.begin()->second, std::vector<std::string>{"uid-default-filler-" + node1});
  EXPECT_EQ(preempt(members_[0]), first);

  // The room the evictions free is the group's: an ordinary 1-CPU pod fits every other node only.
  const std::vector<std::string> web = filter(pod_json("default", "web", "", "1", "Pending", 0, "web"));
  EXPECT_EQ(web.size(), nodes_.size() - 2);
  for (const std::string& n : web) EXPECT_TRUE(n != node0 && n != node1) << n;

  // Once a victim is gone, its member's filter passes on its node alone, and nothing is left to evict.
  api_.remove("pods", "default/filler-" + node0);
  ASSERT_TRUE(wait_until(
      [&] { return server_.store().current()->find_pod("uid-default-filler-" + node0) == nullptr; }));
  EXPECT_EQ(filter(members_[0]), std::vector<std::string>{node0});
  EXPECT_TRUE(preempt(members_[0]).empty());
}

TEST_F(GangPreemption, AGroupThatDoesNotFitEvenWithEvictionsEvictsNothingAndHoldsNothing) {
  fill(1000);  // every pod outranks the group: nothing may be evicted for it
  start();
  EXPECT_TRUE(filter(members_[0]).empty());
  EXPECT_TRUE(preempt(members_[0]).empty());
  EXPECT_TRUE(preempt(members_[1]).empty());
  EXPECT_FALSE(server_.gangs()->admitted("train/p"));
  EXPECT_TRUE(server_.gangs()->held_room()->empty());
  auto log = server_.client().Get("/debug/decisions?verb=preempt&pod=train/p-0");
  ASSERT_TRUE(log);
  EXPECT_NE(log->body.find("waiting for room, with preemption too"), std::string::npos) << log->body;
}

}  // namespace
}  // namespace verbs_gang_test
}  // namespace kext::testing
