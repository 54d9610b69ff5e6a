// extender-sim --follow's throughput: live pod events through the mirror (sim/follow/mirror.h)
// and one policy's scheduling, at a large cluster's size: extender-gen's cluster of N nodes with P running
// pods each mirrored first, then one iteration per live pod's life, three events each:
//  - created pending: into the simulated queue, and one scheduling cycle over every node (the
//    default configuration, kube-scheduler's adaptive percentageOfNodesToScore);
//  - bound by production: recorded for the comparison, not applied;
//  - deleted (a pod of 64 iterations earlier): its room freed in the simulation.
// The Divergence is fed as the follow loop feeds it. events_per_second counts all three.
//
// BM_FollowDecision: the decision agreement's cost per production binding and policy (its CPU time
// per iteration, every thread counted): production's cluster (sim/follow/production.h) at the
// same size, a pod created pending then bound by production, judged by one policy over every node
// (decision.h), then applied; a pod of 64 iterations earlier deleted.
#include <benchmark/benchmark.h>

#include <chrono>
#include <deque>
#include <string>

#include "algorithms/namespaced_key.h"
#include "algorithms/pod_requests.h"
#include "load/gen/cluster.h"
#include "sim/follow/decision.h"
#include "sim/follow/divergence.h"
#include "sim/follow/mirror.h"
#include "sim/follow/production.h"
#include "sim/inputs.h"
#include "sim/run.h"

