#include "sim/core/simulator.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/quantile.h"
#include "policy/policy.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/support/test_builders.h"

namespace kext::sim {
namespace simulator_test {
namespace {

using kext::sim::testing::kEpoch;
using kext::sim::testing::least_requested_engine;
using kext::sim::testing::sim_pod;
using kext::testing::GiB;
using kext::testing::make_node;
using kext::testing::make_pod;
using std::chrono::seconds;

struct Logged {
  int64_t at_s;
  std::string uid;
  Outcome outcome;
  std::string node;
  std::vector<std::string> victims;
  bool operator==(const Logged&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Logged& l) {
  os << l.at_s << "s " << l.uid << " " << static_cast<int>(l.outcome) << " " << l.node << " [";
  for (const auto& v : l.victims) os << v << " ";
  return os << "]";
}

std::vector<Logged> run(Simulator& sim, RunSummary* summary = nullptr) {
  std::vector<Logged> log;
  RunSummary s = sim.run([&](const CycleRecord& d) {
    log.push_back({std::chrono::duration_cast<seconds>(d.at).count(), d.uid, d.outcome, d.node, d.victims});
  });
  if (summary != nullptr) *summary = s;
  return log;
}

TEST(Simulator, PreemptionThenBindAfterTheGracePeriodThenCompletion) {
  // Two full 1-CPU nodes of priority-0 pods; "low-b" is younger, so n2 is the node to preempt on.
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  cluster.add_node(make_node("n2", 1000, 4 * GiB));
  cluster.add_pod(sim_pod("low-a", 1000, 0, "n1", kEpoch - 200));
  cluster.add_pod(sim_pod("low-b", 1000, 0, "n2", kEpoch - 100));
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  Simulator sim(std::move(cluster), *eng, options);
  sim.set_lifecycle("uid-low-b", Lifecycle{std::nullopt, seconds(20)});
  // At 5 s a high-priority pod arrives that runs for a minute.
  sim.add_pending(sim_pod("vip", 600, 100), seconds(5), Lifecycle{seconds(60), kDefaultGracePeriod});

  RunSummary summary;
  const auto log = run(sim, &summary);
  // 5 s: preempts low-b on n2 (grace 20 s). 25 s: low-b is gone; the deletion moves vip (its 1 s
  // backoff long over) to activeQ and it binds. 85 s: it completes.
  const std::vector<Logged> want = {
      {5, "uid-vip", Outcome::kPreempted, "n2", {"uid-low-b"}},
      {25, "uid-vip", Outcome::kScheduled, "n2", {}},
  };
  EXPECT_EQ(log, want);
  EXPECT_EQ(summary.cycles, 2u);
  EXPECT_EQ(summary.scheduled, 1u);
  EXPECT_EQ(summary.preemptions, 1u);
  EXPECT_EQ(summary.victims, 1u);
  EXPECT_EQ(summary.completed, 1u);
  EXPECT_EQ(summary.pending_at_end, 0u);
  EXPECT_EQ(summary.end, seconds(85));
  EXPECT_EQ(summary.latencies, (std::vector<SimDuration>{seconds(20)})) << "arrived at 5 s, bound at 25 s";
  const std::vector<std::pair<SimTime, size_t>> pending = {
      {SimTime{0}, 0}, {seconds(5), 1}, {seconds(25), 0}};
  EXPECT_EQ(summary.pending_over_time, pending) << "arrives at 5 s, pending through the preemption";
  EXPECT_EQ(sim.cluster().pod("uid-vip"), nullptr) << "completed pods leave the cluster";
  EXPECT_EQ(sim.cluster().node("n2")->requested.milli_cpu, 0);
}

TEST(Simulator, DecisionsCarryTheirPodsQueueMovesWhenRecorded) {
  // One 1-CPU node; "first" runs 10 s; "second" fails at 0 and waits in unschedulablePods until
  // first's completion moves it (its backoff over) to activeQ; "huge" fits no node and no deletion
  // can help it: it fails once and stays.
  auto eng = least_requested_engine();
  for (const bool record : {true, false}) {
    SCOPED_TRACE(record);
    SimCluster cluster;
    cluster.add_node(make_node("n1", 1000, 4 * GiB));
    SimulatorOptions options;
    options.record_moves = record;
    // 1.26's queue: every unschedulable pod moves on an assigned pod's deletion, and "huge" fails as
    // Unschedulable (kube_minor_test.cc runs the later minors' queues).
    options.preemption.version = KubeVersion{26};
    Simulator sim(std::move(cluster), *eng, options);
    sim.add_pending(sim_pod("first", 800, 0), seconds(0), Lifecycle{seconds(10), kDefaultGracePeriod});
    sim.add_pending(sim_pod("second", 800, 0), seconds(0));
    sim.add_pending(sim_pod("huge", 5000, 0), seconds(2));
    std::vector<std::pair<std::string, std::vector<QueueMove>>> got;
    sim.run([&](const CycleRecord& d) { got.emplace_back(d.uid, d.moves); });
    using enum QueueName;
    using enum MoveEvent;
    const std::vector<std::pair<std::string, std::vector<QueueMove>>> want = {
        {"uid-first", {{seconds(0), kNone, kActive, kPodAdd, ""}}},
        {"uid-second",
         {{seconds(0), kNone, kActive, kPodAdd, ""},
          {seconds(0), kNone, kUnschedulable, kScheduleAttemptFailure, ""}}},
        {"uid-huge",
         {{seconds(2), kNone, kActive, kPodAdd, ""},
          {seconds(2), kNone, kUnschedulable, kScheduleAttemptFailure, ""}}},
        {"uid-second", {{seconds(10), kUnschedulable, kActive, kAssignedPodDelete, ""}}},
    };
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].first, want[i].first);
      EXPECT_EQ(got[i].second, record ? want[i].second : std::vector<QueueMove>{}) << i;
    }
  }
}

TEST(Simulator, CompletionFreesRoomForAWaitingPod) {
  // One node; "first" runs 10 s, "second" (same priority, cannot preempt) waits in unschedulablePods
  // and is moved by first's completion.
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  Simulator sim(std::move(cluster), *eng, {});
  sim.add_pending(sim_pod("first", 800, 0), seconds(0), Lifecycle{seconds(10), kDefaultGracePeriod});
  sim.add_pending(sim_pod("second", 800, 0), seconds(0));
  RunSummary summary;
  const auto log = run(sim, &summary);
  const std::vector<Logged> want = {
      {0, "uid-first", Outcome::kScheduled, "n1", {}},
      {0, "uid-second", Outcome::kUnschedulable, "", {}},
      {10, "uid-second", Outcome::kScheduled, "n1", {}},
  };
  EXPECT_EQ(log, want);
  EXPECT_EQ(summary.completed, 1u);
  EXPECT_EQ(summary.latencies, (std::vector<SimDuration>{seconds(0), seconds(10)}));
  // At 0 s two arrive and one binds: one point for the instant, its last count.
  const std::vector<std::pair<SimTime, size_t>> pending = {{SimTime{0}, 1}, {seconds(10), 0}};
  EXPECT_EQ(summary.pending_over_time, pending);
}

TEST(Simulator, RetriesBackingOffPodsAndStopsWhenNothingCanHelp) {
  // "big" never fits; with no event left it stays in unschedulablePods and the run ends instead of
  // retrying it every minute until max_time.
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  Simulator sim(std::move(cluster), *eng, {});
  sim.add_pending(sim_pod("big", 5000, 0), seconds(0));
  sim.add_pending(sim_pod("small", 100, 0), seconds(3));
  RunSummary summary;
  const auto log = run(sim, &summary);
  const std::vector<Logged> want = {
      {0, "uid-big", Outcome::kUnschedulable, "", {}},
      {3, "uid-small", Outcome::kScheduled, "n1", {}},
  };
  EXPECT_EQ(log, want);
  EXPECT_EQ(summary.pending_at_end, 1u);
  EXPECT_EQ(summary.end, seconds(3));
}

TEST(Simulator, LeftoverFlushRetriesWhileEventsRemain) {
  // "waiter" fails at 0 s as unresolvable (deletions cannot help; no node event comes); a pod
  // arriving at 200 s keeps the run alive, so the 30 s loop retries it after more than 60 s: at 90 s,
  // then 180 s (its timestamp is refreshed at each failure).
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  Simulator sim(std::move(cluster), *eng, {});
  sim.add_pending(sim_pod("waiter", 2000, 0), seconds(0));
  sim.add_pending(sim_pod("late", 100, 0), seconds(200));
  const auto log = run(sim);
  std::vector<std::pair<int64_t, std::string>> got;
  for (const auto& l : log) got.emplace_back(l.at_s, l.uid);
  const std::vector<std::pair<int64_t, std::string>> want = {
      {0, "uid-waiter"}, {90, "uid-waiter"}, {180, "uid-waiter"}, {200, "uid-late"}};
  EXPECT_EQ(got, want);
}

TEST(Simulator, SameSeedSameLog) {
  auto eng = least_requested_engine();
  auto build = [&](uint64_t seed) {
    SimCluster cluster;
    for (int i = 0; i < 5; ++i) cluster.add_node(make_node("n" + std::to_string(i), 2000, 8 * GiB));
    SimulatorOptions options;
    options.seed = seed;
    auto sim = std::make_unique<Simulator>(std::move(cluster), *eng, options);
    for (int i = 0; i < 30; ++i) {
      sim->add_pending(sim_pod("p" + std::to_string(i), 300, i % 3), seconds(i % 7),
                       Lifecycle{seconds(5 + i % 11), kDefaultGracePeriod});
    }
    return sim;
  };
  auto a = build(9), b = build(9);
  const auto la = run(*a), lb = run(*b);
  EXPECT_EQ(la.size(), 30u) << "9000m of pods on 10000m of nodes: each binds at its first attempt";
  EXPECT_EQ(la, lb);
}

// A cluster near full with pods arriving over ten minutes, some preempting, victims recreated and
// pods completing: the workload RunUntil's tests drive in steps.
std::unique_ptr<Simulator> busy_simulator(const Engine& eng) {
  std::mt19937_64 r(11);
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(r() % static_cast<uint64_t>(hi - lo + 1));
  };
  SimCluster cluster;
  for (int i = 0; i < 8; ++i) cluster.add_node(make_node("n" + std::to_string(i), 2000, 8 * GiB));
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  options.seed = 3;
  auto sim = std::make_unique<Simulator>(std::move(cluster), eng, options);
  for (int i = 0; i < 120; ++i) {
    sim->add_pending(
        sim_pod("p" + std::to_string(i), pick(3, 12) * 100, static_cast<int32_t>(pick(0, 2) * 100)),
        seconds(pick(0, 300)), Lifecycle{seconds(pick(60, 600)), seconds(pick(0, 20)), pick(0, 1) == 1});
  }
  return sim;
}

