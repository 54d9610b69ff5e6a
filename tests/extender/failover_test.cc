// Replicas of the extender behind a balancer that keeps each TCP connection on one replica, round robin
// per connection, as a Service with kube-proxy does (tests/support/tcp_balancer.h), driven by a client
// shaped as kube-scheduler (tests/support/scheduler_client.h: one scheduling loop, binds in flight
// at once from binding goroutines, backoff after a failed bind). A bind that reaches a replica which
// does not hold the Lease is passed on to the holder: with 2 and 3 replicas no bind is refused, every
// pod is bound exactly once and no node is over-committed; killing the holder mid-run loses no pod and
// binding resumes within the lease duration plus one retry period.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <set>

#include "tests/support/replica_cluster.h"

namespace kext::testing {
namespace failover_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The API server's own record: every pod bound exactly once, no node over its CPU or pod count.
void expect_bound_once_within_capacity(const ReplicaCluster& cluster) {
  const ReplicaClusterShape& shape = cluster.shape();
  std::map<std::string, int> times;
  std::map<std::string, int64_t> per_node;
  std::map<std::string, int> pods_on;
  for (const auto& b : cluster.api.bindings()) {
    ++times[b.name];
    per_node[b.node] += shape.pod_milli;
    ++pods_on[b.node];
  }
  EXPECT_EQ(static_cast<int>(times.size()), shape.pods);
  for (const auto& [name, n] : times) EXPECT_EQ(n, 1) << name;
  for (const auto& [node, milli] : per_node) EXPECT_LE(milli, shape.node_milli) << node;
  for (const auto& [node, n] : pods_on) EXPECT_LE(n, shape.max_pods_per_node) << node;
}

// 10 nodes of 4 CPUs; 1000 pods of 36m fill all but a tenth of them.
ReplicaClusterShape shape(int pods) {
  ReplicaClusterShape s;
  s.pods = pods;
  return s;
}

class Replicas : public ::testing::TestWithParam<int> {};

TEST_P(Replicas, EveryBindThatReachesANonHolderIsPassedOnAndEveryPodBoundOnce) {
  constexpr int kPodsHere = 600;
  ReplicaCluster cluster(KEXT_BINARY, shape(kPodsHere));
  const int n = GetParam();
  for (int i = 0; i < n; ++i) {
    const std::string id = "r" + std::to_string(i);
    ASSERT_GT(cluster.start(id).port(), 0) << cluster.replicas[id]->log();
  }
  cluster.publish();
  ASSERT_TRUE(cluster.wait_ready(n));
  const std::string holder = cluster.api.lease_holder(kLeaseKey);
  EXPECT_NE(cluster.api.lease(kLeaseKey).find("kube-extender.io/holder-url"), std::string::npos)
      << cluster.api.lease(kLeaseKey);

  SchedulerClientConfig config = cluster.client();
  config.deadline = 45s;
  SchedulerClient scheduler(config);
  const SchedulerClient::Result r = scheduler.run();
  std::printf(
      "%d replicas: %d of %d pods bound in %lld ms (%.0f pods/s), %d bind errors, %d connections by "
      "replica:",
      n, r.bound, kPodsHere,
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(r.elapsed).count()),
      r.pods_per_second(), r.bind_errors, static_cast<int>(cluster.lb.connections().size()));
  for (const auto& [port, count] : cluster.lb.connections()) std::printf(" %d", count);
  std::printf("\n");

  EXPECT_EQ(r.bound, kPodsHere);
  if (r.bind_errors > 0) {
    for (auto& [id, p] : cluster.replicas) std::printf("--- %s\n%s", id.c_str(), p->log().c_str());
  }
  EXPECT_EQ(r.bind_errors, 0) << r.first_bind_error;
  EXPECT_EQ(r.refusals, 0);
  expect_bound_once_within_capacity(cluster);
  // Every replica had connections of the scheduler's (so binds did reach non-holders), and the
  // non-holders passed theirs on: their /metrics count forwards.
  EXPECT_EQ(cluster.lb.connections().size(), static_cast<size_t>(n));
  uint64_t forwarded = 0;
  for (auto& [id, p] : cluster.replicas) {
    httplib::Client c("127.0.0.1", p->port());
    auto m = c.Get("/metrics");
    ASSERT_TRUE(m);
    const std::string series = "\nkube_extender_bind_forwards_total ";
    const size_t at = m->body.find(series);
    ASSERT_NE(at, std::string::npos);
    const uint64_t count = std::stoull(m->body.substr(at + series.size()));
    if (id == holder) {
      EXPECT_EQ(count, 0u) << id;
    }
    forwarded += count;
  }
  EXPECT_GT(forwarded, 0u);
}

