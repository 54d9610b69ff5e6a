// The map/reduce engine with every algorithm of the catalogue on, serial vs parallel, to find the
// break-even node count (the policy's default parallelThreshold).
#include <benchmark/benchmark.h>

#include "bench/synthetic_cluster.h"
#include "extender/state/snapshot_loader.h"
#include "policy/policy.h"

namespace {

struct Fixture {
  std::shared_ptr<const kext::ClusterState> state;
  std::vector<const kext::NodeInfo*> nodes;
  kext::Pod pod;
};

const Fixture& fixture(size_t n) {
  static std::map<size_t, Fixture> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  Fixture f;
  const auto w = kext::bench::make_workload(n, 10);
  kext::ClusterStateBuilder b;
  kext::load_snapshot_json(w.snapshot, b);
  f.state = std::move(b).build();
  for (const auto& name : w.node_names) f.nodes.push_back(f.state->find_node(name));
  kext::Container c;
  c.requests.milli_cpu = w.pod.cpu_milli;
  c.requests.memory = w.pod.memory_mi << 20;
  c.has_cpu_request = c.has_memory_request = true;
  c.image = w.pod.image;
  f.pod.containers.push_back(c);
  return cache.emplace(n, std::move(f)).first->second;
}

// Every filter (the default's list) and every score, weight 1.
constexpr std::string_view kAllAlgorithms = R"({"kind":"Policy","apiVersion":"v1","priorities":[
  {"name":"LeastRequestedPriority","weight":1},{"name":"MostRequestedPriority","weight":1},
  {"name":"BalancedResourceAllocation","weight":1},{"name":"NodeAffinityPriority","weight":1},
  {"name":"TaintTolerationPriority","weight":1},{"name":"ImageLocalityPriority","weight":1},
  {"name":"RequestedToCapacityRatioPriority","weight":1,"argument":{"requestedToCapacityRatioArguments":
    {"shape":[{"utilization":0,"score":0},{"utilization":100,"score":10}]}}}]})";

void run(benchmark::State& st, bool parallel, bool scoring) {
  const Fixture& f = fixture(static_cast<size_t>(st.range(0)));
  kext::Policy p = kext::parse_policy(kAllAlgorithms);
  p.parallel_threshold = parallel ? 0 : INT64_MAX;
  auto engine = kext::build_engine(p);
  for (auto _ : st) {
    kext::PodContext ctx(f.pod);
    if (scoring) {
      benchmark::DoNotOptimize(engine->score(ctx, f.nodes));
    } else {
      benchmark::DoNotOptimize(engine->filter(ctx, f.nodes));
    }
  }
  st.SetItemsProcessed(st.iterations() * st.range(0));
}

void BM_ScoreSerial(benchmark::State& st) { run(st, false, true); }
void BM_ScoreParallel(benchmark::State& st) { run(st, true, true); }
void BM_FilterSerial(benchmark::State& st) { run(st, false, false); }
void BM_FilterParallel(benchmark::State& st) { run(st, true, false); }

#define NODE_COUNTS Arg(16)->Arg(64)->Arg(100)->Arg(256)->Arg(500)->Arg(1000)->Arg(5000)
BENCHMARK(BM_ScoreSerial)->NODE_COUNTS;
BENCHMARK(BM_ScoreParallel)->NODE_COUNTS;
BENCHMARK(BM_FilterSerial)->NODE_COUNTS;
BENCHMARK(BM_FilterParallel)->NODE_COUNTS;

}  // namespace

BENCHMARK_MAIN();
