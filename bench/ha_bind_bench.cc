// Pods bound per second by a client shaped as kube-scheduler (tests/support/scheduler_client.h: one
// scheduling loop, binds in flight from binding goroutines, backoff after a failed bind) through 1, 2
// and 3 replicas of the real kube-extender (--enable-bind --leader-elect) behind a balancer that keeps
// each TCP connection on one replica, as a Service does. 100 nodes, 600 pods, the in-repo API server.
// With more than one replica, binds that reach a non-holder are passed on to the holder
// (extender/verbs/bind_forward.h); the target is nearly one replica's pods/s.
//
// After the benchmarks it prints each replica count's median pods/s and its ratio to one replica's:
//   build/ha_bind_bench --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "common/quantile.h"
#include "tests/support/replica_cluster.h"

namespace {

using namespace std::chrono_literals;
using kext::testing::ReplicaCluster;
using kext::testing::ReplicaClusterShape;
using kext::testing::SchedulerClient;

std::mutex results_mu;
// By the scheduler's own cycle time (us), replica count and holder_only, one entry per run.
std::map<std::tuple<int64_t, int, bool>, std::vector<double>> pods_per_second;

void BM_HaBind(benchmark::State& st) {
  const int replicas = static_cast<int>(st.range(0));
  const auto own_cycle = std::chrono::microseconds(st.range(1));
  const bool holder_only = st.range(2) != 0;
  for (auto _ : st) {
    ReplicaClusterShape shape;
    shape.nodes = 100;
    shape.pods = 600;
    shape.pod_milli = 100;  // 600 x 0.1 CPU of 100 x 4 CPUs
    ReplicaCluster cluster(KEXT_BINARY, shape);
    for (int i = 0; i < replicas; ++i) {
      if (cluster.start("r" + std::to_string(i)).port() <= 0) {
        st.SkipWithError("a replica did not start");
        return;
      }
    }
    cluster.publish();
    if (!cluster.wait_ready(static_cast<size_t>(replicas))) {
      st.SkipWithError("the replicas did not become ready");
      return;
    }
    if (holder_only) {  // the control: every connection to the holder, nothing to pass on
      const std::string holder = cluster.api.lease_holder(kext::testing::kLeaseKey);
      cluster.lb.set_backends({cluster.replicas[holder]->port()});
      if (!kext::testing::wait_until([&] { return cluster.lb.ready_count() == 1; })) {
        st.SkipWithError("the balancer did not settle on the holder");
        return;
      }
    }
    kext::testing::SchedulerClientConfig config = cluster.client();
    config.deadline = 120s;
    config.own_cycle = own_cycle;
    SchedulerClient scheduler(config);
    const SchedulerClient::Result r = scheduler.run();
    st.SetIterationTime(std::chrono::duration<double>(r.elapsed).count());
    st.counters["pods_per_s"] = r.pods_per_second();
    st.counters["bound"] = r.bound;
    st.counters["bind_errors"] = r.bind_errors;
    if (r.bind_errors > 0) st.SetLabel("first bind error: " + r.first_bind_error.substr(0, 300));
    std::lock_guard lock(results_mu);
    pods_per_second[{own_cycle.count(), replicas, holder_only}].push_back(r.pods_per_second());
  }
}
// holder_only: the balancer sends every connection to the holder while the other replicas run (they
// keep their watches): what replicas cost on this machine's shared cores, forwarding aside.
BENCHMARK(BM_HaBind)
    ->ArgNames({"replicas", "own_cycle_us", "holder_only"})
    ->ArgsProduct({{1, 2, 3}, {0, 2000}, {0}})
    ->Args({2, 0, 1})
    ->Args({3, 0, 1})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

using kext::median;

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const auto& [key, runs] : pods_per_second) {
    const auto [own_cycle_us, replicas, holder_only] = key;
    const double one = median(pods_per_second[{own_cycle_us, 1, false}]);
    const double m = median(runs);
    std::printf(
        "scheduler's own cycle %lld us, %d replicas%s: median %.0f pods/s over %zu runs, %.2f x one "
        "replica's\n",
        static_cast<long long>(own_cycle_us), replicas, holder_only ? ", all connections to the holder" : "",
        m, runs.size(), one > 0 ? m / one : 0);
  }
  return 0;
}