std::vector<Logged> run_in_steps(Simulator& sim, SimDuration step, RunSummary& summary) {
  std::vector<Logged> log;
  auto on_decision = [&](const CycleRecord& d) {
    log.push_back({std::chrono::duration_cast<seconds>(d.at).count(), d.uid, d.outcome, d.node, d.victims});
  };
  for (SimTime t{0}; t < seconds(3600); t += step) sim.run_until(t, summary, on_decision);
  sim.run_until(kNever, summary, on_decision);
  return log;
}

TEST(RunUntil, StopsAtTheTimeAndResumes) {
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  Simulator sim(std::move(cluster), *eng, {});
  sim.add_pending(sim_pod("a", 400, 0), seconds(2));
  sim.add_pending(sim_pod("b", 400, 0), seconds(10));
  std::vector<std::string> decided;
  auto on_decision = [&](const CycleRecord& d) { decided.push_back(d.uid); };
  RunSummary summary;
  sim.run_until(seconds(1), summary, on_decision);
  EXPECT_TRUE(decided.empty());
  EXPECT_EQ(sim.next_due(), seconds(2));
  sim.run_until(seconds(5), summary, on_decision);
  EXPECT_EQ(decided, std::vector<std::string>{"uid-a"});
  EXPECT_EQ(sim.now(), seconds(2)) << "the clock stays where the last thing happened";
  EXPECT_EQ(sim.next_due(), seconds(10)) << "b's arrival is still to come";
  EXPECT_EQ(summary.pending_at_end, 1u) << "b has not arrived";
  // An event added between calls, at the time of the last call.
  sim.add_pending(sim_pod("c", 100, 0), seconds(5));
  sim.run_until(seconds(10), summary, on_decision);
  EXPECT_EQ(decided, (std::vector<std::string>{"uid-a", "uid-c", "uid-b"}));
  EXPECT_EQ(summary.scheduled, 3u);
  EXPECT_EQ(summary.pending_at_end, 0u);
  EXPECT_EQ(sim.next_due(), kNever);
}

