// The queue and cycle changes by Kubernetes minor (sim/core/queueing_hints.h scheduler_since): each
// run at the minor that brought the change and at the minor before, the decisions differing in a
// placement or a time.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/core/queueing_hints.h"
#include "sim/core/simulator.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/support/test_builders.h"

namespace kext::sim {
namespace kube_minor_test {
namespace {

using kext::sim::testing::kEpoch;
using kext::sim::testing::least_requested_engine;
using kext::sim::testing::sim_pod;
using kext::testing::GiB;
using kext::testing::make_node;
using std::chrono::milliseconds;
using std::chrono::seconds;

// One decision: when (ms), whose, what, where.
struct Line {
  int64_t at_ms;
  std::string uid;
  Outcome outcome;
  std::string node;
  bool operator==(const Line&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Line& l) {
  return os << l.at_ms << "ms " << l.uid << " " << static_cast<int>(l.outcome) << " " << l.node;
}

SimulatorOptions at_minor(int minor, uint64_t seed = 1) {
  SimulatorOptions o;
  o.epoch_unix_seconds = kEpoch;
  o.preemption.version = KubeVersion{minor};
  o.seed = seed;
  return o;
}

std::vector<Line> run(Simulator& sim) {
  std::vector<Line> out;
  sim.run([&](const CycleRecord& d) {
    out.push_back({std::chrono::duration_cast<milliseconds>(d.at).count(), d.uid, d.outcome, d.node});
  });
  return out;
}

// An extender that refuses n2 until a pod named "unlock" runs in the cluster, and scores every node
// alike; filters otherwise as the engine does.
struct LockedExtender : CycleBackend {
  const Engine* engine = nullptr;
  std::vector<FilterStatus> filter(const SimCluster& cluster, const Pod& pod,
                                   std::span<const NodeInfo* const> nodes) override {
    std::vector<FilterStatus> out = engine->filter(PodContext(pod), nodes);
    const bool unlocked = cluster.pod("uid-unlock") != nullptr;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i]->name() == "n2" && !unlocked)
        out[i] = FilterStatus::unresolvable({"locked by the extender"});
    return out;
  }
  std::vector<int64_t> score(const SimCluster&, const Pod&, std::span<const NodeInfo* const> nodes) override {
    return std::vector<int64_t>(nodes.size(), 5);
  }
  std::vector<preemption::Candidate> preempt(const SimCluster&, const Pod&,
                                             std::vector<preemption::Candidate> c) override {
    return c;
  }
};

// "web" fails NodeResourcesFit on the full n1 and the extender's lock on n2. A pod created bound on
// n1 at 5 s (an assigned pod added) unlocks n2: only an extender cares, and NodeResourcesFit's
// registered events (and its hints) do not include it. From 1.29 the "Extender" rejector moves web
// on it; at 1.28 nothing does, and web is still pending at the end.
TEST(KubeMinor, ExtenderRejectionRequeuesOnAnyEventFrom129) {
  const auto placed = [](int minor) {
    auto eng = least_requested_engine();
    LockedExtender ext;
    ext.engine = eng.get();
    SimCluster cluster;
    cluster.add_node(make_node("n1", 1000, 4 * GiB));
    cluster.add_node(make_node("n2", 1000, 4 * GiB));
    cluster.add_pod(sim_pod("full", 900, 0, "n1"));
    SimulatorOptions o = at_minor(minor);
    o.backend = &ext;
    o.scoring.in_tree = true;
    Simulator sim(std::move(cluster), *eng, o);
    sim.add_pending(sim_pod("web", 800, 0), seconds(0));
    sim.add_bound(sim_pod("unlock", 50, 0, "n1"), seconds(5));
    return run(sim);
  };
  EXPECT_EQ(placed(28), (std::vector<Line>{{0, "uid-web", Outcome::kUnschedulable, ""}}));
  EXPECT_EQ(placed(29), (std::vector<Line>{{0, "uid-web", Outcome::kUnschedulable, ""},
                                           {5000, "uid-web", Outcome::kScheduled, "n2"}}));
}

// "web" needs zone=a; n1 is zone=b. At 5 s n1 gains an unrelated label, at 10 s it becomes zone=a.
// Without hints (1.31) every node change moves a pod NodeAffinity rejected, so web is tried again
// at 5 s in vain; with hints (1.32) NodeAffinity's isSchedulableAfterNodeChange skips that change.
TEST(KubeMinor, QueueingHintsSkipChangesTheRejectingPluginDoesNotCareAboutFrom132) {
  const auto decisions = [](int minor) {
    auto eng = build_engine(parse_policy(
        R"({"predicates":[{"name":"MatchNodeSelector"}],"priorities":[{"name":"LeastRequestedPriority","weight":1}]})"));
    SimCluster cluster;
    Node n1 = make_node("n1", 1000, 4 * GiB);
    n1.labels["zone"] = "b";
    cluster.add_node(n1);
    Simulator sim(std::move(cluster), *eng, at_minor(minor));
    Pod web = sim_pod("web", 100, 0);
    web.node_selector["zone"] = "a";
    sim.add_pending(web, seconds(0));
    n1.labels["team"] = "x";
    sim.change_node(n1, seconds(5));
    n1.labels["zone"] = "a";
    sim.change_node(n1, seconds(10));
    return run(sim);
  };
  EXPECT_EQ(decisions(31), (std::vector<Line>{{0, "uid-web", Outcome::kUnschedulable, ""},
                                              {5000, "uid-web", Outcome::kUnschedulable, ""},
                                              {10000, "uid-web", Outcome::kScheduled, "n1"}}));
  EXPECT_EQ(decisions(32), (std::vector<Line>{{0, "uid-web", Outcome::kUnschedulable, ""},
                                              {10000, "uid-web", Outcome::kScheduled, "n1"}}));
}

// "web" fails on the full n1 at 0 s; the pod filling it completes at 0.5 s, which moves web to
// podBackoffQ (its 1 s backoff runs until 1 s). Before 1.33 it waits for the flush at 1 s; from
// 1.33 Pop takes it from podBackoffQ at once, activeQ being empty.
TEST(KubeMinor, PopFromBackoffQWhenActiveQIsEmptyFrom133) {
  const auto decisions = [](int minor) {
    auto eng = least_requested_engine();
    SimCluster cluster;
    cluster.add_node(make_node("n1", 1000, 4 * GiB));
    cluster.add_pod(sim_pod("full", 1000, 0, "n1"));
    Simulator sim(std::move(cluster), *eng, at_minor(minor));
    sim.set_lifecycle("uid-full", Lifecycle{.runtime = milliseconds(500)});
    sim.add_pending(sim_pod("web", 500, 0), seconds(0));
    return run(sim);
  };
  EXPECT_EQ(decisions(32), (std::vector<Line>{{0, "uid-web", Outcome::kUnschedulable, ""},
                                              {1000, "uid-web", Outcome::kScheduled, "n1"}}));
  EXPECT_EQ(decisions(33), (std::vector<Line>{{0, "uid-web", Outcome::kUnschedulable, ""},
                                              {500, "uid-web", Outcome::kScheduled, "n1"}}));
}

// Two empty nodes tie: at every minor some seed places the pod on n2. From 1.35 nodes no extender
// scored carry no Randomizer, and their tie goes to the parallel filter's order of completion, drawn.
TEST(KubeMinor, TiesWithoutAnExtenderAreDrawnAtEveryMinor) {
  const auto nodes_chosen = [](int minor) {
    std::set<std::string> chosen;
    for (uint64_t seed = 1; seed <= 16; ++seed) {
      auto eng = least_requested_engine();
      SimCluster cluster;
      cluster.add_node(make_node("n1", 1000, 4 * GiB));
      cluster.add_node(make_node("n2", 1000, 4 * GiB));
      Simulator sim(std::move(cluster), *eng, at_minor(minor, seed));
      sim.add_pending(sim_pod("web", 100, 0), seconds(0));
      for (const Line& l : run(sim)) chosen.insert(l.node);
    }
    return chosen;
  };
  EXPECT_EQ(nodes_chosen(34), (std::set<std::string>{"n1", "n2"}));
  EXPECT_EQ(nodes_chosen(35), (std::set<std::string>{"n1", "n2"}));
}

// From 1.35 every node an extender scored draws a Randomizer (one draw per node); without an extender
// the tie is drawn as before 1.35 (one draw per tie after the first).
TEST(KubeMinor, ExtenderScoredNodesDrawARandomizerEachFrom135) {
  std::set<size_t> chosen;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    Rng rng(seed);
    const int64_t totals[] = {50, 70, 70, 10};
    chosen.insert(select_host_by_randomizer(totals, true, rng));
  }
  EXPECT_EQ(chosen, (std::set<size_t>{1, 2}));
  const int64_t totals[] = {70, 50, 70};
  const auto draws = [&](bool extender_scored) {
    Rng rng(1);
    select_host_by_randomizer(totals, extender_scored, rng);
    Rng reference(1);
    for (int n = 0; n < 8; ++n) {
      if (reference == rng) return n;
      reference();
    }
    return -1;
  };
  EXPECT_EQ(draws(true), 3);   // one per node
  EXPECT_EQ(draws(false), 1);  // select_host: one for the second 70
}

// The hints of the plugins the simulator runs, one row per plugin and event.
TEST(QueueingHints, EachPluginsHintOnItsEvents) {
  Node before = make_node("n1", 1000, 4 * GiB);
  before.labels["zone"] = "b";
  before.taints.push_back({"dedicated", "x", "NoSchedule"});
  before.unschedulable = true;
  Pod pod = sim_pod("web", 2000, 0);
  pod.node_selector["zone"] = "a";
  const Resources requests = make_pod_info(std::make_shared<const Pod>(pod)).requests;

  Node relabelled = before;
  relabelled.labels["zone"] = "a";
  Node untainted = before;
  untainted.taints.clear();
  Node schedulable = before;
  schedulable.unschedulable = false;
  Node bigger = before;
  bigger.allocatable.milli_cpu = 4000;

  struct Row {
    Rejector plugin;
    const Node* after;
    bool queue;
  };
  const Row rows[] = {
      {Rejector::kNodeAffinity, &relabelled, true},
      {Rejector::kNodeAffinity, &untainted, false},
      {Rejector::kTaintToleration, &untainted, true},
      {Rejector::kTaintToleration, &relabelled, false},
      {Rejector::kNodeUnschedulable, &schedulable, true},
      {Rejector::kNodeUnschedulable, &bigger, false},
      {Rejector::kNodeResourcesFit, &bigger, true},
      {Rejector::kNodeResourcesFit, &relabelled, false},
      {Rejector::kNodeName, &bigger, false},
      {Rejector::kExtender, &relabelled, true},
  };
  for (const Row& r : rows) {
    const EventObjects e{.event = ClusterEvent::kNodeChanged, .old_node = &before, .new_node = r.after};
    EXPECT_EQ(worth_requeuing(pod, requests, bit(r.plugin), e, LabelKeys::kMerged), r.queue)
        << static_cast<uint32_t>(r.plugin);
  }
  const Pod other = sim_pod("other", 100, 0, "n1");
  const EventObjects deleted{.event = ClusterEvent::kPodDeleted, .old_pod = &other};
  EXPECT_TRUE(worth_requeuing(pod, requests, bit(Rejector::kNodeResourcesFit), deleted, LabelKeys::kMerged));
  EXPECT_FALSE(worth_requeuing(pod, requests, bit(Rejector::kNodePorts), deleted,
                               LabelKeys::kMerged));  // held no port
  EXPECT_FALSE(worth_requeuing(pod, requests, bit(Rejector::kTaintToleration), deleted, LabelKeys::kMerged));
  EXPECT_TRUE(worth_requeuing(pod, requests, 0, deleted, LabelKeys::kMerged));  // failed by no plugin
}

}  // namespace
}  // namespace kube_minor_test
}  // namespace kext::sim
