// One binder among several replicas: the Lease is created, renewed, taken over only after it ran out,
// released on stop and on SIGTERM; a holder cut off from the API stops binding after renewDeadline;
// a replica that does not hold it refuses /bind without creating a Binding.
#include "kube/client/leader_election.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "extender/verbs/bind.h"
#include "tests/support/extender_process.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace leader_election_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using kube::LeaderElector;
using Attempt = LeaderElector::Attempt;

const std::string kLease = "kube-extender/kube-extender";

kube::LeaderElectionConfig fast(const std::string& identity) {
  kube::LeaderElectionConfig c;
  c.identity = identity;
  c.lease_duration = 1s;
  c.renew_deadline = 500ms;
  c.retry_period = 100ms;
  return c;
}

// For tests that do not wait for a lease to run out: a TLS round trip under TSan takes longer than
// fast()'s renew deadline, which would end the holding before the test looks at it.
kube::LeaderElectionConfig patient(const std::string& identity) {
  kube::LeaderElectionConfig c = fast(identity);
  c.lease_duration = 30s;
  c.renew_deadline = 20s;
  return c;
}

int64_t transitions(const std::string& lease_json) {
  auto d = parse(lease_json);
  return d.IsObject() && d["spec"].HasMember("leaseTransitions") ? d["spec"]["leaseTransitions"].GetInt64()
                                                                 : -1;
}

std::string renew_time(const std::string& lease_json) {
  auto d = parse(lease_json);
  return d.IsObject() && d["spec"].HasMember("renewTime") ? d["spec"]["renewTime"].GetString() : "";
}

TEST(LeaderElection, FirstReplicaCreatesTheLeaseAndHoldsIt) {
  FakeApiServer api;
  auto client = client_for(api);
  LeaderElector a(*client, patient("a"));
  EXPECT_FALSE(a.is_leader());
  EXPECT_EQ(a.try_acquire_or_renew(), Attempt::kHeld);
  EXPECT_TRUE(a.is_leader());
  EXPECT_EQ(api.lease_holder(kLease), "a");
  EXPECT_EQ(transitions(api.lease(kLease)), 0);
  auto d = parse(api.lease(kLease));
  EXPECT_EQ(d["spec"]["leaseDurationSeconds"].GetInt64(), 30);
}

TEST(LeaderElection, TheHolderRenewsAndOthersWait) {
  FakeApiServer api;
  auto client = client_for(api);
  LeaderElector a(*client, fast("a"));
  LeaderElector b(*client, fast("b"));
  ASSERT_EQ(a.try_acquire_or_renew(), Attempt::kHeld);
  const std::string first = renew_time(api.lease(kLease));
  EXPECT_EQ(b.try_acquire_or_renew(), Attempt::kHeldByOther);
  EXPECT_FALSE(b.is_leader());
  EXPECT_EQ(b.holder(), "a");
  // renewTime has microseconds: once the clock has passed the first renewal's, the renewal writes a new one.
  const auto renewed = std::chrono::floor<std::chrono::microseconds>(std::chrono::system_clock::now());
  ASSERT_TRUE(wait_until([&] { return std::chrono::system_clock::now() > renewed + 1us; }));
  ASSERT_EQ(a.try_acquire_or_renew(), Attempt::kHeld);
  EXPECT_NE(renew_time(api.lease(kLease)), first);
  EXPECT_EQ(b.try_acquire_or_renew(), Attempt::kHeldByOther);  // renewed: still not expired for b
  EXPECT_EQ(api.lease_holder(kLease), "a");
  EXPECT_EQ(transitions(api.lease(kLease)), 0);
}