TEST(RunUntil, StepsMakeTheSameDecisionsAsOneRun) {
  auto eng = least_requested_engine();
  auto whole = busy_simulator(*eng);
  RunSummary want_summary;
  const auto want = run(*whole, &want_summary);
  ASSERT_GT(want_summary.preemptions, 0u) << "the workload should exercise preemption";
  ASSERT_GT(want_summary.recreated, 0u);
  ASSERT_GT(want_summary.unschedulable, 0u);
  for (SimDuration step :
       {SimDuration(seconds(1)), SimDuration(std::chrono::milliseconds(3700)), SimDuration(seconds(60))}) {
    auto stepped = busy_simulator(*eng);
    RunSummary summary;
    EXPECT_EQ(run_in_steps(*stepped, step, summary), want) << step.count() << " us steps";
    EXPECT_EQ(summary.cycles, want_summary.cycles);
    EXPECT_EQ(summary.victims, want_summary.victims);
    EXPECT_EQ(summary.completed, want_summary.completed);
    EXPECT_EQ(summary.recreated, want_summary.recreated);
    EXPECT_EQ(summary.latencies, want_summary.latencies);
    EXPECT_EQ(summary.pending_at_end, want_summary.pending_at_end);
    EXPECT_EQ(summary.end, want_summary.end);
  }
}