INSTANTIATE_TEST_SUITE_P(Failover, Replicas, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return std::to_string(i.param) + "Replicas";
                         });

TEST(Failover, EveryPodBoundOnceWhileTheHolderIsKilledAndAReplicaRestarted) {
  constexpr int kPods = 1000;
  ReplicaCluster cluster(KEXT_BINARY, shape(kPods));
  for (const char* id : {"r0", "r1", "r2"})
    ASSERT_GT(cluster.start(id).port(), 0) << cluster.replicas[id]->log();
  cluster.publish();
  ASSERT_TRUE(cluster.wait_ready(3));

  SchedulerClientConfig config = cluster.client();
  config.deadline = 45s;
  SchedulerClient scheduler(config);
  SchedulerClient::Result result;
  std::thread run([&] { result = scheduler.run(); });
  const auto t0 = Clock::now();

  // Chaos: SIGKILL the Lease holder after a sixth of the pods; once binding resumed, restart another
  // replica the way a rollout does (SIGTERM, then a new one).
  ASSERT_TRUE(wait_until([&] { return scheduler.bound() >= kPods / 6; }, 30s));
  const std::string holder = cluster.api.lease_holder(kLeaseKey);
  std::fprintf(stderr, "failover: %d bound, killing %s\n", scheduler.bound(), holder.c_str());
  ASSERT_TRUE(cluster.replicas.count(holder)) << holder;
  const auto killed_at = Clock::now();
  const int bound_at_kill = scheduler.bound();
  kill(cluster.replicas[holder]->pid(), SIGKILL);
  cluster.replicas[holder]->wait_exit(5s);
  // Binds in flight on the killed replica may still land; the next after them is the new holder's.
  const auto resumed = [&] { return scheduler.bound() > bound_at_kill + 20; };
  EXPECT_TRUE(wait_until(resumed, 30s));
  const auto resumed_at = Clock::now();
  std::fprintf(stderr, "failover: %d bound, binding resumed\n", scheduler.bound());
  cluster.replicas[holder].reset();
  cluster.publish();
  std::string restarted;
  for (auto& [id, p] : cluster.replicas) {
    if (p && id != cluster.api.lease_holder(kLeaseKey)) restarted = id;
  }
  ASSERT_FALSE(restarted.empty());
  const auto restart_at = Clock::now();
  kill(cluster.replicas[restarted]->pid(), SIGTERM);
  EXPECT_EQ(cluster.replicas[restarted]->wait_exit(20s), 0) << cluster.replicas[restarted]->log();
  ASSERT_GT(cluster.start(restarted + "-new").port(), 0) << cluster.replicas[restarted + "-new"]->log();
  cluster.replicas.erase(restarted);
  cluster.publish();
  std::fprintf(stderr, "failover: %d bound, restarted %s\n", scheduler.bound(), restarted.c_str());
  run.join();

  expect_bound_once_within_capacity(cluster);
  // The Lease runs out 3 s after the killed holder's last renewal, and a survivor takes it at its next
  // attempt (its retry period); the slack covers the balancer's readiness check and this loop's polling.
  EXPECT_LE(resumed_at - killed_at, 3s + 200ms + 1500ms);

  // Failed requests, grouped into windows of failures close together.
  auto ms = [](Clock::duration d) {
    return static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
  };
  std::vector<Clock::duration> failures = result.failure_times;
  std::sort(failures.begin(), failures.end());
  std::string windows;
  for (size_t i = 0; i < failures.size();) {
    size_t j = i;
    while (j + 1 < failures.size() && failures[j + 1] - failures[j] < 300ms) ++j;
    windows += "  failing from " + std::to_string(ms(failures[i])) + " ms to " +
               std::to_string(ms(failures[j])) + " ms (" + std::to_string(j - i + 1) + " failures)\n";
    i = j + 1;
  }
  std::printf(
      "failover: %d of %d pods bound in %lld ms; holder %s SIGKILLed at %lld ms, binding resumed at %lld ms "
      "(%lld ms without binds); %s restarted (SIGTERM) at %lld ms; %d bind errors (%d refusals), %d failed "
      "cycles\n%s",
      result.bound, kPods, ms(result.elapsed), holder.c_str(), ms(killed_at - t0), ms(resumed_at - t0),
      ms(resumed_at - killed_at), restarted.c_str(), ms(restart_at - t0), result.bind_errors, result.refusals,
      result.cycle_failures, windows.c_str());
}

}  // namespace
}  // namespace failover_test
}  // namespace kext::testing
