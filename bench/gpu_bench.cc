// GPUShare at a large GPU cluster's size: 5,000 nodes of 8 cards (40 GB, 10 slots each), half of them
// with 2 to 5 pods holding shares; the pod asked about wants one card of 8000 MiB and 30 cores. Filter and
// prioritize of 500 names with GPUShare only, serially, CPU per request (the issue's target: 1 ms), and
// what the plugin costs per node (its cost_per_node_ns).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "algorithms/gpu/gpu_share.h"
#include "bench/cpu_time.h"
#include "kube/state/cluster_view.h"
#include "kube/state/state_cache.h"
#include "policy/config.h"

namespace {

constexpr size_t kNodes = 5000;
constexpr size_t kCards = 8;
constexpr size_t kNames = 500;

std::string node_name(size_t i) { return "gpu-" + std::to_string(i); }
std::string card(size_t node, size_t c) { return "GPU-" + std::to_string(node) + "-" + std::to_string(c); }

kext::Container gpu_container(int64_t cards, int64_t memory, int64_t cores) {
  kext::Container c;
  c.name = "c";
  c.requests.milli_cpu = 1000;
  c.requests.memory = int64_t{4} << 30;
  c.has_cpu_request = c.has_memory_request = true;
  c.requests.set_scalar("nvidia.com/gpu", cards);
  c.requests.set_scalar("nvidia.com/gpumem", memory);
  c.requests.set_scalar("nvidia.com/gpucores", cores);
  return c;
}

struct Fixture {
  kext::StateCache cache;
  std::shared_ptr<const kext::ClusterState> state;
  std::vector<const kext::NodeInfo*> names;
  kext::Pod pod;
};

Fixture& fixture() {
  static Fixture* f = [] {
    auto* f = new Fixture;
    {
      auto b = f->cache.batch();
      for (size_t i = 0; i < kNodes; ++i) {
        kext::Node n;
        n.name = node_name(i);
        n.allocatable.milli_cpu = 96000;
        n.allocatable.memory = int64_t{1} << 40;
        n.allocatable.pods = 110;
        auto gpus = std::make_shared<kext::gpu::NodeDevices>();
        for (size_t c = 0; c < kCards; ++c)
          gpus->devices.push_back(kext::gpu::Device{card(i, c),
                                                    static_cast<uint32_t>(c),
                                                    10,
                                                    40960,
                                                    100,
                                                    "NVIDIA-A100-SXM4-40GB",
                                                    static_cast<int>(c / 4),
                                                    true,
                                                    "hami-core",
                                                    {}});
        n.gpus = gpus;
        b.upsert_node(std::move(n));
        if (i % 2 == 1) continue;
        for (size_t k = 0; k < 2 + i % 4; ++k) {
          kext::Pod p;
          p.name = "holder-" + std::to_string(i) + "-" + std::to_string(k);
          p.namespace_ = "ml";
          p.uid = "uid-" + p.name;
          p.node_name = node_name(i);
          p.phase = "Running";
          p.containers.push_back(gpu_container(1, 10000, 25));
          p.gpu_shares = std::make_shared<const kext::gpu::PodShares>(
              kext::gpu::PodShares{{kext::gpu::DeviceShare{card(i, (i + k) % kCards), 1, 10000, 25}}, ""});
          b.upsert_pod(std::move(p));
        }
      }
    }
    f->state = f->cache.view();
    for (size_t i = 0; i < kNames; ++i)
      f->names.push_back(f->state->find_node(node_name(i * (kNodes / kNames))));
    f->pod.name = "train";
    f->pod.namespace_ = "ml";
    f->pod.uid = "uid-train";
    f->pod.containers.push_back(gpu_container(1, 8000, 30));
    return f;
  }();
  return *f;
}

using kext::bench::process_cpu_us;

const kext::Profile& gpu_only() {
  static const kext::Profile profile = [] {
    kext::Config config = kext::parse_config(
        R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration","plugins":{
        "filter":{"disabled":[{"name":"*"}],"enabled":[{"name":"GPUShare"}]},
        "score":{"disabled":[{"name":"*"}],"enabled":[{"name":"GPUShare"}]}}})");
    config.parallel_threshold = INT64_MAX;
    return kext::compile(config);
  }();
  return profile;
}

// range(0): 0 filter, 1 prioritize. Serial: CPU = time.
void BM_GpuShareRequest(benchmark::State& st) {
  Fixture& f = fixture();
  const kext::Profile& profile = gpu_only();
  const bool scoring = st.range(0) == 1;
  st.SetLabel(scoring ? "GPUShare prioritize, 500 of 5000 8-card nodes"
                      : "GPUShare filter, 500 of 5000 8-card nodes");
  const double cpu0 = process_cpu_us();
  for (auto _ : st) {
    auto view = kext::cluster_view_of(f.state);
    kext::PodContext ctx(f.pod, &view->view);
    if (scoring) {
      benchmark::DoNotOptimize(profile.engine.score(ctx, f.names));
    } else {
      benchmark::DoNotOptimize(profile.engine.filter(ctx, f.names));
    }
  }
  st.counters["cpu_us"] = (process_cpu_us() - cpu0) / static_cast<double>(st.iterations());
}
BENCHMARK(BM_GpuShareRequest)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The figure behind GPUShare's cost_per_node_ns: check() per node once PreFilter has run.
void BM_GpuSharePluginCost(benchmark::State& st) {
  Fixture& f = fixture();
  const kext::Profile& profile = gpu_only();
  auto view = kext::cluster_view_of(f.state);
  kext::PodContext ctx(f.pod, &view->view);
  profile.engine.prepare(ctx, f.names);
  const kext::FilterPlugin& plugin = *profile.engine.filters()[0];
  std::vector<std::string> reasons;
  for (auto _ : st) {
    for (const kext::NodeInfo* n : f.names) {
      benchmark::DoNotOptimize(plugin.check(ctx, *n, reasons));
      reasons.clear();
    }
  }
  st.counters["ns_per_node"] = benchmark::Counter(static_cast<double>(st.iterations() * f.names.size()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_GpuSharePluginCost);

}  // namespace

BENCHMARK_MAIN();