TEST(Simulator, APodAddedBoundTakesItsRoomAndADeletedNodeTakesItsPods) {
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  cluster.add_node(make_node("n2", 1000, 4 * GiB));
  Simulator sim(std::move(cluster), *eng, {});
  // A DaemonSet-style pod created on n1 at 1 s; a pod bound to a node that never exists is dropped.
  sim.add_bound(sim_pod("ds", 800, 0, "n1"), seconds(1));
  sim.add_bound(sim_pod("lost", 100, 0, "n9"), seconds(1));
  EXPECT_THROW(sim.add_bound(sim_pod("unbound", 100, 0), seconds(1)), ClusterError);
  sim.add_pending(sim_pod("p", 500, 0), seconds(2));
  sim.delete_node("n2", seconds(3));
  sim.add_pending(sim_pod("q", 500, 0), seconds(4));
  RunSummary summary;
  const auto log = run(sim, &summary);
  const std::vector<Logged> want = {
      {2, "uid-p", Outcome::kScheduled, "n2", {}},
      {4, "uid-q", Outcome::kUnschedulable, "", {}},
  };
  EXPECT_EQ(log, want);
  EXPECT_EQ(sim.cluster().nodes().size(), 1u);
  EXPECT_EQ(sim.cluster().pod("uid-p"), nullptr) << "gone with its node";
  EXPECT_EQ(sim.cluster().pod("uid-lost"), nullptr);
  EXPECT_EQ(sim.cluster().node("n1")->requested.milli_cpu, 800);
}

