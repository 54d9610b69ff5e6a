// POST /capacity on the extender's server, at a large cluster's size (extender-gen's N nodes with P
// running pods each):
//  - BM_CapacityQuestion: one question (a 1-CPU, 1Gi pod) as the endpoint answers it, the copy of the
//    live state into a simulated cluster included.
//  - BM_VerbsBesideCapacity/N/P/Q: filter + prioritize (names mode, one keep-alive connection, as
//    kube-scheduler calls) with Q = 0 or 1 client asking capacity questions back to back on another
//    connection, in the same run: p50/p99 of the verbs in microseconds, and the questions answered.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include "bench/synthetic_cluster.h"
#include "common/quantile.h"
#include "extender/capacity/capacity_service.h"
#include "extender/server/server.h"
#include "load/http_connection.h"
#include "policy/config.h"

namespace {

using namespace kext;

// The pod capacity questions ask about (bench/synthetic_cluster.h).
constexpr const char* kPod = bench::kCapacityPod;

// The extender as kube-extender runs it on the embedded configuration, with POST /capacity.
struct Extender {
  explicit Extender(const bench::Workload& w)
      : profile(load_scheduling_file(std::string(default_config_json())).profile),
        verbs(profile, store),
        capacity(simtool::sim_config_of_text(std::string(default_config_json()), "the embedded configuration",
                                             profile.version),
                 store, capacity::CapacityLimits{}, &metrics) {
    bench::publish_snapshot(w, store);
    ServerConfig cfg;
    cfg.address = "127.0.0.1";
    cfg.port = 0;
    server = std::make_unique<Server>(cfg, verbs, store, ServerObservers{&metrics});
    server->add_route("POST", "/capacity", capacity::capacity_handler(capacity));
    std::string err;
    if (!server->bind(&err)) throw std::runtime_error(err);
    serving = std::thread([this] { server->serve(); });
  }
  ~Extender() {
    server->stop();
    serving.join();
  }
  StateStore store;
  Metrics metrics{"bench"};
  Profile profile;
  Verbs verbs;
  capacity::CapacityService capacity;
  std::unique_ptr<Server> server;
  std::thread serving;
};

const bench::Workload& workload(size_t nodes, size_t pods_per_node) {
  static std::map<std::pair<size_t, size_t>, bench::Workload> cache;
  auto it = cache.find({nodes, pods_per_node});
  if (it == cache.end())
    it = cache.emplace(std::pair{nodes, pods_per_node}, bench::make_workload(nodes, pods_per_node)).first;
  return it->second;
}

void BM_CapacityQuestion(benchmark::State& st) {
  Extender x(workload(static_cast<size_t>(st.range(0)), static_cast<size_t>(st.range(1))));
  load::HttpConnection cli("127.0.0.1", x.server->port(), std::chrono::seconds(60));
  load::HttpReply r;
  for (auto _ : st) {
    if (cli.post("/capacity", kPod, "application/json", r) != load::HttpFailure::kNone || r.status != 200) {
      st.SkipWithError("the question failed");
      break;
    }
  }
  st.counters["answered"] = static_cast<double>(x.metrics.capacity_questions(CapacityOutcome::kAnswered));
}

void BM_VerbsBesideCapacity(benchmark::State& st) {
  const bench::Workload& w = workload(static_cast<size_t>(st.range(0)), static_cast<size_t>(st.range(1)));
  Extender x(w);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> answered{0};
  std::thread asker;
  if (st.range(2) > 0) {
    asker = std::thread([&] {
      load::HttpConnection c("127.0.0.1", x.server->port(), std::chrono::seconds(60));
      load::HttpReply r;
      while (!stop.load()) {
        if (c.post("/capacity", kPod, "application/json", r) == load::HttpFailure::kNone && r.status == 200)
          ++answered;
      }
    });
  }
  load::HttpConnection cli("127.0.0.1", x.server->port(), std::chrono::seconds(30));
  load::HttpReply f, p;
  std::vector<double> lat;
  for (auto _ : st) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto ef = cli.post("/filter", w.names_request, "application/json", f);
    const auto ep = cli.post("/prioritize", w.names_request, "application/json", p);
    const auto t1 = std::chrono::steady_clock::now();
    if (ef != load::HttpFailure::kNone || ep != load::HttpFailure::kNone || f.status != 200 ||
        p.status != 200) {
      st.SkipWithError("a verb failed");
      break;
    }
    lat.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  stop = true;
  if (asker.joinable()) asker.join();
  if (lat.empty()) return;
  std::sort(lat.begin(), lat.end());
  st.counters["p50_us"] = nearest_rank(lat, 0.50);
  st.counters["p99_us"] = nearest_rank(lat, 0.99);
  st.counters["questions"] = static_cast<double>(answered.load());
}

BENCHMARK(BM_CapacityQuestion)
    ->Args({500, 30})
    ->Args({5000, 30})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);
BENCHMARK(BM_VerbsBesideCapacity)
    ->Args({500, 30, 0})
    ->Args({500, 30, 1})
    ->Args({5000, 30, 0})
    ->Args({5000, 30, 1})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    ->MinTime(3);

}  // namespace

BENCHMARK_MAIN();