TEST(LeaderElection, AnotherReplicaTakesOverOnlyAfterTheLeaseRanOut) {
  FakeApiServer api;
  auto client = client_for(api);
  LeaderElector a(*client, fast("a"));
  LeaderElector b(*client, fast("b"));
  ASSERT_EQ(a.try_acquire_or_renew(), Attempt::kHeld);
  // a stops renewing (as if killed). b watches the record from t0 on and may take it 1 s later.
  const auto t0 = Clock::now();
  ASSERT_EQ(b.try_acquire_or_renew(), Attempt::kHeldByOther);
  ASSERT_TRUE(wait_until([&] { return b.try_acquire_or_renew() == Attempt::kHeld; }, 10s));
  EXPECT_GE(Clock::now() - t0, 1s);
  EXPECT_TRUE(b.is_leader());
  EXPECT_FALSE(a.is_leader());  // its last renewal is older than renewDeadline
  EXPECT_EQ(api.lease_holder(kLease), "b");
  EXPECT_EQ(transitions(api.lease(kLease)), 1);
  // a comes back: it sees b's lease and does not take it.
  EXPECT_EQ(a.try_acquire_or_renew(), Attempt::kHeldByOther);
  EXPECT_FALSE(a.is_leader());
}

TEST(LeaderElection, AStaleResourceVersionIsAConflictNotATakeover) {
  FakeApiServer api;
  auto client = client_for(api);
  LeaderElector a(*client, fast("a"));
  ASSERT_EQ(a.try_acquire_or_renew(), Attempt::kHeld);
  auto d = parse(api.lease(kLease));
  const std::string rv = d["metadata"]["resourceVersion"].GetString();
  // Someone updates with the resourceVersion a has already overwritten.
  ASSERT_EQ(a.try_acquire_or_renew(), Attempt::kHeld);
  const std::string stale =
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"kube-extender",)"
      R"("namespace":"kube-extender","resourceVersion":")" +
      rv + R"("},"spec":{"holderIdentity":"intruder"}})";
  auto r = client->put("/apis/coordination.k8s.io/v1/namespaces/kube-extender/leases/kube-extender", stale);
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(api.lease_holder(kLease), "a");
  auto created = client->post("/apis/coordination.k8s.io/v1/namespaces/kube-extender/leases", stale);
  EXPECT_EQ(created.status, 409) << created.body;
}

TEST(LeaderElection, AHolderCutOffFromTheApiStopsBindingAfterRenewDeadlineAndComesBack) {
  FakeApiServer api;
  auto client = client_for(api);
  LeaderElector a(*client, fast("a"));
  a.start();
  ASSERT_TRUE(wait_until([&] { return a.is_leader(); }));
  api.fail_leases(503);
  EXPECT_TRUE(wait_until([&] { return !a.is_leader(); }, 10s));
  api.fail_leases(0);
  EXPECT_TRUE(wait_until([&] { return a.is_leader(); }, 10s));  // the record still names it: renewed
  EXPECT_EQ(api.lease_holder(kLease), "a");
  a.stop();
}

TEST(LeaderElection, StopReleasesTheLeaseSoTheNextReplicaTakesItAtOnce) {
  FakeApiServer api;
  auto client = client_for(api);
  kube::LeaderElectionConfig slow = fast("a");
  slow.lease_duration = 60s;  // without the release b would wait a minute
  slow.renew_deadline = 30s;
  LeaderElector a(*client, slow);
  LeaderElector b(*client, fast("b"));
  ASSERT_EQ(a.try_acquire_or_renew(), Attempt::kHeld);
  ASSERT_EQ(b.try_acquire_or_renew(), Attempt::kHeldByOther);
  a.stop();
  EXPECT_FALSE(a.is_leader());
  EXPECT_EQ(api.lease_holder(kLease), "");
  EXPECT_EQ(b.try_acquire_or_renew(), Attempt::kHeld);
  EXPECT_EQ(api.lease_holder(kLease), "b");
}

TEST(LeaderElection, DefaultIdentityIsTheHostnameAndDiffersPerProcessStart) {
  const std::string x = kube::default_identity(), y = kube::default_identity();
  EXPECT_NE(x, y);
  EXPECT_NE(x.find('_'), std::string::npos);
}

std::string error_of(const Reply& r) {
  auto d = parse(r.body);
  return d.IsObject() && d.HasMember("Error") && d["Error"].IsString() ? d["Error"].GetString()
                                                                       : "<no Error>";
}