TEST(Simulator, ANodeJoiningMovesAPodNoNodeCouldTake) {
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  Simulator sim(std::move(cluster), *eng, {});
  sim.add_pending(sim_pod("big", 2000, 0), seconds(0));
  sim.add_node(make_node("n2", 4000, 8 * GiB), seconds(50));
  EXPECT_THROW(sim.add_node(make_node("n1", 1, 1), seconds(1)), ClusterError);
  EXPECT_THROW(sim.add_node(make_node("n2", 1, 1), seconds(1)), ClusterError);
  const auto log = run(sim);
  const std::vector<Logged> want = {
      {0, "uid-big", Outcome::kUnschedulable, "", {}},
      {50, "uid-big", Outcome::kScheduled, "n2", {}},
  };
  EXPECT_EQ(log, want);
}

TEST(Simulator, ANodeChangeMovesPodsItCouldHelp) {
  // n1 grows from 1 to 4 CPUs at 30 s: the 2-CPU pod, unresolvable until then, binds.
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  cluster.add_pod(sim_pod("small", 100, 0, "n1"));
  Simulator sim(std::move(cluster), *eng, {});
  sim.add_pending(sim_pod("big", 2000, 0), seconds(0));
  sim.change_node(make_node("n1", 4000, 4 * GiB), seconds(30));
  EXPECT_THROW(sim.change_node(make_node("nope", 1, 1), seconds(1)), ClusterError);
  const auto log = run(sim);
  const std::vector<Logged> want = {
      {0, "uid-big", Outcome::kUnschedulable, "", {}},
      {30, "uid-big", Outcome::kScheduled, "n1", {}},
  };
  EXPECT_EQ(log, want);
  EXPECT_EQ(sim.cluster().node("n1")->node->allocatable.milli_cpu, 4000);
  EXPECT_EQ(sim.cluster().node("n1")->requested.milli_cpu, 2100) << "its pods stayed";
}

