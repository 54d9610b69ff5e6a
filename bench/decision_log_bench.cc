// What observing a verb costs, in process (no HTTP noise): filter then prioritize of one NodeNames
// request, bare / with a trace (phase clock, metrics) / with the Decision recorded into a
// 1000-entry ring. The README's "Operating" section quotes it.
#include <benchmark/benchmark.h>

#include "bench/synthetic_cluster.h"
#include "extender/observe/decision_log.h"
#include "extender/observe/metrics.h"
#include "extender/verbs/verbs.h"
#include "kube/state/snapshot_loader.h"

namespace {

enum class Mode { kBare, kTraced, kRecorded };

void run(benchmark::State& st, Mode mode) {
  const size_t n = static_cast<size_t>(st.range(0));
  auto w = kext::bench::make_workload(n, 10);
  kext::StateStore store;
  kext::bench::publish_snapshot(w, store);
  kext::Policy policy = kext::parse_policy(kext::default_policy_json());
  const kext::Profile profile = kext::compile(policy);
  kext::Verbs verbs(profile, store);
  kext::Metrics metrics("bench");
  kext::DecisionLog log(1000);
  if (mode == Mode::kRecorded) {
    // Steady state: a full log, so each record also frees the oldest decision.
    while (log.size() < log.capacity() && log.bytes() < kext::DecisionLog::kDefaultMaxBytes * 9 / 10) {
      kext::VerbTrace trace;
      trace.want_decision = true;
      verbs.prioritize_traced(w.names_request, &trace);
      log.record(std::move(trace.decision));
    }
  }
  for (auto _ : st) {
    if (mode == Mode::kBare) {
      benchmark::DoNotOptimize(verbs.filter(w.names_request));
      benchmark::DoNotOptimize(verbs.prioritize(w.names_request));
      continue;
    }
    for (auto fn : {&kext::Verbs::filter_traced, &kext::Verbs::prioritize_traced}) {
      kext::VerbTrace trace;
      trace.want_decision = mode == Mode::kRecorded;
      kext::Reply r = (verbs.*fn)(w.names_request, &trace);
      metrics.observe_verb(kext::Route::kFilter, trace);
      if (trace.decision) log.record(std::move(trace.decision));
      benchmark::DoNotOptimize(r);
    }
  }
}

void BM_Bare(benchmark::State& st) { run(st, Mode::kBare); }
void BM_Traced(benchmark::State& st) { run(st, Mode::kTraced); }
void BM_Recorded(benchmark::State& st) { run(st, Mode::kRecorded); }

}  // namespace

BENCHMARK(BM_Bare)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Traced)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Recorded)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
