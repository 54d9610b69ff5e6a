#include "sim/core/cycle.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "policy/config.h"
#include "policy/policy.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/support/test_builders.h"

namespace kext::sim {
namespace cycle_test {
namespace {

using kext::sim::testing::kEpoch;
using kext::sim::testing::least_requested_engine;
using kext::sim::testing::sim_pod;
using kext::testing::GiB;
using kext::testing::make_node;
using kext::testing::make_pod;
using std::chrono::seconds;

using Sim = kext::sim::testing::CycleSim;

TEST(Cycle, SchedulesToTheBestScoredNodeAndBinds) {
  Sim s;
  s.cluster.add_pod(sim_pod("busy1", 700, 0, "n1"));
  s.cluster.add_pod(sim_pod("busy3", 300, 0, "n3"));
  s.pending(sim_pod("web", 200, 0));
  auto d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->outcome, Outcome::kScheduled);
  EXPECT_EQ(d->node, "n2") << "LeastRequested prefers the empty node";
  EXPECT_EQ(d->feasible_nodes, 3u);
  EXPECT_EQ(d->cycle, 1);
  EXPECT_EQ(d->attempts, 1);
  EXPECT_EQ(d->pod, "default/web");
  // LeastRequested (v1.16: mean of (capacity - requested) * 10 / capacity over cpu and memory): n2
  // (8 + 9) / 2 = 8, n3 (5 + 8) / 2 = 6, n1 (1 + 8) / 2 = 4.
  EXPECT_EQ(d->score, 8);
  EXPECT_EQ(d->runner_up_score, 6);
  EXPECT_EQ(s.cluster.pod("uid-web")->node_name, "n2");
  EXPECT_EQ(s.cluster.pod("uid-web")->start_time, kEpoch);
  EXPECT_EQ(s.cluster.node("n2")->requested.milli_cpu, 200);
  EXPECT_EQ(s.queue.size(), 0u);
  EXPECT_FALSE(s.cycle().has_value()) << "activeQ is empty";
}

TEST(Cycle, UnschedulableGoesBackWithTheEventsThatCouldHelp) {
  // A pod that fits no node's allocatable is unresolvable: deleting pods cannot help it, only node
  // events can. A pod that fits but finds the nodes full is moved by a pod deletion too.
  struct Case {
    std::string name;
    int64_t cpu_milli;
    bool nodes_full;
    bool pod_deletion_moves;
  };
  const std::vector<Case> cases = {
      {"larger than every node", 2000, false, false},
      {"nodes full", 500, true, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Sim s;
    if (c.nodes_full) {
      // Of priority 0 like the pod, so preemption finds no victims.
      for (const char* n : {"n1", "n2", "n3"})
        s.cluster.add_pod(sim_pod(std::string("full-") + n, 800, 0, n));
    }
    s.pending(sim_pod("p", c.cpu_milli, 0));
    auto d = s.cycle();
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->outcome, Outcome::kUnschedulable);
    EXPECT_EQ(d->feasible_nodes, 0u);
    EXPECT_EQ(d->reasons, (std::map<std::string, size_t>{{"Insufficient cpu", 3}}));
    EXPECT_EQ(d->message, "0/3 nodes are available: 3 Insufficient cpu.");
    ASSERT_EQ(s.queue.where("uid-p"), QueueName::kUnschedulable);
    s.clock.advance(seconds(2));
    s.queue.move_all_to_active_or_backoff(ClusterEvent::kPodDeleted);
    EXPECT_EQ(s.queue.where("uid-p"), c.pod_deletion_moves ? QueueName::kActive : QueueName::kUnschedulable);
    s.queue.move_all_to_active_or_backoff(ClusterEvent::kNodeAdded);
    EXPECT_EQ(s.queue.where("uid-p"), QueueName::kActive);
  }
}

// NodeResourcesFit (LeastAllocated, framework arithmetic) alone: n1 scores 91 of 100, n2 and n3 90
// (each holds a 20m pod). kube-scheduler's selectHost takes n1 every time; on the extender reply's
// 0..10 all three are 9, and the seeded tie-break spreads the pod over them.
TEST(Cycle, RanksOnTheSchedulersTotalsNotTheReplysTenths) {
  const auto fit_only = [] {
    return std::make_unique<Engine>(std::move(load_scheduling_file(R"({
      "apiVersion": "kube-extender.io/v1alpha1", "kind": "ExtenderConfiguration",
      "plugins": {"score": {"disabled": [{"name": "*"}], "enabled": [{"name": "NodeResourcesFit", "weight": 2}]}},
      "pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "LeastAllocated"}}}]})")
                                                  .profile.engine));
  };
  std::set<std::string> chosen[2];
  for (const ScoreScale scale : {ScoreScale::kSchedulerTotal, ScoreScale::kExtenderReply}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      Sim s;
      s.engine = fit_only();
      s.config.engine = s.engine.get();
      s.config.scoring.scale = scale;
      s.state.rng = Rng(seed);
      for (const char* node : {"n2", "n3"}) {
        Pod busy = make_pod(std::string("busy-") + node, 20, 1);  // 1 byte: no scoring default
        busy.node_name = node;
        busy.phase = "Running";
        s.cluster.add_pod(std::move(busy));
      }
      s.pending(sim_pod("web", 100, 0));
      const auto d = s.cycle();
      ASSERT_TRUE(d.has_value() && d->score && d->runner_up_score);
      chosen[scale == ScoreScale::kExtenderReply].insert(d->node);
      ASSERT_EQ(d->score_terms.size(), 1u);
      EXPECT_EQ(d->score_terms[0].name, "NodeResourcesFit");
      EXPECT_EQ(d->score_terms[0].weight, 2);
      if (scale == ScoreScale::kSchedulerTotal) {
        EXPECT_EQ(d->score_terms[0].score, 91);
        EXPECT_EQ(*d->score, 2 * 91);  // weight x score, nothing divided
        EXPECT_EQ(*d->runner_up_score, 2 * 90);
      } else {
        EXPECT_EQ(*d->score, 9);  // the weighted mean of 91 / 10
        EXPECT_EQ(*d->runner_up_score, 9);
      }
    }
  }
  EXPECT_EQ(chosen[0], (std::set<std::string>{"n1"}));
  EXPECT_GT(chosen[1].size(), 1u);
}

TEST(NumFeasibleNodesToFind, AsKubeScheduler) {
  struct Case {
    size_t nodes;
    int32_t percentage;
    size_t want;
  };
  const std::vector<Case> cases = {
      {0, 0, 0},       {50, 0, 50},      {99, 10, 99},       // below 100 nodes: all of them
      {100, 0, 100},   {1000, 0, 420},   {5000, 0, 500},     // adaptive: 50 % - nodes/125
      {6000, 0, 300},  {20000, 0, 1000},                     // ... at least 5 %
      {1000, 30, 300}, {1000, 5, 100},   {1000, 100, 1000},  // set: at least 100 nodes
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.nodes) + " nodes, " + std::to_string(c.percentage) + " %");
    EXPECT_EQ(num_feasible_nodes_to_find(c.nodes, c.percentage), c.want);
  }
}

