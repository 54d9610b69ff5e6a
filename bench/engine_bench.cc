// The map/reduce engine: every algorithm of the catalogue on, serial vs parallel (the break-even node
// count, the policy's default parallelThreshold); each plugin's cost per node (cost_per_node_ns);
// and the CPU and wall-clock of serial, parallel and the engine's choice per request (BM_Choice); and a
// request's names resolved and run against a warm or a cold cluster state (BM_ResolveThenRun).
#include <benchmark/benchmark.h>

#include <chrono>
#include <thread>

#include "bench/cpu_time.h"
#include "bench/synthetic_cluster.h"
#include "kube/state/snapshot_loader.h"
#include "policy/config.h"
#include "policy/policy.h"
#include "tests/support/fake_usage_view.h"

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
  p.parallel_min_work_us = 0;
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

// The framework plugins as kube-scheduler's default profile runs them (current arithmetic), and
// NodeResourcesFit's two other strategies.
constexpr std::string_view kFrameworkPlugins = R"({"apiVersion":"kube-extender.io/v1alpha1",
  "kind":"ExtenderConfiguration"})";
constexpr std::string_view kFitStrategies = R"({"apiVersion":"kube-extender.io/v1alpha1",
  "kind":"ExtenderConfiguration","plugins":{"score":{"disabled":[{"name":"*"}],
  "enabled":[{"name":"NodeResourcesFit"}]}},"pluginConfig":[{"name":"NodeResourcesFit","args":{
  "scoringStrategy":{"type":"MostAllocated"}}}]})";
constexpr std::string_view kRatioStrategy = R"({"apiVersion":"kube-extender.io/v1alpha1",
  "kind":"ExtenderConfiguration","plugins":{"score":{"disabled":[{"name":"*"}],
  "enabled":[{"name":"NodeResourcesFit"}]}},"pluginConfig":[{"name":"NodeResourcesFit","args":{
  "scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[
  {"utilization":0,"score":0},{"utilization":100,"score":10}]}}}}]})";

// range(1) of the cost benchmarks: 0 every legacy algorithm, 1..3 the configurations above.
const kext::Engine& cost_engine(int64_t which) {
  static const auto legacy = kext::build_engine(kext::parse_policy(kAllAlgorithms));
  static const std::array profiles{kext::compile(kext::parse_config(kFrameworkPlugins)),
                                   kext::compile(kext::parse_config(kFitStrategies)),
                                   kext::compile(kext::parse_config(kRatioStrategy))};
  return which == 0 ? *legacy : profiles[static_cast<size_t>(which - 1)].engine;
}

// Each plugin alone, serially, over 1000 nodes: what one node costs it (for a score: prepare and reduce
// included, spread over the nodes). These are the per-plugin figures behind cost_per_node_ns().
constexpr size_t kCostNodes = 1000;

