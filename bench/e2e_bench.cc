// End-to-end latency of filter+prioritize over one keep-alive connection (as kube-scheduler calls),
// at 500 and 5000 nodes in both modes. Reports p50/p99 in microseconds as counters, and server_cpu_us:
// the CPU time the server's threads (reactor, workers, oneTBB) spent per pair, the process's CPU time
// less the client's, which runs alone on the benchmark's thread. On a control-plane node the
// extender's CPU is the scheduler's CPU.
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "bench/synthetic_cluster.h"
#include "common/quantile.h"
#include "extender/server/server.h"
#include "kube/state/snapshot_loader.h"
#include "load/http_connection.h"

namespace {

enum class Mode { kNames, kFull, kFloor };

double cpu_us(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

void run(benchmark::State& st, Mode mode) {
  const bool full = mode == Mode::kFull;
  const size_t n = static_cast<size_t>(st.range(0));
  auto w = kext::bench::make_workload(n, 10);
  kext::StateStore store;
  kext::bench::publish_snapshot(w, store);
  kext::Policy policy = kext::parse_policy(kext::default_policy_json());
  // KEXT_THRESHOLD=N makes N nodes the only parallel threshold (no work floor), to compare serial and
  // parallel end to end.
  if (const char* t = std::getenv("KEXT_THRESHOLD")) {
    policy.parallel_threshold = std::atoll(t);
    policy.parallel_min_work_us = 0;
  }
  const kext::Profile profile = kext::compile(policy);
  kext::Verbs verbs(profile, store);
  kext::ServerConfig cfg;
  cfg.address = "127.0.0.1";
  cfg.port = 0;
  // As kube-extender runs by default: metrics and a 1000-entry decision log. KEXT_DECISION_LOG=0
  // turns the log off (its cost is the difference), KEXT_METRICS=0 the metrics too.
  kext::Metrics metrics("bench");
  const char* log_env = std::getenv("KEXT_DECISION_LOG");
  const size_t log_size = log_env ? static_cast<size_t>(std::atoll(log_env)) : 1000;
  std::unique_ptr<kext::DecisionLog> decisions;
  if (log_size > 0) decisions = std::make_unique<kext::DecisionLog>(log_size);
  const char* metrics_env = std::getenv("KEXT_METRICS");
  const bool with_metrics = !(metrics_env && std::string(metrics_env) == "0");
  kext::Server server(cfg, verbs, store,
                      kext::ServerObservers{with_metrics ? &metrics : nullptr, decisions.get()});
  std::string err;
  if (!server.bind(&err)) {
    st.SkipWithError(err.c_str());
    return;
  }
  std::thread t([&] { server.serve(); });
  // The load tool's client: Go-like large reads, TCP_NODELAY, one keep-alive connection.
  auto client =
      std::make_unique<kext::load::HttpConnection>("127.0.0.1", server.port(), std::chrono::seconds(30));
  kext::load::HttpConnection& cli = *client;
  const std::string& body = full ? w.full_request : w.names_request;
  std::vector<double> lat;
  kext::load::HttpReply f, p;
  const double process0 = cpu_us(CLOCK_PROCESS_CPUTIME_ID), client0 = cpu_us(CLOCK_THREAD_CPUTIME_ID);
  for (auto _ : st) {
    auto t0 = std::chrono::steady_clock::now();
    // The floor: two round trips that do no work, what the transport and loopback cost by themselves.
    const auto ef =
        mode == Mode::kFloor ? cli.get("/healthz", f) : cli.post("/filter", body, "application/json", f);
    const auto ep =
        mode == Mode::kFloor ? cli.get("/healthz", p) : cli.post("/prioritize", body, "application/json", p);
    auto t1 = std::chrono::steady_clock::now();
    if (ef != kext::load::HttpFailure::kNone || ep != kext::load::HttpFailure::kNone || f.status != 200 ||
        p.status != 200) {
      st.SkipWithError("request failed");
      break;
    }
    lat.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  const double server_cpu =
      (cpu_us(CLOCK_PROCESS_CPUTIME_ID) - process0) - (cpu_us(CLOCK_THREAD_CPUTIME_ID) - client0);
  client.reset();
  server.stop();
  t.join();
  if (lat.empty()) return;
  std::sort(lat.begin(), lat.end());
  st.counters["p50_us"] = kext::nearest_rank(lat, 0.50);
  st.counters["p99_us"] = kext::nearest_rank(lat, 0.99);
  st.counters["body_bytes"] = static_cast<double>(body.size());
  st.counters["server_cpu_us"] = server_cpu / static_cast<double>(lat.size());
}

void BM_FilterPrioritizeNames(benchmark::State& st) { run(st, Mode::kNames); }
void BM_FilterPrioritizeFull(benchmark::State& st) { run(st, Mode::kFull); }
void BM_TwoHealthzRoundTrips(benchmark::State& st) { run(st, Mode::kFloor); }

BENCHMARK(BM_FilterPrioritizeNames)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_FilterPrioritizeFull)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_TwoHealthzRoundTrips)->Arg(500)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