TEST(Cycle, FilterStopsAtEnoughFeasibleNodesAndRotatesItsStart) {
  // 150 empty nodes: the adaptive share (50 - 1 = 49 %, 73 nodes) is below the minimum of 100, so each
  // cycle stops after 100 feasible nodes, and the next starts where it stopped.
  Sim s;
  for (int i = 4; i <= 150; ++i) s.cluster.add_node(make_node("n" + std::to_string(i), 1000, 4 * GiB));
  s.pending(sim_pod("a", 100, 0));
  s.pending(sim_pod("b", 100, 0));
  auto in_window = [&](const std::string& node, size_t from) {
    const size_t i = *s.cluster.node_position(node);
    return (i + 150 - from) % 150 < 100;
  };
  auto d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->feasible_nodes, 100u);
  EXPECT_EQ(d->evaluated_nodes, 100u);
  EXPECT_TRUE(in_window(d->node, 0)) << d->node;
  EXPECT_EQ(s.state.next_start_node_index, 100u);
  d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(in_window(d->node, 100)) << d->node;
  EXPECT_EQ(s.state.next_start_node_index, 50u);
}

TEST(Cycle, ANominatedPodGoesToItsNodeWhenItFits) {
  // n3 is the worst-scored node (busy), but the pod is nominated there and fits: evaluateNominatedNode
  // takes it without filtering the others or moving the start index.
  Sim s;
  s.cluster.add_pod(sim_pod("busy", 600, 0, "n3"));
  s.pending(sim_pod("p", 300, 10));
  s.queue.add_nominated_pod("uid-p", "n3");
  s.cluster.set_nominated_node("uid-p", "n3");
  auto d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->outcome, Outcome::kScheduled);
  EXPECT_EQ(d->node, "n3");
  EXPECT_EQ(d->evaluated_nodes, 1u);
  EXPECT_FALSE(d->score.has_value()) << "one feasible node is taken without scoring";
  EXPECT_FALSE(d->runner_up_score.has_value());
  EXPECT_EQ(s.state.next_start_node_index, 0u);
  EXPECT_FALSE(s.queue.nominated_node("uid-p").has_value());
}

