// run_cycle with a CycleBackend (extender-sim --extender's hook, sim/core/cycle.h): the first filter pass,
// the scores and preemption's choice come from the backend; nominations and the dry runs stay on
// the engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/cycle.h"
#include "sim/core/simulator.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/support/test_builders.h"

namespace kext::sim {
namespace cycle_backend_test {
namespace {

using kext::sim::testing::kEpoch;
using kext::sim::testing::least_requested_engine;
using kext::sim::testing::sim_pod;
using kext::testing::GiB;
using kext::testing::make_node;

// Rejects n1 as unresolvable, scores by node name (n3 highest), and keeps only the last candidate
// it is offered, with its first victim only.
struct FakeBackend : CycleBackend {
  const Engine* engine = nullptr;
  int filters = 0, scores = 0, preempts = 0;
  std::vector<std::string> offered;  // the candidates' nodes of the last preempt call

  std::vector<FilterStatus> filter(const SimCluster&, const Pod& pod,
                                   std::span<const NodeInfo* const> nodes) override {
    ++filters;
    std::vector<FilterStatus> out = engine->filter(PodContext(pod), nodes);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i]->name() == "n1") out[i] = FilterStatus::unresolvable({"rejected by the backend"});
    }
    return out;
  }
  std::vector<int64_t> score(const SimCluster&, const Pod&, std::span<const NodeInfo* const> nodes) override {
    ++scores;
    std::vector<int64_t> out;
    for (const NodeInfo* n : nodes) out.push_back(n->name().back() - '0');
    return out;
  }
  std::vector<preemption::Candidate> preempt(const SimCluster&, const Pod&,
                                             std::vector<preemption::Candidate> candidates) override {
    ++preempts;
    offered.clear();
    for (const auto& c : candidates) offered.push_back(c.node_name);
    preemption::Candidate last = candidates.back();
    last.victims.resize(1);
    return {last};
  }
};

struct Sim : kext::sim::testing::CycleSim {
  FakeBackend backend;
  Sim() {
    backend.engine = engine.get();
    config.backend = &backend;
  }
};

TEST(CycleBackend, FiltersAndScoresThroughTheBackend) {
  Sim s;
  s.cluster.add_pod(sim_pod("busy3", 500, 0, "n3"));
  s.pending(sim_pod("web", 200, 0));
  const auto d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->outcome, Outcome::kScheduled);
  // The engine alone would take n1 or n2 (emptier); the backend drops n1 and scores n3 highest.
  EXPECT_EQ(d->node, "n3");
  EXPECT_EQ(d->feasible_nodes, 2u);
  // prioritizeNodes: the reply (3, 2) x MaxNodeScore / MaxExtenderPriority x weight 1.
  EXPECT_EQ(d->score, 30);
  EXPECT_EQ(d->runner_up_score, 20);
  EXPECT_EQ(d->score_terms, (std::vector<ScoreTerm>{{"extender", 1, 30}}));
  EXPECT_EQ(s.backend.filters, 1);
  EXPECT_EQ(s.backend.scores, 1);
  EXPECT_EQ(s.backend.preempts, 0);
}

TEST(CycleBackend, PreemptionPicksAmongWhatTheBackendKeeps) {
  Sim s;
  for (const char* n : {"n1", "n2", "n3"}) {
    s.cluster.add_pod(sim_pod(std::string("a-") + n, 500, 0, n));
    s.cluster.add_pod(sim_pod(std::string("b-") + n, 500, 0, n));
  }
  s.pending(sim_pod("vip", 400, 1000));
  const auto d = s.cycle();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->outcome, Outcome::kPreempted);
  EXPECT_EQ(s.backend.preempts, 1);
  // n1 failed unresolvable (the backend's filter): not a candidate. The dry runs offered n2 and n3;
  // the backend kept the last with one victim, and that is the nomination.
  ASSERT_EQ(s.backend.offered.size(), 2u);
  EXPECT_EQ(d->node, s.backend.offered.back());
  EXPECT_EQ(d->victims.size(), 1u);
  EXPECT_EQ(d->reasons.at("rejected by the backend"), 1u);
  EXPECT_EQ(s.cluster.pod("uid-vip")->nominated_node_name, d->node);
}