TEST(Simulator, DeletingPodsPendingBoundOrNotYetArrived) {
  // first (bound) is deleted at 10 s and second, waiting for its room, binds; waiting (pending,
  // unschedulable) is deleted at 20 s; never (due at 50 s) is deleted at 40 s and never arrives.
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  cluster.add_pod(sim_pod("first", 800, 0, "n1"));
  SimulatorOptions options;
  options.preemption.version = KubeVersion{26};  // 1.26's queue (kube_minor_test.cc: later minors')
  Simulator sim(std::move(cluster), *eng, options);
  sim.add_pending(sim_pod("second", 800, 0), seconds(0));
  sim.add_pending(sim_pod("waiting", 3000, 0), seconds(0));
  sim.add_pending(sim_pod("never", 100, 0), seconds(50));
  sim.delete_pod("uid-first", seconds(10));
  sim.delete_pod("uid-waiting", seconds(20));
  sim.delete_pod("uid-never", seconds(40));
  EXPECT_THROW(sim.delete_pod("uid-nobody", seconds(1)), ClusterError);
  RunSummary summary;
  const auto log = run(sim, &summary);
  std::vector<std::pair<int64_t, std::string>> got;
  for (const auto& l : log)
    got.emplace_back(l.at_s, l.uid + (l.outcome == Outcome::kScheduled ? " bound" : " failed"));
  const std::vector<std::pair<int64_t, std::string>> want = {
      {0, "uid-second failed"}, {0, "uid-waiting failed"}, {10, "uid-second bound"}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(summary.pending_at_end, 0u);
  EXPECT_EQ(sim.cluster().pod("uid-waiting"), nullptr);
  EXPECT_EQ(sim.cluster().pod("uid-never"), nullptr);
}

TEST(Simulator, APreemptedPodOfAControllerIsRecreated) {
  // low (owned by a ReplicaSet, grace 10 s) is preempted by vip; when it is gone its replacement
  // arrives, and finds no room: vip has it, and is of higher priority.
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  cluster.add_pod(sim_pod("low", 1000, 0, "n1"));
  Simulator sim(std::move(cluster), *eng, {});
  sim.set_lifecycle("uid-low", Lifecycle{std::nullopt, seconds(10), true});
  sim.add_pending(sim_pod("vip", 600, 100), seconds(0));
  RunSummary summary;
  const auto log = run(sim, &summary);
  const std::vector<Logged> want = {
      {0, "uid-vip", Outcome::kPreempted, "n1", {"uid-low"}},
      {10, "uid-vip", Outcome::kScheduled, "n1", {}},
      {10, "uid-low-r1", Outcome::kUnschedulable, "", {}},
  };
  EXPECT_EQ(log, want);
  EXPECT_EQ(summary.recreated, 1u);
  EXPECT_EQ(summary.pending_at_end, 1u);
  auto replacement = sim.cluster().pod("uid-low-r1");
  ASSERT_NE(replacement, nullptr);
  EXPECT_EQ(replacement->name, "low-r1");
  EXPECT_TRUE(replacement->node_name.empty());
  EXPECT_FALSE(replacement->terminating);
}

TEST(Simulator, InvariantsHoldOnARandomWorkload) {
  // A random cluster near full, pods arriving with random sizes, priorities and runtimes, victims
  // recreated, nodes joining: after every decision no node is over-committed, a bound pod is where
  // the decision says, victims are of lower priority and terminating, and the counts add up.
  auto eng = least_requested_engine();
  std::mt19937_64 r(2024);
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(r() % static_cast<uint64_t>(hi - lo + 1));
  };
  SimCluster cluster;
  for (int i = 0; i < 40; ++i)
    cluster.add_node(make_node("n" + std::to_string(i), pick(2, 8) * 1000, 16 * GiB));
  std::vector<std::string> running;
  for (int i = 0; i < 400; ++i) {
    const std::string node = "n" + std::to_string(i % 40);
    const NodeInfo* n = cluster.node(node);
    const int64_t cpu = pick(1, 6) * 100;
    if (n->requested.milli_cpu + cpu > n->node->allocatable.milli_cpu) continue;
    Pod p = sim_pod("run" + std::to_string(i), cpu, static_cast<int32_t>(pick(0, 3)), node,
                    kEpoch - pick(0, 1000));
    running.push_back(p.uid);
    cluster.add_pod(std::move(p));
  }
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  options.seed = 7;
  Simulator sim(std::move(cluster), *eng, options);
  for (const auto& uid : running) {
    sim.set_lifecycle(
        uid, Lifecycle{pick(0, 1) ? std::optional<SimDuration>(seconds(pick(10, 600))) : std::nullopt,
                       seconds(pick(0, 30)), pick(0, 1) == 1});
  }
  for (int i = 0; i < 300; ++i) {
    sim.add_pending(sim_pod("p" + std::to_string(i), pick(1, 20) * 100, static_cast<int32_t>(pick(0, 5))),
                    seconds(pick(0, 100)),
                    Lifecycle{seconds(pick(5, 300)), seconds(pick(0, 30)), pick(0, 3) == 0});
  }
  for (int i = 0; i < 3; ++i)
    sim.add_node(make_node("late" + std::to_string(i), 4000, 16 * GiB), seconds(pick(20, 200)));

  size_t decisions = 0;
  std::set<std::string> evicted;
  RunSummary summary = sim.run([&](const CycleRecord& d) {
    ++decisions;
    evicted.insert(d.victims.begin(), d.victims.end());
    const SimCluster& c = sim.cluster();
    for (const NodeInfo* n : c.nodes()) {
      ASSERT_LE(n->requested.milli_cpu, n->node->allocatable.milli_cpu)
          << n->name() << " at cycle " << d.cycle;
      ASSERT_LE(n->requested.memory, n->node->allocatable.memory) << n->name();
    }
    auto pod = c.pod(d.uid);
    ASSERT_NE(pod, nullptr);
    switch (d.outcome) {
      case Outcome::kScheduled:
        EXPECT_EQ(pod->node_name, d.node);
        EXPECT_FALSE(sim.queue().nominated_node(d.uid).has_value());
        break;
      case Outcome::kPreempted:
        EXPECT_TRUE(pod->node_name.empty());
        EXPECT_EQ(sim.queue().nominated_node(d.uid), d.node);
        EXPECT_FALSE(d.victims.empty());
        for (const auto& v : d.victims) {
          auto victim = c.pod(v);
          ASSERT_NE(victim, nullptr);
          EXPECT_TRUE(victim->terminating);
          EXPECT_EQ(victim->node_name, d.node);
          EXPECT_LT(victim->effective_priority(), d.priority);
        }
        break;
      case Outcome::kUnschedulable:
        EXPECT_TRUE(pod->node_name.empty());
        EXPECT_FALSE(d.reasons.empty());
        break;
      case Outcome::kWaiting:
        ADD_FAILURE() << d.uid << " waits at bind in a run without pod groups";
        break;
      case Outcome::kBindFailed:
        ADD_FAILURE() << d.uid << ": a bind failed in a run that binds in process";
        break;
    }
  });
  EXPECT_EQ(decisions, summary.cycles);
  EXPECT_EQ(summary.cycles, summary.scheduled + summary.preemptions + summary.unschedulable);
  EXPECT_GT(summary.scheduled, 200u);
  EXPECT_GT(summary.preemptions, 0u) << "the workload is meant to need preemption";
  EXPECT_GT(summary.recreated, 0u);
  EXPECT_EQ(summary.latencies.size(), summary.scheduled);
  // Each pod evicted counts once, however many preemptors chose it.
  EXPECT_EQ(summary.victims, evicted.size());
  EXPECT_LE(summary.recreated, summary.victims);
}

