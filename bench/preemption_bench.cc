// Preemption dry run + node ordering: 100 candidate nodes × 30 pods with PDBs (a typical preempt
// call, every node evaluated as with ≤ 100 potential nodes), and 5000 nodes (the worst case an
// extender sees). Serial vs TBB, both semantics.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "algorithms/engine.h"
#include "algorithms/filters/pod_fits_resources.h"
#include "algorithms/pod_requests.h"
#include "algorithms/preemption/preemption.h"

namespace {

using namespace kext;

constexpr int64_t kNow = 1767225600;

struct Cluster {
  std::vector<NodeInfo> nodes;
  std::vector<const NodeInfo*> ptrs;
  std::vector<PodDisruptionBudget> pdbs;
};

Cluster make_cluster(size_t n_nodes, size_t pods_per_node) {
  std::mt19937 rng(7);
  Cluster c;
  c.nodes.reserve(n_nodes);
  for (size_t i = 0; i < n_nodes; ++i) {
    NodeInfo info;
    auto node = std::make_shared<Node>();
    node->name = "node-" + std::to_string(i);
    node->allocatable.milli_cpu = static_cast<int64_t>(pods_per_node) * 1000;
    node->allocatable.memory = int64_t{64} << 30;
    node->allocatable.pods = 110;
    info.node = node;
    for (size_t k = 0; k < pods_per_node; ++k) {
      auto pod = std::make_shared<Pod>();
      pod->name = node->name + "-pod-" + std::to_string(k);
      pod->namespace_ = "default";
      pod->uid = "uid-" + pod->name;
      pod->node_name = node->name;
      pod->labels = Labels{{"app", "svc-" + std::to_string(rng() % 10)}};
      pod->priority = static_cast<int32_t>(rng() % 2000);
      pod->start_time = kNow - static_cast<int64_t>(rng() % 100000);
      Container ctr;
      ctr.name = "c";
      ctr.requests.milli_cpu = 1000;
      ctr.requests.memory = int64_t{1} << 30;
      ctr.has_cpu_request = ctr.has_memory_request = true;
      pod->containers.push_back(ctr);
      info.add_pod(std::make_shared<const PodInfo>(make_pod_info(pod)));
    }
    c.nodes.push_back(std::move(info));
  }
  for (const auto& n : c.nodes) c.ptrs.push_back(&n);
  for (int a = 0; a < 10; ++a) {
    PodDisruptionBudget b;
    b.name = "pdb-" + std::to_string(a);
    b.namespace_ = "default";
    b.selector = LabelSelector{{{"app", "svc-" + std::to_string(a)}}, {}};
    b.disruptions_allowed = a % 3;  // some exhausted, some with room
    c.pdbs.push_back(std::move(b));
  }
  return c;
}

const Engine& engine() {
  static const Engine e = [] {
    std::vector<std::unique_ptr<FilterPlugin>> f;
    f.push_back(make_pod_fits_resources_filter());
    return Engine(std::move(f), {});
  }();
  return e;
}

// args: nodes, parallel (0/1), semantics (0 current / 1 v1.16)
void BM_SelectCandidates(benchmark::State& state) {
  static std::map<size_t, Cluster> clusters;
  const size_t n = static_cast<size_t>(state.range(0));
  auto it = clusters.find(n);
  if (it == clusters.end()) it = clusters.emplace(n, make_cluster(n, 30)).first;
  const Cluster& c = it->second;

  Pod preemptor;
  preemptor.name = "preemptor";
  preemptor.namespace_ = "default";
  preemptor.uid = "uid-preemptor";
  preemptor.priority = 1500;  // about three quarters of the pods are potential victims
  Container ctr;
  ctr.requests.milli_cpu = 4000;
  ctr.requests.memory = int64_t{4} << 30;
  ctr.has_cpu_request = ctr.has_memory_request = true;
  preemptor.containers.push_back(ctr);
  PodContext ctx(preemptor);

  preemption::Options opts;
  opts.parallel = state.range(1) ? kext::ParallelLimits{0, 0} : kext::ParallelLimits{SIZE_MAX, 0};
  opts.semantics = state.range(2) ? preemption::Semantics::kV1_16 : preemption::Semantics::kCurrent;
  size_t found = 0;
  for (auto _ : state) {
    auto got = preemption::select_candidates(ctx, c.ptrs, c.pdbs, engine(), kNow, opts);
    found = got.size();
    benchmark::DoNotOptimize(got);
  }
  state.counters["candidates"] = static_cast<double>(found);
  state.counters["nodes/s"] = benchmark::Counter(
      static_cast<double>(n) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_SelectCandidates)
    ->ArgNames({"nodes", "parallel", "v1_16"})
    ->Args({100, 0, 0})
    ->Args({100, 1, 0})
    ->Args({100, 0, 1})
    ->Args({5000, 0, 0})
    ->Args({5000, 1, 0})
    ->Args({5000, 1, 1})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