// A bindVerb that holds "g-*" pods until three of them have reached bind, then lets all go, and
// answers "bad" with an error; other pods bind at once.
struct HoldingBackend : FakeBackend {
  std::vector<std::string> held, binds;
  std::vector<BindAnswer> answered;
  std::optional<BindReply> bind(const SimCluster&, const Pod& pod, const std::string&) override {
    binds.push_back(pod.name);
    if (pod.name == "bad") return BindReply{BindReply::Kind::kFailed, "no room after all"};
    if (!pod.name.starts_with("g-")) return BindReply{};
    if (held.size() < 2) {
      held.push_back(pod.uid);
      return BindReply{BindReply::Kind::kHeld, {}};
    }
    for (const std::string& uid : held) answered.push_back({uid, "", ""});
    held.clear();
    return BindReply{};
  }
  std::vector<BindAnswer> take_answers(bool wait) override {
    if (wait) {  // the hold bound passed: the held binds fail
      for (const std::string& uid : held) answered.push_back({uid, "group incomplete", ""});
      held.clear();
    }
    return std::exchange(answered, {});
  }
  bool holds_binds() const override { return !held.empty(); }
};

// A simulator on 4-CPU `nodes` whose cycles go through `backend`, stopping at `max_time`.
std::unique_ptr<Simulator> backend_sim(const Engine& engine, CycleBackend& backend,
                                       const std::vector<std::string>& nodes, SimDuration max_time) {
  SimCluster cluster;
  for (const std::string& n : nodes) cluster.add_node(make_node(n, 4000, 4 * GiB));
  SimulatorOptions options;
  options.epoch_unix_seconds = kEpoch;
  options.backend = &backend;
  options.max_time = max_time;
  return std::make_unique<Simulator>(std::move(cluster), engine, options);
}

TEST(CycleBackend, BindsThroughTheBackendWaitFailAndRelease) {
  auto eng = least_requested_engine();
  HoldingBackend backend;
  backend.engine = eng.get();
  auto simulator = backend_sim(*eng, backend, {"n2", "n3"}, std::chrono::seconds(60));
  Simulator& sim = *simulator;
  for (const char* name : {"g-0", "g-1", "web", "g-2", "bad"})
    sim.add_pending(sim_pod(name, 100, 0), SimTime{0});
  std::vector<CycleRecord> log;
  RunSummary summary = sim.run([&](const CycleRecord& d) {
    if (log.size() < 8) log.push_back(d);
  });
  ASSERT_GE(log.size(), 6u);
  auto uid = [](const std::string& name) { return "uid-" + name; };  // make_pod's
  EXPECT_EQ(log[0].outcome, Outcome::kWaiting);
  EXPECT_EQ(log[1].outcome, Outcome::kWaiting);
  EXPECT_EQ(sim.cluster().pod(uid("g-0"))->node_name, log[0].node) << "assumed while its bind is held";
  EXPECT_EQ(log[2].outcome, Outcome::kScheduled);  // web
  EXPECT_TRUE(log[2].released.empty());
  EXPECT_EQ(log[3].outcome, Outcome::kScheduled);  // g-2 completes the group
  EXPECT_EQ(log[3].released, (std::vector<std::string>{uid("g-0"), uid("g-1")}));
  // A failed bind: no longer assumed, back to the queue (and failing again, until the run ends).
  EXPECT_EQ(log[4].outcome, Outcome::kBindFailed);
  EXPECT_EQ(log[4].message, "no room after all");
  EXPECT_TRUE(sim.cluster().pod(uid("bad"))->node_name.empty());
  EXPECT_EQ(summary.scheduled, 4u);
  EXPECT_GE(summary.bind_failures, 2u) << "tried again after backoff";
}

// A held bind that is never released: simulated time waits for its answer, an error, and the pod goes
// back to the queue (a kBindFailed record outside any cycle).
TEST(CycleBackend, AHeldBindAnsweredWithAnErrorRequeuesThePod) {
  auto eng = least_requested_engine();
  HoldingBackend backend;
  backend.engine = eng.get();
  auto simulator = backend_sim(*eng, backend, {"n2"}, std::chrono::seconds(30));
  Simulator& sim = *simulator;
  sim.add_pending(sim_pod("g-0", 100, 0), SimTime{0});
  std::vector<CycleRecord> log;
  const RunSummary summary = sim.run([&](const CycleRecord& d) {
    if (log.size() < 3) log.push_back(d);
  });
  ASSERT_GE(log.size(), 3u);
  EXPECT_EQ(log[0].outcome, Outcome::kWaiting);
  EXPECT_EQ(log[1].outcome, Outcome::kBindFailed);
  EXPECT_EQ(log[1].message, "group incomplete");
  EXPECT_EQ(log[1].at, log[0].at) << "simulated time stood still while the bind was held";
  EXPECT_EQ(log[2].outcome, Outcome::kWaiting) << "queued again and held again";
  EXPECT_EQ(summary.scheduled, 0u);
  EXPECT_GE(summary.bind_failures, 1u);
}