TEST(FitErrorMessage, SortedAsStrings) {
  // sort.Strings over "<count> <reason>": "10 ..." sorts before "3 ...", as in kube-scheduler's events.
  EXPECT_EQ(fit_error_message(13, {{"Insufficient cpu", 3}, {"node(s) were unschedulable", 10}}),
            "0/13 nodes are available: 10 node(s) were unschedulable, 3 Insufficient cpu.");
  EXPECT_EQ(fit_error_message(2, {{"Insufficient memory", 1}, {"Insufficient cpu", 2}}),
            "0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.");
  EXPECT_EQ(fit_error_message(0, {}), "0/0 nodes are available:");
}

TEST(Cycle, SkipsPodsDeletedWhileQueued) {
  Sim s;
  s.pending(sim_pod("gone", 100, 0));
  s.cluster.delete_pod("uid-gone");
  EXPECT_FALSE(s.cycle().has_value());
  EXPECT_EQ(s.queue.scheduling_cycle(), 1) << "the pop still counted";
}

TEST(Cycle, PreemptsNominatesAndHoldsTheNodeUntilBound) {
  // Every node is full of priority-0 pods; the one on n2 is the youngest, so pickOneNodeForPreemption
  // takes n2 (latest start among the highest-priority victims).
  Sim s;
  s.cluster.add_pod(sim_pod("low1", 1000, 0, "n1", kEpoch - 300));
  s.cluster.add_pod(sim_pod("low2", 1000, 0, "n2", kEpoch - 100));
  s.cluster.add_pod(sim_pod("low3", 1000, 0, "n3", kEpoch - 200));
  s.pending(sim_pod("vip", 500, 100));

  auto d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->outcome, Outcome::kPreempted);
  EXPECT_EQ(d->node, "n2");
  EXPECT_EQ(d->victims, (std::vector<std::string>{"uid-low2"}));
  EXPECT_EQ(d->victim_names, (std::vector<std::string>{"default/low2"}));
  EXPECT_TRUE(s.cluster.pod("uid-low2")->terminating);
  EXPECT_EQ(s.queue.nominated_node("uid-vip"), "n2");
  EXPECT_EQ(s.cluster.pod("uid-vip")->nominated_node_name, "n2");
  EXPECT_EQ(s.queue.where("uid-vip"), QueueName::kUnschedulable);

  // While the victim terminates, vip may not preempt again (a terminating lower-priority pod on its
  // nominated node): the next attempt is a plain failure that keeps the nomination.
  s.clock.advance(seconds(1));
  s.queue.move_all_to_active_or_backoff(ClusterEvent::kNodeChanged);
  d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->outcome, Outcome::kUnschedulable);
  EXPECT_EQ(s.queue.nominated_node("uid-vip"), "n2");

  // The victim's grace period ends.
  s.cluster.delete_pod("uid-low2");
  s.queue.move_all_to_active_or_backoff(ClusterEvent::kPodDeleted);  // vip backs off (2 attempts: 2 s)

  // n2's free 1000m minus vip's held 500m: a priority-0 pod of 600m does not fit, one of 400m does.
  s.pending(sim_pod("big-low", 600, 0));
  s.pending(sim_pod("small-low", 400, 0));
  d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->uid, "uid-big-low");
  EXPECT_EQ(d->outcome, Outcome::kUnschedulable);
  EXPECT_TRUE(d->victims.empty()) << "priority 0 has nothing to preempt";
  d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->uid, "uid-small-low");
  EXPECT_EQ(d->outcome, Outcome::kScheduled);
  EXPECT_EQ(d->node, "n2");

  // vip's backoff ends; it binds to n2 and leaves the nominator.
  s.clock.advance(seconds(2));
  s.queue.flush_backoff_completed();
  d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->uid, "uid-vip");
  EXPECT_EQ(d->outcome, Outcome::kScheduled);
  EXPECT_EQ(d->node, "n2");
  EXPECT_FALSE(s.queue.nominated_node("uid-vip").has_value());
  EXPECT_TRUE(s.cluster.pod("uid-vip")->nominated_node_name.empty());
  EXPECT_EQ(s.cluster.node("n2")->requested.milli_cpu, 900);
}