TEST(LeaderElection, OnlyTheHolderBinds) {
  FakeApiServer api;
  api.put("nodes", node_json("n1", "4", "8Gi"));
  api.put("pods", pod_json("default", "p", ""));
  auto client = client_for(api);
  TestServer server(std::make_shared<ClusterState>());
  kube::LiveState live(*client, server.store(), fast_live_options());
  live.start();
  ASSERT_TRUE(wait_until([&] { return server.store().ready(); }));
  LeaderElector a(*client, fast("a"));
  LeaderElector b(*client, fast("b"));
  ASSERT_EQ(a.try_acquire_or_renew(), Attempt::kHeld);
  ASSERT_EQ(b.try_acquire_or_renew(), Attempt::kHeldByOther);
  const std::string body = R"({"PodName":"p","PodNamespace":"default","PodUID":"uid-default-p","Node":"n1"})";

  BindVerb on_b(*client, live.cache(), 30s, &b);
  Reply refused = on_b.bind(body);
  EXPECT_EQ(refused.status, 200);
  EXPECT_NE(error_of(refused).find("does not hold the Lease kube-extender/kube-extender (holder: a)"),
            std::string::npos)
      << refused.body;
  EXPECT_TRUE(api.bindings().empty());
  EXPECT_EQ(on_b.bind("{").status, 400);  // malformed is still malformed

  BindVerb on_a(*client, live.cache(), 30s, &a);
  Reply ok = on_a.bind(body);
  EXPECT_EQ(error_of(ok), "") << ok.body;
  ASSERT_EQ(api.bindings().size(), 1u);
  // The API server refuses a second Binding of the same pod, whoever sends it.
  Reply again = on_a.bind(body);
  EXPECT_NE(error_of(again).find("HTTP 409"), std::string::npos) << again.body;
  EXPECT_EQ(api.bindings().size(), 1u);
}

int status_of(httplib::Client& c, const std::string& path) {
  auto r = c.Get(path);
  return r ? r->status : -1;
}

// Two real replicas: one holds the Lease and binds, the other passes its binds on to it; /metrics says
// which; SIGTERM on the holder releases the Lease and the other takes it at once, not a lease duration
// later, and a bind sent meanwhile waits for it.
TEST(LeaderElection, TwoReplicasOneBinderAndSigtermHandsOver) {
  FakeApiServer api;
  api.put("nodes", node_json("n1", "4", "8Gi"));
  for (const char* p : {"p1", "p2"}) api.put("pods", pod_json("default", p, ""));
  const std::string kc = write_temp("leader-kubeconfig", api.kubeconfig(true));
  auto replica = [&](const std::string& id) {
    return std::make_unique<ExtenderProcess>(std::vector<std::string>{
        "--kubeconfig", kc, "--enable-bind", "--leader-elect", "--leader-elect-identity", id,
        "--leader-elect-lease-duration", "30s", "--leader-elect-renew-deadline", "20s",
        "--leader-elect-retry-period", "100ms", "--shutdown-delay-seconds", "0"});
  };
  auto a = replica("replica-a");
  ASSERT_GT(a->port(), 0) << a->log();
  ASSERT_TRUE(wait_until([&] { return api.lease_holder(kLease) == "replica-a"; }, 10s)) << a->log();
  auto b = replica("replica-b");
  ASSERT_GT(b->port(), 0) << b->log();
  httplib::Client ca("127.0.0.1", a->port()), cb("127.0.0.1", b->port());
  ASSERT_TRUE(
      wait_until([&] { return status_of(ca, "/readyz") == 200 && status_of(cb, "/readyz") == 200; }, 10s));

  auto metrics = cb.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("kube_extender_leader{identity=\"replica-b\"} 0"), std::string::npos);
  metrics = ca.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("kube_extender_leader{identity=\"replica-a\"} 1"), std::string::npos);

  // The holder publishes where it takes forwarded binds.
  EXPECT_NE(api.lease(kLease).find(R"("kube-extender.io/holder-url":"http://127.0.0.1:)" +
                                   std::to_string(a->port()) + "\""),
            std::string::npos)
      << api.lease(kLease);
  const std::string bind_p1 =
      R"({"PodName":"p1","PodNamespace":"default","PodUID":"uid-default-p1","Node":"n1"})";
  // b does not hold the Lease: it passes the bind on to a and relays a's answer.
  auto forwarded = cb.Post("/bind", bind_p1, "application/json");
  ASSERT_TRUE(forwarded);
  EXPECT_EQ(forwarded->body, R"({"Error":""})");
  ASSERT_EQ(api.bindings().size(), 1u);
  metrics = cb.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("\nkube_extender_bind_forwards_total 1\n"), std::string::npos)
      << metrics->body;
  // A forwarded bind is never passed on again: a replica that does not hold the Lease answers 421.
  auto misdirected = cb.Post("/holder/bind", bind_p1, "application/json");
  ASSERT_TRUE(misdirected);
  EXPECT_EQ(misdirected->status, 421);
  EXPECT_NE(misdirected->body.find("does not hold the Lease"), std::string::npos) << misdirected->body;
  // The API server refuses a second Binding of the same pod, whoever sends it.
  auto again = ca.Post("/bind", bind_p1, "application/json");
  ASSERT_TRUE(again);
  EXPECT_NE(again->body.find("HTTP 409"), std::string::npos) << again->body;
  EXPECT_EQ(api.bindings().size(), 1u);

  const auto t0 = Clock::now();
  ASSERT_EQ(kill(a->pid(), SIGTERM), 0);
  // A bind sent while the Lease changes hands waits for the next holder (b, nudged to try at once).
  auto during_handover =
      cb.Post("/bind", R"({"PodName":"p2","PodNamespace":"default","PodUID":"uid-default-p2","Node":"n1"})",
              "application/json");
  ASSERT_TRUE(during_handover);
  EXPECT_EQ(during_handover->body, R"({"Error":""})");
  EXPECT_EQ(a->wait_exit(20s), 0) << a->log();
  EXPECT_NE(a->log().find("released lease kube-extender/kube-extender"), std::string::npos) << a->log();
  ASSERT_TRUE(wait_until([&] { return api.lease_holder(kLease) == "replica-b"; }, 20s)) << b->log();
  EXPECT_LT(Clock::now() - t0, 20s);  // well inside the 30 s lease duration
  EXPECT_EQ(api.bindings().size(), 2u);
  kill(b->pid(), SIGTERM);
  EXPECT_EQ(b->wait_exit(20s), 0) << b->log();
}