void BM_FilterPluginCost(benchmark::State& st) {
  const Fixture& f = fixture(kCostNodes);
  const kext::Engine& engine = cost_engine(st.range(1));
  const auto index = static_cast<size_t>(st.range(0));
  if (index >= engine.filters().size()) return st.SkipWithError("no such filter");
  const kext::FilterPlugin& plugin = *engine.filters()[index];
  st.SetLabel(std::string(plugin.name()));
  kext::PodContext ctx(f.pod);
  engine.prepare(ctx, f.nodes);
  std::vector<std::string> reasons;  // as the engine's loop calls it: a failing node's reasons go here
  for (auto _ : st) {
    for (const kext::NodeInfo* n : f.nodes) {
      benchmark::DoNotOptimize(plugin.check(ctx, *n, reasons));
      reasons.clear();
    }
  }
  st.counters["ns_per_node"] = benchmark::Counter(static_cast<double>(st.iterations() * kCostNodes),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_ScorePluginCost(benchmark::State& st) {
  const Fixture& f = fixture(kCostNodes);
  const kext::Engine& engine = cost_engine(st.range(1));
  const auto index = static_cast<size_t>(st.range(0));
  if (index >= engine.scores().size()) return st.SkipWithError("no such score");
  const kext::ScorePlugin& plugin = *engine.scores()[index].plugin;
  st.SetLabel(std::string(plugin.name()));
  kext::PodContext ctx(f.pod);
  std::vector<int64_t> row(f.nodes.size());
  for (auto _ : st) {
    auto prepared = plugin.prepare(ctx, f.nodes);
    for (size_t i = 0; i < f.nodes.size(); ++i) row[i] = plugin.score_at(ctx, prepared.get(), f.nodes, i);
    if (plugin.has_reduce()) plugin.reduce(row);
    benchmark::DoNotOptimize(row.data());
  }
  st.counters["ns_per_node"] = benchmark::Counter(static_cast<double>(st.iterations() * kCostNodes),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_FilterPluginCost)->ArgsProduct({benchmark::CreateDenseRange(0, 4, 1), {0}});
BENCHMARK(BM_FilterPluginCost)->ArgsProduct({benchmark::CreateDenseRange(0, 7, 1), {1}});
BENCHMARK(BM_ScorePluginCost)->ArgsProduct({benchmark::CreateDenseRange(0, 6, 1), {0}});
BENCHMARK(BM_ScorePluginCost)->ArgsProduct({benchmark::CreateDenseRange(0, 6, 1), {1}});
BENCHMARK(BM_ScorePluginCost)->ArgsProduct({{0}, {2, 3}});

// One normalisation (DefaultNormalizeScore) over 1000 nodes: the engine's reduce cost per node.
void BM_Normalize(benchmark::State& st) {
  std::vector<int64_t> row(kCostNodes);
  for (auto _ : st) {
    for (size_t i = 0; i < row.size(); ++i) row[i] = static_cast<int64_t>(i * 7919 % 1000);
    kext::default_normalize_score(kext::kMaxScore, true, row);
    benchmark::DoNotOptimize(row.data());
  }
  st.counters["ns_per_node"] = benchmark::Counter(static_cast<double>(st.iterations() * kCostNodes),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Normalize);

using kext::bench::process_cpu_us;

// Serial, parallel and the engine's own choice side by side, as the server meets them: the embedded
// default configuration's filters (range(2) = 0) or scores (1) on range(0) nodes, one request per
// scheduler round trip (the scheduler's next call follows it). Time is the call's wall-clock; cpu_us is
// the whole process's CPU per request, so it includes what oneTBB's workers spend after a region.
// range(1): 0 serial, 1 parallel, 2 the engine's choice (parallelThreshold and the work floor).
void BM_Choice(benchmark::State& st) {
  const Fixture& f = fixture(static_cast<size_t>(st.range(0)));
  kext::Config config = kext::parse_config(kext::default_config_json());
  if (st.range(1) == 0) config.parallel_threshold = INT64_MAX;
  if (st.range(1) == 1) config.parallel_threshold = config.parallel_min_work_us = 0;
  const kext::Profile profile = kext::compile(config);
  const bool scoring = st.range(2) == 1;
  st.SetLabel(
      scoring ? (profile.engine.scores_in_parallel(f.nodes.size()) ? "score, parallel" : "score, serial")
              : (profile.engine.filters_in_parallel(f.nodes.size()) ? "filter, parallel" : "filter, serial"));
  const double cpu0 = process_cpu_us();
  for (auto _ : st) {
    const auto t0 = std::chrono::steady_clock::now();
    kext::PodContext ctx(f.pod);
    if (scoring) {
      benchmark::DoNotOptimize(profile.engine.score(ctx, f.nodes));
    } else {
      benchmark::DoNotOptimize(profile.engine.filter(ctx, f.nodes));
    }
    st.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  st.counters["cpu_us"] = (process_cpu_us() - cpu0) / static_cast<double>(st.iterations());
}
BENCHMARK(BM_Choice)
    ->ArgsProduct({{100, 500, 1000, 5000}, {0, 1, 2}, {0, 1}})
    ->UseManualTime()
    ->Iterations(300)
    ->Unit(benchmark::kMicrosecond);

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

// A request's names resolved against the state and then filtered or scored: 500 random names of 5000 nodes,
// as kube-scheduler sends at that size, one find_node after another (arg 0 = 0) or find_nodes' staged
// prefetches (1); filter (arg 1 = 0) or score (1); the state warm from the previous request (arg 2 = 0) or
// pushed out of the caches by other work larger than them (1), as when kube-scheduler shares the cores
// between requests (its figures: docs/performance.md "Figures behind design choices in the code").
void BM_ResolveThenRun(benchmark::State& st) {
  const Fixture& f = fixture(5000);
  const bool batched = st.range(0) != 0, scoring = st.range(1) != 0, cold = st.range(2) != 0;
  kext::Policy p = kext::parse_policy(kAllAlgorithms);
  p.parallel_threshold = INT64_MAX;
  auto engine = kext::build_engine(p);
  std::vector<std::string> all;
  f.state->nodes.for_each([&](std::string_view name, const auto&) { all.emplace_back(name); });
  std::vector<char> other_work(64 << 20, 1);
  kext::gen::Prng rng(7);
  std::vector<std::string_view> names(500);
  std::vector<const kext::NodeInfo*> infos(names.size());
  for (auto _ : st) {
    st.PauseTiming();
    if (cold) {
      for (size_t i = 0; i < other_work.size(); i += 64) ++other_work[i];
    }
    for (auto& n : names) n = all[rng.below(all.size())];
    st.ResumeTiming();
    if (batched) {
      f.state->find_nodes(names, infos);
    } else {
      for (size_t i = 0; i < names.size(); ++i) infos[i] = f.state->find_node(names[i]);
    }
    kext::PodContext ctx(f.pod);
    if (scoring) {
      benchmark::DoNotOptimize(engine->score(ctx, infos));
    } else {
      benchmark::DoNotOptimize(engine->filter(ctx, infos));
    }
  }
}
BENCHMARK(BM_ResolveThenRun)->ArgsProduct({{0, 1}, {0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);

// What the load-aware scores add to a prioritize of 500 random names of 5000 nodes, serially, the cluster
// view holding a usage sample for every node (a hash keyed by node name; the real view is the usage
// store's): arg 0 = 0 without them, 1 with TargetLoadPacking and LoadVariationRiskBalancing on; arg 1 = 0
// the default profile's scores besides, 1 NodeResourcesFit's only (less noise around the difference).
// The difference over 500 is what the usage lookup, the lag estimate and the two formulas cost per node.
void BM_LoadAwarePrioritize(benchmark::State& st) {
  const Fixture& f = fixture(5000);
  const bool load = st.range(0) != 0, fit_only = st.range(1) != 0;
  std::string enabled = load ? R"({"name":"TargetLoadPacking"},{"name":"LoadVariationRiskBalancing"})" : "";
  if (fit_only) enabled = R"({"name":"NodeResourcesFit"})" + std::string(load ? "," : "") + enabled;
  const std::string config = R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration",
    "parallelThreshold":1000000000,"plugins":{"score":{)" +
                             std::string(fit_only ? R"("disabled":[{"name":"*"}],)" : "") + R"("enabled":[)" +
                             enabled + "]}}}";
  const kext::Profile profile = kext::compile(kext::parse_config(config));
  kext::testing::FakeUsageView view;
  for (const kext::NodeInfo* n : f.nodes) {
    view.samples[n->name()] = kext::testing::usage_percent(*n->node, 30, 40, 5, 2);
  }
  kext::ClusterView cluster;
  cluster.nodes = f.nodes;
  cluster.usage = &view;
  kext::gen::Prng rng(11);
  std::vector<const kext::NodeInfo*> names(500);
  for (auto& n : names) n = f.nodes[rng.below(f.nodes.size())];
  for (auto _ : st) {
    kext::PodContext ctx(f.pod, &cluster);
    benchmark::DoNotOptimize(profile.engine.score(ctx, names));
  }
}
BENCHMARK(BM_LoadAwarePrioritize)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