TEST(Cycle, PreemptionCountsPodsAlreadyNominatedToTheNode) {
  // Two 1-CPU nodes full of priority-0 pods, the one on n2 the youngest. vip1 preempts on n2; vip2,
  // of the same priority, must not free the same room again: on n2 it would have to fit beside vip1's
  // held 600m, which it cannot, so it preempts on n1.
  Sim s;
  s.cluster.add_pod(sim_pod("low1", 1000, 0, "n1", kEpoch - 300));
  s.cluster.add_pod(sim_pod("low2", 1000, 0, "n2", kEpoch - 100));
  s.cluster.add_pod(sim_pod("low3", 1000, 100, "n3"));
  s.pending(sim_pod("vip1", 600, 100));
  s.pending(sim_pod("vip2", 600, 100));
  auto d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->outcome, Outcome::kPreempted);
  EXPECT_EQ(d->node, "n2");
  d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->uid, "uid-vip2");
  EXPECT_EQ(d->outcome, Outcome::kPreempted);
  EXPECT_EQ(d->node, "n1");
  EXPECT_EQ(d->victims, (std::vector<std::string>{"uid-low1"}));
}

TEST(Cycle, PreemptionSamplesFromARandomOffset) {
  // Ten identical full nodes: every candidate ties down to the node name. With all nodes evaluated
  // (the default minimum of 100 candidates) the smallest name wins whatever the seed; asking for one
  // candidate, the dry runs stop at the first node after a random offset, so the seed decides.
  auto chosen = [](int64_t absolute, uint64_t seed) {
    auto engine = least_requested_engine();
    SimCluster cluster;
    for (int i = 0; i < 10; ++i) {
      const std::string n = "n" + std::to_string(i);
      cluster.add_node(make_node(n, 1000, 4 * GiB));
      cluster.add_pod(sim_pod("low-" + n, 1000, 0, n));
    }
    VirtualClock clock;
    SchedulingQueue queue(clock);
    Pod vip = sim_pod("vip", 500, 100);
    cluster.add_pod(vip);
    queue.add(vip.uid, 100);
    CycleConfig config;
    config.engine = engine.get();
    config.epoch_unix_seconds = kEpoch;
    config.min_candidate_nodes_percentage = 0;
    config.min_candidate_nodes_absolute = absolute;
    SchedulerState state{Rng(seed), 0, {}, {}, {}};
    auto d = run_cycle(queue, cluster, config, state, clock.now());
    EXPECT_EQ(d->outcome, Outcome::kPreempted);
    return d->node;
  };
  std::set<std::string> all_nodes, one_candidate;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    all_nodes.insert(chosen(100, seed));
    one_candidate.insert(chosen(1, seed));
  }
  EXPECT_EQ(all_nodes, (std::set<std::string>{"n0"}));
  EXPECT_GT(one_candidate.size(), 3u);
}