std::string get_body(httplib::Client& c, const std::string& path) {
  auto r = c.Get(path);
  return r ? r->body : std::string();
}

// Two replicas started on a cluster without the Lease's namespace: neither binds, both say why (at
// start-up, in the failed request's log line, /debug/leader and /metrics) and stay ready; once the
// namespace is created one takes the Lease and binds, without a restart.
TEST(LeaderElection, ReplicasWithoutTheLeaseNamespaceSayWhyAndBindOnceItExists) {
  FakeApiServer api;
  api.require_lease_namespace(true);
  api.put("nodes", node_json("n1", "4", "8Gi"));
  api.put("pods", pod_json("default", "p1", ""));
  const std::string kc = write_temp("no-namespace-kubeconfig", api.kubeconfig(true));
  // Logged to a file, which log() reads as it grows.
  auto replica = [&](const std::string& id) {
    return std::make_unique<ExtenderProcess>(
        KEXT_BINARY,
        std::vector<std::string>{"--kubeconfig", kc, "--enable-bind", "--leader-elect",
                                 "--leader-elect-identity", id, "--leader-elect-lease-duration", "30s",
                                 "--leader-elect-renew-deadline", "20s", "--leader-elect-retry-period",
                                 "100ms", "--bind-forward-timeout", "500ms", "--shutdown-delay-seconds", "0"},
        write_temp(id + ".log", ""));
  };
  const std::vector<std::string> ids = {"replica-a", "replica-b"};
  std::vector<std::unique_ptr<ExtenderProcess>> replicas;
  for (const std::string& id : ids) replicas.push_back(replica(id));
  const std::string bind_p1 =
      R"({"PodName":"p1","PodNamespace":"default","PodUID":"uid-default-p1","Node":"n1"})";
  for (size_t i = 0; i < replicas.size(); ++i) {
    ExtenderProcess* r = replicas[i].get();
    ASSERT_GT(r->port(), 0) << r->log();
    httplib::Client c("127.0.0.1", r->port());
    ASSERT_TRUE(wait_until([&] {
      return r->log().find(
                 "POST /apis/coordination.k8s.io/v1/namespaces/kube-extender/leases: HTTP 404: "
                 "namespaces \"kube-extender\" not found\n") != std::string::npos;
    })) << r->log();
    EXPECT_NE(
        r->log().find("kube-extender: --leader-elect: namespace kube-extender does not exist; create it "
                      "(kubectl create namespace kube-extender) — this replica will not bind until "
                      "then\n"),
        std::string::npos)
        << r->log();
    EXPECT_NE(r->log().find("kube-extender: --leader-elect: creating Lease kube-extender/kube-extender: HTTP "
                            "404: namespaces \"kube-extender\" not found; this replica does not bind until "
                            "it holds the Lease"),
              std::string::npos)
        << r->log();
    EXPECT_TRUE(wait_until([&] { return status_of(c, "/readyz") == 200; }, 10s));  // no Lease needed
    const std::string debug = get_body(c, "/debug/leader");
    EXPECT_NE(debug.find(R"("leader":false)"), std::string::npos) << debug;
    EXPECT_NE(debug.find(R"("lastError":"creating Lease kube-extender/kube-extender: HTTP 404: namespaces )"
                         R"(\"kube-extender\" not found")"),
              std::string::npos)
        << debug;
    const std::string metrics = get_body(c, "/metrics");
    EXPECT_NE(metrics.find("kube_extender_leader{identity=\"" + ids[i] + "\"} 0\n"), std::string::npos)
        << metrics;
    EXPECT_NE(metrics.find("kube_extender_api_errors_total{resource=\"leases\",status=\"404\"} "),
              std::string::npos)
        << metrics;
    auto refused = c.Post("/bind", bind_p1, "application/json");
    ASSERT_TRUE(refused);
    EXPECT_NE(refused->body, R"({"Error":""})");
  }
  EXPECT_TRUE(api.bindings().empty());
  EXPECT_EQ(api.lease_holder(kLease), "");

  api.put("namespaces", namespace_json("kube-extender", ""));
  ASSERT_TRUE(wait_until([&] { return !api.lease_holder(kLease).empty(); }, 20s))
      << replicas[0]->log() << replicas[1]->log();
  const std::string holder = api.lease_holder(kLease);
  ExtenderProcess& leader = holder == "replica-a" ? *replicas[0] : *replicas[1];
  httplib::Client c("127.0.0.1", leader.port());
  ASSERT_TRUE(
      wait_until([&] { return get_body(c, "/debug/leader").find(R"("leader":true)") != std::string::npos; }));
  EXPECT_NE(get_body(c, "/debug/leader").find(R"("lastError":"")"), std::string::npos);
  auto bound = c.Post("/bind", bind_p1, "application/json");
  ASSERT_TRUE(bound);
  EXPECT_EQ(bound->body, R"({"Error":""})");
  EXPECT_EQ(api.bindings().size(), 1u);
  EXPECT_NE(leader.log().find("acquired lease kube-extender/kube-extender as " + holder), std::string::npos);
  for (auto& r : replicas) {
    kill(r->pid(), SIGTERM);
    EXPECT_EQ(r->wait_exit(20s), 0) << r->log();
  }
}

TEST(LeaderElection, FlagsAreCheckedAsClientGoChecksThem) {
  for (auto [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--leader-elect", "--kubeconfig", "x"}, "needs --enable-bind"},
           {{"--kubeconfig", "x", "--enable-bind", "--leader-elect", "--leader-elect-lease-duration", "5s"},
            "greater than --leader-elect-renew-deadline"},
           {{"--kubeconfig", "x", "--enable-bind", "--leader-elect-retry-period", "9s"},
            "greater than 1.2 x"},
           {{"--leader-elect-lease-duration", "15"}, "expected a duration"},
           {{"--leader-elect-retry-period", "2h"}, "expected a duration"},
           {{"--leader-elect-identity", ""}, "must not be empty"}}) {
    ExtenderProcess p(args);
    EXPECT_EQ(p.wait_exit(10s), 2) << args[0];
    EXPECT_NE(p.log().find(message), std::string::npos) << p.log();
  }
}

}  // namespace
}  // namespace leader_election_test
}  // namespace kext::testing
