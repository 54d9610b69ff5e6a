// What extender-sim --follow's comparison costs the follow loop, at 5,000 nodes and 150,000 live pods
// compared against two policies: one pod's life through Divergence (pending, production's bind, each
// policy's bind, the deletion of the oldest live pod, so that the count stays level), and what the page
// and the metrics cost to read: snapshot(), prometheus(), html().
#include <benchmark/benchmark.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "sim/follow/divergence.h"

namespace {

using kext::simtool::follow::Divergence;
using kext::simtool::follow::NodeFacts;
using kext::simtool::follow::PodFacts;

constexpr size_t kNodes = 5000;
constexpr size_t kLive = 150000;
// Pods made ahead (their strings are the watch's, not the comparison's cost); a slot is used again
// 2 * kLive pods later, long after its pod was deleted and its row dropped (row_limit 10,000).
constexpr size_t kSlots = 2 * kLive;

struct Cluster {
  std::vector<std::string> nodes;
  std::vector<PodFacts> pods;
  // Per slot: production's node and each policy's (each policy agrees with production on most slots,
  // the second less often than the first).
  std::vector<std::array<uint32_t, 3>> placement;
  Divergence divergence{{"binpack.yaml", "spread.yaml"}};
  size_t next = 0;  // the next slot to create

  Cluster() {
    std::mt19937_64 rng(42);
    std::vector<NodeFacts> facts;
    for (size_t i = 0; i < kNodes; ++i) {
      nodes.push_back("ip-10-" + std::to_string(i / 250) + "-" + std::to_string(i % 250) +
                      ".eu-west-1.compute.internal");
      facts.push_back(NodeFacts{nodes.back(), 32000, int64_t{128} << 30, 110});
    }
    divergence.set_nodes(std::move(facts));
    for (size_t i = 0; i < kSlots; ++i) {
      const std::string ns = "team-" + std::to_string(i % 40);
      pods.push_back(PodFacts{"0f3c2a1e-" + std::to_string(1000000 + i), ns + "/web-" + std::to_string(i),
                              "ReplicaSet/web-" + std::to_string(i % 700),
                              100 + 50 * static_cast<int64_t>(i % 8),
                              (int64_t{256} << 20) * static_cast<int64_t>(1 + i % 4)});
      const auto prod = static_cast<uint32_t>(rng() % kNodes);
      const auto a = rng() % 10 < 8 ? prod : static_cast<uint32_t>(rng() % kNodes);
      const auto b = rng() % 10 < 6 ? prod : static_cast<uint32_t>(rng() % kNodes);
      placement.push_back({prod, a, b});
    }
    while (next < kLive) create();
  }

  void create() {
    const size_t s = next++ % kSlots;
    const PodFacts& p = pods[s];
    divergence.pod_pending(p);
    divergence.production_bound(p.uid, nodes[placement[s][0]]);
    divergence.simulated_bound(0, p.uid, nodes[placement[s][1]]);
    divergence.simulated_bound(1, p.uid, nodes[placement[s][2]]);
    divergence.count_live_event();
  }

  void delete_oldest() {
    divergence.pod_deleted(pods[(next - 1 - kLive) % kSlots].uid);  // after create(): kLive + 1 live
    divergence.count_live_event();
  }
};

Cluster& cluster() {
  static Cluster c;
  return c;
}

// One pod in and one out: pod_pending, production_bound, two simulated_bound, pod_deleted (and two
// count_live_event); items are those five calls.
void BM_PodLifecycle(benchmark::State& st) {
  Cluster& c = cluster();
  for (auto _ : st) {
    c.create();
    c.delete_oldest();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()) * 5);
  st.counters["live_pods"] = static_cast<double>(c.divergence.live_pods());
  st.counters["rows"] = static_cast<double>(c.divergence.rows());
}

void BM_Snapshot(benchmark::State& st) {
  Cluster& c = cluster();
  for (auto _ : st) benchmark::DoNotOptimize(c.divergence.snapshot());
}

void BM_Prometheus(benchmark::State& st) {
  Cluster& c = cluster();
  size_t bytes = 0;
  for (auto _ : st) {
    const std::string text = c.divergence.prometheus();
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  st.counters["bytes"] = static_cast<double>(bytes);
}

void BM_Html(benchmark::State& st) {
  Cluster& c = cluster();
  size_t bytes = 0;
  for (auto _ : st) {
    const std::string page = c.divergence.html();
    bytes = page.size();
    benchmark::DoNotOptimize(page.data());
  }
  st.counters["bytes"] = static_cast<double>(bytes);
}

}  // namespace

BENCHMARK(BM_PodLifecycle)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_Snapshot)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Prometheus)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Html)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