namespace {

using namespace kext;
using simtool::follow::LiveEvent;

simtool::follow::PodFacts facts(const Pod& pod) {
  const Resources r = compute_pod_requests(pod, false);
  return {pod.uid, namespaced_key(pod.namespace_, pod.name), "", r.milli_cpu, r.memory};
}

// Args: nodes, running pods per node.
void BM_FollowPodEvents(benchmark::State& state) {
  gen::GenOptions o;
  o.nodes = static_cast<size_t>(state.range(0));
  o.pods_per_node = static_cast<size_t>(state.range(1));
  simtool::ClusterInput input = simtool::decode_cluster(gen::cluster_list_json(gen::make_cluster(o)));

  const simtool::SimConfig config = simtool::load_sim_config("");
  simtool::SimCommand command;
  simtool::follow::Divergence divergence({"default"});
  simtool::follow::PolicyMirror mirror(
      0, "default", config, simtool::follow::follow_options(command, config, 0), divergence, nullptr);
  // The first list: every node, then every running pod, at time 0.
  std::vector<simtool::follow::NodeFacts> nodes;
  for (const NodeInfo* n : input.cluster.nodes()) {
    LiveEvent e;
    e.kind = LiveEvent::Kind::kNodeUpsert;
    e.node = *n->node;
    nodes.push_back(
        {e.node.name, e.node.allocatable.milli_cpu, e.node.allocatable.memory, e.node.allocatable.pods});
    mirror.apply(e, sim::SimTime{0});
  }
  divergence.set_nodes(nodes);
  input.cluster.for_each_pod([&](const std::shared_ptr<const Pod>& pod) {
    LiveEvent e;
    e.kind = LiveEvent::Kind::kPodUpsert;
    e.pod.pod = *pod;
    divergence.pod_running(facts(*pod), pod->node_name);
    mirror.apply(e, sim::SimTime{0});
  });
  mirror.advance(sim::SimTime{0});

  Pod shape;
  shape.namespace_ = "bench";
  shape.priority = 1000;
  Container c;
  c.name = "c";
  c.requests.milli_cpu = 500;
  c.requests.memory = 512LL << 20;
  c.has_cpu_request = c.has_memory_request = true;
  shape.containers.push_back(c);
  std::deque<std::string> live;
  sim::SimTime now{0};
  uint64_t i = 0, events = 0;
  for (auto _ : state) {
    now += std::chrono::milliseconds(1);
    LiveEvent created;
    created.kind = LiveEvent::Kind::kPodUpsert;
    created.pod.pod = shape;
    created.pod.pod.name = "live-" + std::to_string(i);
    created.pod.pod.uid = "uid-live-" + std::to_string(i++);
    divergence.pod_pending(facts(created.pod.pod));
    divergence.count_live_event();
    mirror.apply(created, now);
    mirror.advance(now);
    // Production binds it to the first node (where does not matter to the mirror).
    LiveEvent bound = created;
    bound.pod.pod.node_name = nodes.front().name;
    divergence.production_bound(bound.pod.pod.uid, bound.pod.pod.node_name);
    divergence.count_live_event();
    mirror.apply(bound, now);
    live.push_back(created.pod.pod.uid);
    events += 2;
    if (live.size() > 64) {
      LiveEvent deleted;
      deleted.kind = LiveEvent::Kind::kPodDelete;
      deleted.pod.pod.uid = live.front();
      live.pop_front();
      divergence.pod_deleted(deleted.pod.pod.uid);
      divergence.count_live_event();
      mirror.apply(deleted, now);
      ++events;
    }
    mirror.advance(now);
  }
  state.counters["events_per_second"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["cycles"] = static_cast<double>(mirror.summary().cycles);
  state.counters["scheduled"] = static_cast<double>(mirror.summary().scheduled);
}

// The live cluster's first list, as LiveEvents: every node, then every running pod.
std::vector<LiveEvent> first_list(const simtool::ClusterInput& input) {
  std::vector<LiveEvent> out;
  for (const NodeInfo* n : input.cluster.nodes()) {
    LiveEvent e;
    e.kind = LiveEvent::Kind::kNodeUpsert;
    e.node = *n->node;
    out.push_back(std::move(e));
  }
  input.cluster.for_each_pod([&](const std::shared_ptr<const Pod>& pod) {
    LiveEvent e;
    e.kind = LiveEvent::Kind::kPodUpsert;
    e.pod.pod = *pod;
    out.push_back(std::move(e));
  });
  return out;
}

// Args: nodes, running pods per node.
void BM_FollowDecision(benchmark::State& state) {
  gen::GenOptions o;
  o.nodes = static_cast<size_t>(state.range(0));
  o.pods_per_node = static_cast<size_t>(state.range(1));
  const simtool::ClusterInput input = simtool::decode_cluster(gen::cluster_list_json(gen::make_cluster(o)));
  const simtool::SimConfig config = simtool::load_sim_config("");
  simtool::SimCommand command;
  simtool::follow::Divergence divergence({"default"});
  simtool::follow::PolicyMirror policy(
      0, "default", config, simtool::follow::follow_options(command, config, 0), divergence, nullptr);
  const sim::CycleConfig& cycle = policy.simulator().cycle_config();
  simtool::follow::ProductionMirror production;
  for (const LiveEvent& e : first_list(input)) production.apply(e);
  const std::vector<std::string> nodes = [&] {
    std::vector<std::string> out;
    for (const NodeInfo* n : production.cluster().nodes()) out.push_back(n->name());
    return out;
  }();
  LiveEvent created;
  created.kind = LiveEvent::Kind::kPodUpsert;
  created.pod.pod.namespace_ = "bench";
  created.pod.pod.priority = 1000;
  Container c;
  c.name = "c";
  c.requests.milli_cpu = 500;
  c.requests.memory = 512LL << 20;
  c.has_cpu_request = c.has_memory_request = true;
  created.pod.pod.containers.push_back(c);
  std::deque<std::string> live;
  uint64_t i = 0, agreed = 0, judged = 0;
  for (auto _ : state) {
    created.pod.pod.name = "live-" + std::to_string(i);
    created.pod.pod.uid = "uid-live-" + std::to_string(i);
    created.pod.pod.node_name.clear();
    production.apply(created);
    LiveEvent bound = created;
    bound.pod.pod.node_name = nodes[i++ % nodes.size()];
    if (auto b = production.apply(bound)) {
      const simtool::follow::DecisionVerdict v =
          simtool::follow::judge_binding(cycle, production.cluster(), b->pod, b->node);
      agreed += v.agreed();
      ++judged;
      production.bind(*b);
    }
    live.push_back(created.pod.pod.uid);
    if (live.size() > 64) {
      LiveEvent deleted;
      deleted.kind = LiveEvent::Kind::kPodDelete;
      deleted.pod.pod.uid = live.front();
      live.pop_front();
      production.apply(deleted);
    }
  }
  state.counters["decisions_per_second"] =
      benchmark::Counter(static_cast<double>(judged), benchmark::Counter::kIsRate);
  state.counters["agreed"] = static_cast<double>(agreed);
}

BENCHMARK(BM_FollowDecision)
    ->Args({500, 30})
    ->Args({5000, 30})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->MinTime(5);

BENCHMARK(BM_FollowPodEvents)->Args({500, 30})->Args({5000, 30})->Unit(benchmark::kMillisecond)->MinTime(5);

}  // namespace

BENCHMARK_MAIN();