TEST(Quantile, NearestRank) {
  const std::vector<SimDuration> v = {seconds(4), seconds(1), seconds(3), seconds(2)};
  struct Case {
    double q;
    int64_t want_s;
  };
  for (const auto& c :
       std::vector<Case>{{0.0, 1}, {0.25, 1}, {0.26, 2}, {0.5, 2}, {0.75, 3}, {0.99, 4}, {1.0, 4}}) {
    SCOPED_TRACE(c.q);
    EXPECT_EQ(quantile(v, c.q), seconds(c.want_s));
  }
  EXPECT_EQ(quantile(std::vector<SimDuration>{}, 0.5), SimDuration::zero());
}

TEST(FormatSummary, AlignedColumnsAndCompare) {
  RunSummary a;
  a.scheduled = 12;
  a.latencies = {seconds(1), seconds(3)};
  RunSummary b;
  b.scheduled = 7;
  EXPECT_EQ(format_summary(a, "policy-a"),
            "                        policy-a\n"
            "cycles                         0\n"
            "scheduled                     12\n"
            "preemptions                    0\n"
            "victims                        0\n"
            "unschedulable attempts         0\n"
            "completed                      0\n"
            "recreated                      0\n"
            "pending at end                 0\n"
            "simulated time           0.000 s\n"
            "latency p50              1.000 s\n"
            "latency p90              3.000 s\n"
            "latency p99              3.000 s\n"
            "latency max              3.000 s\n");
  const std::string two = format_summary(a, "a", &b, "b");
  EXPECT_NE(two.find("\nscheduled                    12        7\n"), std::string::npos) << two;
  EXPECT_NE(two.find("\nlatency max             3.000 s  0.000 s\n"), std::string::npos) << two;
}

TEST(Simulator, RejectsBadPods) {
  auto eng = least_requested_engine();
  SimCluster cluster;
  cluster.add_node(make_node("n1", 1000, 4 * GiB));
  cluster.add_pod(sim_pod("running", 100, 0, "n1"));
  Simulator sim(std::move(cluster), *eng, {});
  EXPECT_THROW(sim.add_pending(sim_pod("bound", 100, 0, "n1"), seconds(0)), ClusterError);
  EXPECT_THROW(sim.add_pending(sim_pod("running", 100, 0), seconds(0)), ClusterError);
  sim.add_pending(sim_pod("p", 100, 0), seconds(0));
  EXPECT_THROW(sim.add_pending(sim_pod("p", 100, 0), seconds(1)), ClusterError);
  EXPECT_THROW(sim.set_lifecycle("uid-p", {}), ClusterError) << "not running";
}

}  // namespace
}  // namespace simulator_test
}  // namespace kext::sim
