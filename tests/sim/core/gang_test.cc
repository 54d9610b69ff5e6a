// Gang scheduling in the simulator (sim/core/cycle.cc with algorithms/gang/gatekeeper.h on the virtual
// clock): groups admitted whole or not at all, members waiting at bind until their group is complete,
// timeouts that release the room and back the group off, members that arrive late.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/core/simulator.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/support/test_builders.h"

namespace kext::sim {
namespace core_gang_test {
namespace {

using kext::sim::testing::kEpoch;
using kext::sim::testing::least_requested_engine;
using kext::sim::testing::sim_pod;
using kext::testing::GiB;
using kext::testing::make_node;
using std::chrono::seconds;

Pod member(const std::string& group, int i, int64_t cpu_milli) {
  Pod p = sim_pod(group + "-" + std::to_string(i), cpu_milli, 0);
  p.namespace_ = "train";
  p.uid = "train/" + p.name;
  p.labels = Labels{{std::string(gang::kPodGroupLabel), group}};
  return p;
}

gang::PodGroupSpec group(const std::string& name, int32_t min_member, int32_t timeout_seconds,
                         int64_t created) {
  gang::PodGroupSpec g;
  g.namespace_ = "train";
  g.name = name;
  g.min_member = min_member;
  g.schedule_timeout_seconds = timeout_seconds;
  g.creation_unix_seconds = created;
  return g;
}

std::string group_of(const std::string& uid) {
  const auto slash = uid.find('/');
  if (slash == std::string::npos) return "web";  // an ordinary pod: "uid-web-N"
  const auto dash = uid.rfind('-');
  return uid.substr(slash + 1, dash - slash - 1);
}

SimCluster nodes(int n, int64_t cpu_milli) {
  SimCluster c;
  for (int i = 0; i < n; ++i) c.add_node(make_node("n" + std::to_string(i), cpu_milli, 16 * GiB));
  return c;
}

struct GangRun {
  RunSummary summary;
  std::map<std::string, int> bound;  // by group ("web" for ordinary pods)
  bool partial = false;              // a group seen with some but not minMember members bound
};

GangRun run(Simulator& sim, const std::map<std::string, int>& min_member) {
  GangRun r;
  r.summary = sim.run([&](const CycleRecord& d) {
    if (d.outcome != Outcome::kScheduled) return;
    ++r.bound[group_of(d.uid)];
    for (const std::string& uid : d.released) ++r.bound[group_of(uid)];
    for (const auto& [g, n] : r.bound) {
      auto m = min_member.find(g);
      if (m != min_member.end() && n > 0 && n < m->second) r.partial = true;
    }
  });
  return r;
}

// The deadlock seen with a real kube-scheduler 1.26, simulated: 10 nodes of 4 CPU, three groups of eight
// 2-CPU pods where two fit, then four 1-CPU pods. Two groups bind whole at once, the third binds nothing, the
// ordinary pods bind around it.
TEST(SimGangs, TwoOfThreeGroupsBindWholeAndTheThirdWaitsWithoutHoldingRoom) {
  auto engine = least_requested_engine();
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  options.max_time = seconds(300);
  Simulator sim(nodes(10, 4000), *engine, options);
  sim.set_pod_groups({{"train/a", group("a", 8, 60, 1)},
                      {"train/b", group("b", 8, 60, 2)},
                      {"train/c", group("c", 8, 60, 3)}});
  for (const char* g : {"a", "b", "c"})
    for (int i = 0; i < 8; ++i) sim.add_pending(member(g, i, 2000), SimTime{0});
  for (int i = 0; i < 4; ++i) sim.add_pending(sim_pod("web-" + std::to_string(i), 1000, 0), SimTime{0});
  GangRun r = run(sim, {{"a", 8}, {"b", 8}, {"c", 8}});
  EXPECT_FALSE(r.partial);
  EXPECT_EQ(r.bound["a"], 8);
  EXPECT_EQ(r.bound["b"], 8);
  EXPECT_EQ(r.bound["c"], 0);
  EXPECT_EQ(r.bound["web"], 4);
  EXPECT_EQ(r.summary.scheduled, 20u);
  ASSERT_TRUE(r.summary.gangs);
  const std::vector<GangEvent> expected = {{SimTime{0}, "train/a", gang::GroupEvent::kAdmitted},
                                           {SimTime{0}, "train/a", gang::GroupEvent::kComplete},
                                           {SimTime{0}, "train/b", gang::GroupEvent::kAdmitted},
                                           {SimTime{0}, "train/b", gang::GroupEvent::kComplete}};
  EXPECT_EQ(r.summary.gang_events, expected);
  // No room held for c: the cluster's 8 free CPU are free.
  int64_t free = 0;
  for (const NodeInfo* n : sim.cluster().nodes())
    free += n->node->allocatable.milli_cpu - n->requested.milli_cpu;
  EXPECT_EQ(free, 40000 - 32000 - 4000);
}

// A member that exists but never comes to the scheduler: the others wait at bind, time out together
// (unbound, back to the queue), and the group backs off before it is admitted again (its members,
// refused meanwhile, are retried by the queue's leftover flush). Nothing is ever bound.
TEST(SimGangs, AGroupThatCannotCompleteTimesOutWholeAndBacksOff) {
  auto engine = least_requested_engine();
  SimCluster cluster = nodes(4, 4000);
  cluster.add_pod(member("a", 2, 1000));  // pending, never queued
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  options.max_time = seconds(150);
  options.gang_backoff = seconds(10);
  Simulator sim(std::move(cluster), *engine, options);
  sim.set_pod_groups({{"train/a", group("a", 3, 5, 1)}});
  sim.add_pending(member("a", 0, 1000), SimTime{0});
  sim.add_pending(member("a", 1, 1000), SimTime{0});
  GangRun r = run(sim, {{"a", 3}});
  EXPECT_EQ(r.summary.scheduled, 0u);
  ASSERT_GE(r.summary.gang_events.size(), 3u);
  EXPECT_EQ(r.summary.gang_events[0], (GangEvent{SimTime{0}, "train/a", gang::GroupEvent::kAdmitted}));
  EXPECT_EQ(r.summary.gang_events[1], (GangEvent{seconds(5), "train/a", gang::GroupEvent::kTimedOut}));
  // Admitted again only once the 10 s backoff has passed, by the leftover flush's retry.
  EXPECT_EQ(r.summary.gang_events[2].what, gang::GroupEvent::kAdmitted);
  EXPECT_GE(r.summary.gang_events[2].at, seconds(15));
  EXPECT_LE(r.summary.gang_events[2].at, seconds(95));  // the flush runs every 30 s
  for (const NodeInfo* n : sim.cluster().nodes()) EXPECT_LE(n->requested.milli_cpu, 2000) << n->name();
}

// Members that arrive one by one: the group waits for its last member, then binds whole with it.
TEST(SimGangs, LateMembersCompleteTheGroupWhenTheyArrive) {
  auto engine = least_requested_engine();
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  Simulator sim(nodes(4, 4000), *engine, options);
  sim.set_pod_groups({{"train/a", group("a", 3, 60, 1)}});
  sim.add_pending(member("a", 0, 1000), SimTime{0});
  sim.add_pending(member("a", 1, 1000), seconds(20));
  sim.add_pending(member("a", 2, 1000), seconds(40));
  std::vector<std::pair<std::string, Outcome>> log;
  RunSummary s = sim.run([&](const CycleRecord& d) {
    if (d.outcome == Outcome::kScheduled) {
      EXPECT_EQ(d.at, seconds(40));
      EXPECT_EQ(d.released.size(), 2u) << "the two that waited bind with the last";
    }
    log.emplace_back(d.gang, d.outcome);
  });
  EXPECT_EQ(s.scheduled, 3u);
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.front().first, "pod group train/a: waiting for members");
  EXPECT_EQ(log.back().second, Outcome::kScheduled);
}

// Whole-group preemption: two nodes of 4 CPU, each running a 3-CPU pod of priority 0; a group of two
// 3-CPU members at priority 100. The first member's preemption admits the group with one eviction per
// member; each member preempts on its own node; the group binds whole once both victims are gone.
TEST(SimGangs, AGroupPreemptsWholeAndBindsWhole) {
  auto engine = least_requested_engine();
  SimCluster cluster = nodes(2, 4000);
  for (int i = 0; i < 2; ++i) {
    Pod low = sim_pod("low-" + std::to_string(i), 3000, 0);
    low.node_name = "n" + std::to_string(i);
    low.phase = "Running";
    low.start_time = kEpoch;
    cluster.add_pod(low);
  }
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  options.max_time = seconds(120);
  Simulator sim(std::move(cluster), *engine, options);
  sim.set_pod_groups({{"train/g", group("g", 2, 60, 1)}});
  for (int i = 0; i < 2; ++i) {
    Pod m = member("g", i, 3000);
    m.priority = 100;
    sim.add_pending(m, SimTime{0});
  }
  std::map<std::string, std::string> preempted_on;  // member -> node
  std::vector<std::string> victims;
  GangRun r;
  r.summary = sim.run([&](const CycleRecord& d) {
    if (d.outcome == Outcome::kPreempted) {
      preempted_on[d.pod] = d.node;
      victims.insert(victims.end(), d.victim_names.begin(), d.victim_names.end());
    }
    if (d.outcome != Outcome::kScheduled) return;
    ++r.bound[group_of(d.uid)];
    for (const std::string& uid : d.released) ++r.bound[group_of(uid)];
    if (r.bound["g"] == 1) r.partial = true;
  });
  EXPECT_FALSE(r.partial);
  EXPECT_EQ(r.bound["g"], 2);
  ASSERT_EQ(preempted_on.size(), 2u);
  EXPECT_NE(preempted_on["train/g-0"], preempted_on["train/g-1"]);
  std::sort(victims.begin(), victims.end());
  EXPECT_EQ(victims, (std::vector<std::string>{"default/low-0", "default/low-1"}));
  EXPECT_EQ(r.summary.victims, 2u);
}

// A running gang member is never a victim, neither of an ordinary pod's preemption nor of a group's.
TEST(SimGangs, GangMembersAreNeverEvicted) {
  auto engine = least_requested_engine();
  SimCluster cluster = nodes(1, 4000);
  Pod running = member("a", 0, 4000);
  running.node_name = "n0";
  running.phase = "Running";
  running.start_time = kEpoch;
  cluster.add_pod(running);
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  options.max_time = seconds(30);
  Simulator sim(std::move(cluster), *engine, options);
  sim.set_pod_groups({{"train/a", group("a", 1, 60, 1)}, {"train/b", group("b", 1, 60, 2)}});
  Pod urgent = sim_pod("urgent", 4000, 1000);
  sim.add_pending(urgent, SimTime{0});
  Pod b = member("b", 0, 4000);
  b.priority = 1000;
  sim.add_pending(b, SimTime{0});
  RunSummary s = sim.run(nullptr);
  EXPECT_EQ(s.preemptions, 0u);
  EXPECT_EQ(s.victims, 0u);
}

}  // namespace
}  // namespace core_gang_test
}  // namespace kext::sim