TEST(Cycle, HigherPriorityPodsIgnoreLowerNominations) {
  // n1 and n3 are full of pods nobody here may preempt; "nominee" (priority 10, 800m), nominated to
  // n2 by an earlier preemption, waits outside activeQ.
  Sim s;
  s.cluster.add_pod(sim_pod("full1", 1000, 50, "n1"));
  s.cluster.add_pod(sim_pod("full3", 1000, 50, "n3"));
  s.cluster.add_pod(sim_pod("nominee", 800, 10));
  s.queue.add_nominated_pod("uid-nominee", "n2");
  s.cluster.set_nominated_node("uid-nominee", "n2");
  s.pending(sim_pod("equal", 300, 10));
  s.pending(sim_pod("higher", 300, 20));
  auto d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->uid, "uid-higher");
  EXPECT_EQ(d->outcome, Outcome::kScheduled) << "a lower-priority nomination does not hold n2 against it";
  EXPECT_EQ(d->node, "n2");
  d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->uid, "uid-equal");
  EXPECT_EQ(d->outcome, Outcome::kUnschedulable) << "equal priority: 800m held of n2's 700m free";
}

// "db" (priority 10, app=db) is nominated to n1 by an earlier preemption; n2 and n3 are full. "x"
// (priority 10) must not share a host with app=db. n1 has room for both, with `low` (priority 0) of
// CPU bound there too.
std::optional<CycleRecord> nominated_db_then_apart(int64_t low) {
  Sim s;
  s.engine = std::make_unique<Engine>(std::move(
      compile(parse_config(R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})"))
          .engine));
  s.config.engine = s.engine.get();
  for (const char* n : {"n1", "n2", "n3"}) {
    Node node = make_node(n, 1000, 4 * GiB);
    node.labels = Labels{{"kubernetes.io/hostname", std::string(n)}};
    s.cluster.replace_node(std::move(node));
  }
  s.cluster.add_pod(sim_pod("full2", 1000, 50, "n2"));
  s.cluster.add_pod(sim_pod("full3", 1000, 50, "n3"));
  if (low > 0) s.cluster.add_pod(sim_pod("low", low, 0, "n1"));
  Pod db = sim_pod("db", 300, 10);
  db.labels = Labels{{"app", "db"}};
  s.cluster.add_pod(std::move(db));
  s.queue.add_nominated_pod("uid-db", "n1");
  s.cluster.set_nominated_node("uid-db", "n1");
  Pod x = sim_pod("x", 300, 10);
  auto rules = std::make_shared<PodAffinityRules>();
  PodAffinityTerm apart;
  apart.label_selector = LabelSelector{};
  apart.label_selector->match_labels = Labels{{"app", "db"}};
  apart.topology_key = "kubernetes.io/hostname";
  rules->required_anti_affinity.push_back(apart);
  x.affinity = std::move(rules);
  s.pending(std::move(x));
  return s.cycle();
}

TEST(Cycle, NominatedPodsCountInTheTopologyPluginsState) {
  // With db held on n1 (addNominatedPods adds it to InterPodAffinity's PreFilter state, not only to
  // the node), x fits nowhere.
  auto d = nominated_db_then_apart(0);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->uid, "uid-x");
  EXPECT_EQ(d->outcome, Outcome::kUnschedulable) << "placed on " << d->node;
  EXPECT_EQ(d->reasons["node(s) didn't match pod anti-affinity rules"], 1u);
  // With 500m of low on n1, x does not fit there beside db; evicting low would not help it either,
  // since preemption's dry run sees db in the state too (RunFilterPluginsWithNominatedPods).
  d = nominated_db_then_apart(500);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->outcome, Outcome::kUnschedulable) << "preempted on " << d->node;
  EXPECT_TRUE(d->victims.empty());
}

TEST(Cycle, SameSeedSameDecisions) {
  // Three identical empty nodes tie for every pod until they fill: the seed decides.
  auto run = [](uint64_t seed) {
    Sim s;
    s.state.rng = Rng(seed);
    for (int i = 0; i < 6; ++i) s.pending(sim_pod("p" + std::to_string(i), 100, 0));
    std::vector<std::string> nodes;
    while (auto d = s.cycle()) nodes.push_back(d->node);
    return nodes;
  };
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const auto first = run(seed);
    ASSERT_EQ(first.size(), 6u);
    EXPECT_EQ(run(seed), first);
  }
  // Over many seeds the first pod lands on each node (equal scores) at least once.
  std::set<std::string> first_nodes;
  for (uint64_t seed = 0; seed < 30; ++seed) first_nodes.insert(run(seed)[0]);
  EXPECT_EQ(first_nodes, (std::set<std::string>{"n1", "n2", "n3"}));
}

}  // namespace
}  // namespace cycle_test
}  // namespace kext::sim