// Real time (extender-sim --real-time): a scripted backend whose clock the simulator reads and
// advances through wait_until. Every bind is in flight until its scripted answer: web's bound at 2 s,
// g-0's an error at 4 s; at 4.5 s, while g-0 backs off, the backend reports it bound elsewhere (an
// extender that bound it as its group completed).
struct RealTimeBackend : FakeBackend {
  SimTime clock{0};
  std::vector<std::pair<SimTime, BindAnswer>> script;  // answers, in time order
  std::string g0_node;
  bool real_time() const override { return true; }
  SimTime now() const override { return clock; }
  void wait_until(SimTime t) override {
    if (t == kNever && !script.empty()) t = script.front().first;
    if (!script.empty()) t = std::min(t, script.front().first);
    clock = std::max(clock, t);
  }
  std::optional<BindReply> bind(const SimCluster&, const Pod& pod, const std::string& node) override {
    if (pod.name == "web") script.push_back({clock + std::chrono::seconds(2), {pod.uid, "", ""}});
    if (pod.name == "g-0" && g0_node.empty()) {
      g0_node = node;
      script.push_back({clock + std::chrono::seconds(4), {pod.uid, "held 4s", ""}});
      script.push_back({clock + std::chrono::milliseconds(4500), {pod.uid, "", node}});
    }
    std::sort(script.begin(), script.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return BindReply{BindReply::Kind::kHeld, {}};
  }
  std::vector<BindAnswer> take_answers(bool) override {
    std::vector<BindAnswer> out;
    while (!script.empty() && script.front().first <= clock) {
      out.push_back(script.front().second);
      script.erase(script.begin());
    }
    return out;
  }
  bool holds_binds() const override { return !script.empty(); }
};

TEST(CycleBackend, RealTimeAnswersComeApartFromTheirCyclesAndPodsBoundElsewhereLeaveTheQueue) {
  auto eng = least_requested_engine();
  RealTimeBackend backend;
  backend.engine = eng.get();
  auto simulator = backend_sim(*eng, backend, {"n2"}, std::chrono::seconds(60));
  Simulator& sim = *simulator;
  sim.add_pending(sim_pod("web", 100, 0), SimTime{0});
  sim.add_pending(sim_pod("g-0", 100, 0), SimTime{0});
  std::vector<CycleRecord> log;
  const RunSummary summary = sim.run([&](const CycleRecord& d) { log.push_back(d); });
  struct Want {
    std::string pod;
    Outcome outcome;
    SimTime at;
    std::string message;
  };
  const std::vector<Want> want = {
      {"default/web", Outcome::kWaiting, SimTime{0}, ""},
      {"default/g-0", Outcome::kWaiting, SimTime{0}, ""},
      {"default/web", Outcome::kScheduled, std::chrono::seconds(2), ""},
      {"default/g-0", Outcome::kBindFailed, std::chrono::seconds(4), "held 4s"},
      {"default/g-0", Outcome::kScheduled, std::chrono::milliseconds(4500), "bound by the extender"},
  };
  ASSERT_EQ(log.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(log[i].pod, want[i].pod);
    EXPECT_EQ(log[i].outcome, want[i].outcome);
    EXPECT_EQ(log[i].at, want[i].at);
    EXPECT_EQ(log[i].message, want[i].message);
  }
  EXPECT_EQ(sim.cluster().pod("uid-g-0")->node_name, backend.g0_node);
  EXPECT_EQ(sim.queue().size(), 0u) << "bound elsewhere: out of the queue, not popped again";
  EXPECT_EQ(summary.scheduled, 2u);
  EXPECT_EQ(summary.bound_elsewhere, 1u);
  EXPECT_EQ(summary.bind_failures, 1u);
}

}  // namespace
}  // namespace cycle_backend_test
}  // namespace kext::sim
