// extender-sim at a large cluster's size: extender-gen's cluster of N nodes with P running pods each (about
// half of the CPU and memory requested, priorities 0 to 10000) and a workload of pending pods, run as
// the command runs it (run_sim: the configuration, decoding both files, the simulation, no log).
// BM_SimDecode times the cluster file's decoding alone, so that the simulation's share is the
// difference. Workloads:
//  - fit: one Deployment of W pods (500m, 512Mi, priority 1000), arriving 0.01 s apart; they fit
//    beside the running pods, so each is one cycle;
//  - preempt: the same Deployment plus a Job of W/10 pods (4 CPU, 8Gi, priority 100000) arriving after
//    it, which must preempt once the Deployment has taken the room: dry runs, victims, grace periods,
//    recreated victims.
// The files are written once per size to a scratch directory; one iteration per run (seconds each).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "load/gen/cluster.h"
#include "sim/inputs.h"
#include "sim/run.h"
#include "tests/support/temp_dir.h"

namespace {

using namespace kext;

enum Workload : int64_t { kFit = 0, kPreempt = 1 };

std::string workload_json(size_t pods, Workload kind) {
  std::string items =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"bench"},"spec":{"replicas":)" +
      std::to_string(pods) +
      R"(,"template":{"spec":{"priority":1000,"containers":[{"name":"c","image":"nginx:1.25","resources":{"requests":{"cpu":"500m","memory":"512Mi"}}}]}}}})";
  if (kind == kPreempt) {
    items +=
        R"(,{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"train","namespace":"bench"},"spec":{"parallelism":)" +
        std::to_string(pods / 10) +
        R"(,"template":{"spec":{"priority":100000,"containers":[{"name":"c","image":"trainer:2","resources":{"requests":{"cpu":"4","memory":"8Gi"}}}]}}}})";
  }
  return R"({"apiVersion":"v1","kind":"List","items":[)" + items + "]}";
}

// One scratch directory per (nodes, pods per node, workload size, kind), kept for the whole run:
// generating 150,000 pods' JSON takes longer than simulating them.
struct Files {
  std::unique_ptr<testing::TempDir> dir;
  std::string cluster, workload, cluster_text;
};

const Files& files(size_t nodes, size_t pods_per_node, size_t pending, Workload kind) {
  static std::map<std::tuple<size_t, size_t, size_t, int64_t>, Files> cache;
  Files& f = cache[{nodes, pods_per_node, pending, kind}];
  if (f.dir) return f;
  f.dir = std::make_unique<testing::TempDir>("sim-bench-" + std::to_string(nodes) + "-" +
                                             std::to_string(pods_per_node) + "-" + std::to_string(pending) +
                                             "-" + std::to_string(kind));
  gen::GenOptions o;
  o.nodes = nodes;
  o.pods_per_node = pods_per_node;
  f.cluster_text = gen::cluster_list_json(gen::make_cluster(o));
  f.cluster = (f.dir->path() / "cluster.json").string();
  f.workload = (f.dir->path() / "workload.json").string();
  testing::spit(f.cluster, f.cluster_text);
  testing::spit(f.workload, workload_json(pending, kind));
  return f;
}

// Args: nodes, running pods per node, pending pods (the Deployment), workload kind.
void BM_SimRun(benchmark::State& state) {
  const auto kind = static_cast<Workload>(state.range(3));
  const Files& f = files(static_cast<size_t>(state.range(0)), static_cast<size_t>(state.range(1)),
                         static_cast<size_t>(state.range(2)), kind);
  simtool::SimCommand command;
  command.cluster_file = f.cluster;
  command.workload_file = f.workload;
  command.arrival_interval_seconds = 0.01;
  simtool::SimResult result;
  for (auto _ : state) {
    result = simtool::run_sim(command, nullptr);
    benchmark::DoNotOptimize(result);
  }
  const sim::RunSummary& s = result.summary;
  state.counters["cycles"] = static_cast<double>(s.cycles);
  state.counters["scheduled"] = static_cast<double>(s.scheduled);
  state.counters["preemptions"] = static_cast<double>(s.preemptions);
  state.counters["victims"] = static_cast<double>(s.victims);
  state.counters["pending_end"] = static_cast<double>(s.pending_at_end);
  state.counters["running"] = static_cast<double>(state.range(0) * state.range(1));
}

void BM_SimDecode(benchmark::State& state) {
  const Files& f = files(static_cast<size_t>(state.range(0)), static_cast<size_t>(state.range(1)),
                         static_cast<size_t>(state.range(2)), static_cast<Workload>(state.range(3)));
  for (auto _ : state) {
    simtool::ClusterInput input = simtool::decode_cluster(f.cluster_text);
    benchmark::DoNotOptimize(input);
  }
}

// The issue's size: 5,000 nodes, 150,000 running pods, 10,000 pending; and a tenth of it.
void sizes(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kSecond)->Iterations(1);
  for (int64_t kind : {kFit, kPreempt}) {
    b->Args({500, 30, 1000, kind});
    b->Args({5000, 30, 10000, kind});
  }
}

BENCHMARK(BM_SimDecode)->Apply(sizes);
BENCHMARK(BM_SimRun)->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
