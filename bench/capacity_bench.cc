// extender-sim capacity at a large cluster's size: extender-gen's cluster of N nodes with P running pods
// each (about half of the CPU and memory requested), "how many more of a 1-CPU, 1Gi pod fit" under
// kube-scheduler's default profile.
//  - BM_HowManyFit: the question alone, on a cluster already decoded (what the extender's live state
//    would answer from): copies placed until one does not fit.
//  - BM_CapacityCommand: the command as it runs, decoding the cluster file first.
//  - BM_Drain: --drain of the cluster's first nodes: their pods (each of a ReplicaSet) evicted and
//    their replacements placed through the cycle, preemption included.
// One iteration per run.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/synthetic_cluster.h"
#include "load/gen/cluster.h"
#include "sim/capacity/capacity_command.h"
#include "sim/capacity/drain.h"
#include "sim/capacity/how_many_fit.h"
#include "sim/inputs.h"
#include "sim/run.h"
#include "tests/support/temp_dir.h"

namespace {

using namespace kext;

// The pod capacity questions ask about (bench/synthetic_cluster.h).
constexpr const char* kPod = bench::kCapacityPod;

struct Files {
  std::unique_ptr<testing::TempDir> dir;
  std::string cluster, pod, cluster_text;
};

const Files& files(size_t nodes, size_t pods_per_node) {
  static std::map<std::pair<size_t, size_t>, Files> cache;
  Files& f = cache[{nodes, pods_per_node}];
  if (f.dir) return f;
  f.dir = std::make_unique<testing::TempDir>("capacity-bench-" + std::to_string(nodes) + "-" +
                                             std::to_string(pods_per_node));
  gen::GenOptions o;
  o.nodes = nodes;
  o.pods_per_node = pods_per_node;
  f.cluster_text = gen::cluster_list_json(gen::make_cluster(o));
  f.cluster = (f.dir->path() / "cluster.json").string();
  f.pod = (f.dir->path() / "pod.json").string();
  testing::spit(f.cluster, f.cluster_text);
  testing::spit(f.pod, kPod);
  return f;
}

// The cluster decoded (outside the timing), and the options a run of `config` on it takes.
struct Decoded {
  simtool::ClusterInput in;
  sim::SimulatorOptions options;
};
Decoded decoded(const Files& f, const simtool::SimConfig& config) {
  Decoded d{simtool::decode_cluster(f.cluster_text), {}};
  simtool::apply(config, d.options);
  d.options.epoch_unix_seconds = d.in.epoch_unix_seconds;
  return d;
}

void report(benchmark::State& state, const sim::capacity::CapacityAnswer& a) {
  state.counters["fit"] = static_cast<double>(a.fit);
  state.counters["nodes_used"] = static_cast<double>(a.per_node.size());
  state.counters["running"] = static_cast<double>(state.range(0) * state.range(1));
  state.counters["cycles"] = static_cast<double>(a.cycles);
}

// Args: nodes, running pods per node, --max (0: none, each node filled alone; else every copy a cycle).
void BM_HowManyFit(benchmark::State& state) {
  const Files& f = files(static_cast<size_t>(state.range(0)), static_cast<size_t>(state.range(1)));
  const auto max_pods = static_cast<size_t>(state.range(2));
  const simtool::SimConfig config = simtool::load_sim_config("");
  const Pod pod = simtool::read_capacity_pod(f.pod, {});
  sim::capacity::CapacityAnswer answer;
  for (auto _ : state) {
    state.PauseTiming();
    Decoded d = decoded(f, config);
    state.ResumeTiming();
    answer = sim::capacity::how_many_fit(std::move(d.in.cluster), *config.engine, d.options, pod, max_pods);
  }
  report(state, answer);
}

void BM_CapacityCommand(benchmark::State& state) {
  const Files& f = files(static_cast<size_t>(state.range(0)), static_cast<size_t>(state.range(1)));
  simtool::CapacityCommand command;
  command.inputs.cluster_file = f.cluster;
  command.pod_file = f.pod;
  sim::capacity::CapacityAnswer answer;
  for (auto _ : state) {
    answer = simtool::run_capacity(command);
    benchmark::DoNotOptimize(answer);
  }
  report(state, answer);
}

// Args: nodes, running pods per node, nodes drained (the cluster's first).
void BM_Drain(benchmark::State& state) {
  const Files& f = files(static_cast<size_t>(state.range(0)), static_cast<size_t>(state.range(1)));
  const auto drained = static_cast<size_t>(state.range(2));
  const simtool::SimConfig config = simtool::load_sim_config("");
  sim::capacity::DrainAnswer answer;
  for (auto _ : state) {
    state.PauseTiming();
    Decoded d = decoded(f, config);
    std::vector<std::string> nodes;
    for (size_t i = 0; i < drained && i < d.in.cluster.nodes().size(); ++i)
      nodes.push_back(d.in.cluster.nodes()[i]->node->name);
    state.ResumeTiming();
    answer = sim::capacity::drain(std::move(d.in.cluster), *config.engine, d.options, nodes);
  }
  state.counters["placed"] = static_cast<double>(answer.placed.size());
  state.counters["pending"] = static_cast<double>(answer.pending.size());
  state.counters["unreplaced"] = static_cast<double>(answer.unreplaced.size());
  state.counters["preempted"] = static_cast<double>(answer.preempted.size());
}

// The size: 5,000 nodes and 150,000 running pods; and a tenth of it. With --max 2000, the
// copies through whole cycles, for the per-cycle cost.
void question_sizes(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->Iterations(1);
  for (int64_t max : {0, 2000}) {
    b->Args({500, 30, max});
    b->Args({5000, 30, max});
  }
}

void command_sizes(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->Iterations(1);
  b->Args({500, 30});
  b->Args({5000, 30});
}

BENCHMARK(BM_HowManyFit)->Apply(question_sizes);
BENCHMARK(BM_CapacityCommand)->Apply(command_sizes);
// 50 nodes of 5,000 drained (the target: 5 s), and 5 of 500.
BENCHMARK(BM_Drain)->Unit(benchmark::kMillisecond)->Iterations(1)->Args({500, 30, 5})->Args({5000, 30, 50});

}  // namespace

BENCHMARK_MAIN();
