// A /bind that reaches a replica not holding the Lease is passed on to the holder the Lease names: the
// holder's reply relayed as it is; one retry after a failed attempt, with the Lease read again; a wait
// while the Lease has no holder; a bounded number waiting; TLS with the verbs' certificate.
#include "extender/verbs/bind_forward.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "kube/client/api_flags.h"
#include "tests/support/live_cluster.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace bind_forward_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using kube::LeaderElector;
using Attempt = LeaderElector::Attempt;

const std::string kBody = R"({"PodName":"p","PodNamespace":"default","PodUID":"uid-p","Node":"n1"})";

BindingArgs args() {
  BindingArgs a;
  a.pod_name = "p";
  a.pod_namespace = "default";
  a.pod_uid = "uid-p";
  a.node = "n1";
  return a;
}

// Durations no test waits out: a TLS round trip under TSan takes longer than a short renew deadline.
kube::LeaderElectionConfig election(const std::string& identity, const std::string& url = "") {
  kube::LeaderElectionConfig c;
  c.identity = identity;
  c.lease_duration = 30s;
  c.renew_deadline = 20s;
  c.retry_period = 10s;  // only nudge() makes an attempt sooner
  c.advertise_url = url;
  c.forward_timeout = 5s;
  return c;
}

std::string url_of(const TestServer& s) { return "http://127.0.0.1:" + std::to_string(s.port()); }

std::string error_of(const Reply& r) {
  auto d = parse(r.body);
  return d.IsObject() && d.HasMember("Error") && d["Error"].IsString() ? d["Error"].GetString()
                                                                       : "<no Error>";
}

// A holder whose /holder/bind answers with `reply` and keeps what it was sent.
struct Holder {
  std::mutex mu;
  std::vector<std::string> bodies;
  TestServer server;
  explicit Holder(Reply reply, ServerConfig config = {}, std::chrono::milliseconds delay = 0ms)
      : server(std::make_shared<ClusterState>(), std::string(default_policy_json()), config,
               [this, reply, delay](std::string_view body) {
                 std::this_thread::sleep_for(delay);
                 std::lock_guard lock(mu);
                 bodies.emplace_back(body);
                 return reply;
               }) {}
};

// The Lease held by `identity` at `url`, as `here`, which does not hold it, has read it.
struct HeldElsewhere {
  LeaderElector holder;
  LeaderElector here;
  HeldElsewhere(kube::ApiClient& client, const std::string& url, const std::string& identity = "h")
      : holder(client, election(identity, url)), here(client, election("here")) {
    EXPECT_EQ(holder.try_acquire_or_renew(), Attempt::kHeld);
    EXPECT_EQ(here.try_acquire_or_renew(), Attempt::kHeldByOther);
  }
};

// A Lease that a replica held and released: no holder, as in a hand-over.
void leave_the_lease_without_holder(kube::ApiClient& client) {
  LeaderElector gone(client, election("gone", "http://127.0.0.1:1"));
  ASSERT_EQ(gone.try_acquire_or_renew(), Attempt::kHeld);
  ASSERT_TRUE(gone.release());
}

struct Fixture {
  FakeApiServer api;
  std::unique_ptr<kube::ApiClient> client = client_for(api);
  Metrics metrics{"test"};
};

TEST(BindForward, RelaysTheHoldersReplyAsItIs) {
  Fixture f;
  Holder h(Reply{200, R"({"Error":"from the holder"})"});
  HeldElsewhere lease(*f.client, url_of(h.server));
  LeaderElector& here = lease.here;
  EXPECT_EQ(here.lease_holder(), (kube::LeaseHolder{"h", url_of(h.server)}));

  BindForwarder forwarder(here, ForwardConfig{}, &f.metrics);
  std::optional<Reply> r = forwarder.forward(kBody, args());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"Error":"from the holder"})");
  ASSERT_EQ(h.bodies.size(), 1u);
  EXPECT_EQ(h.bodies[0], kBody);
  EXPECT_EQ(f.metrics.forwards(), 1u);
  for (auto cause : {ForwardFailure::kConnect, ForwardFailure::kNoReply, ForwardFailure::kNotHolder,
                     ForwardFailure::kNoHolder, ForwardFailure::kBusy, ForwardFailure::kUnreachable}) {
    EXPECT_EQ(f.metrics.forward_failures(cause), 0u);
  }
  const std::string rendered = f.metrics.render(nullptr);
  EXPECT_NE(rendered.find("\nkube_extender_bind_forwards_total 1\n"), std::string::npos);
  EXPECT_NE(rendered.find("kube_extender_bind_forward_duration_seconds_count{} 1\n"), std::string::npos);
  EXPECT_NE(rendered.find("kube_extender_bind_forward_failures_total{cause=\"connect\"} 0\n"),
            std::string::npos);
}

TEST(BindForward, AnUnreachableHolderIsNamedAndNotTriedAgainForASecond) {
  Fixture f;
  int closed_port;
  {
    Holder gone(Reply{200, "{}"});
    closed_port = gone.server.port();
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(closed_port);
  HeldElsewhere lease(*f.client, url);
  LeaderElector& here = lease.here;

  std::atomic<int64_t> ahead_ms{0};  // how far the forwarder's clock is moved ahead of steady_clock
  BindForwarder forwarder(here, ForwardConfig{}, &f.metrics,
                          [&] { return Clock::now() + std::chrono::milliseconds(ahead_ms.load()); });
  const auto t0 = Clock::now();
  std::optional<Reply> r = forwarder.forward(kBody, args());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  const std::string e = error_of(*r);
  EXPECT_NE(
      e.find("not binding pod default/p: replica here does not hold the Lease kube-extender/kube-extender"),
      std::string::npos)
      << e;
  // The cause in words, not cpp-httplib's "Connection".
  EXPECT_NE(
      e.find("holder h at " + url + ": no connection: cannot connect to " + url + ": connection refused"),
      std::string::npos)
      << e;
  // The retry reread the Lease, found the same holder, and did not wait for another connect.
  EXPECT_NE(e.find("not tried again yet"), std::string::npos) << e;
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kConnect), 1u);
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kUnreachable), 1u);
  // The next bind within the second is answered without a connection attempt.
  r = forwarder.forward(kBody, args());
  ASSERT_TRUE(r);
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kConnect), 1u);
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kUnreachable), 3u);
  EXPECT_EQ(f.metrics.forwards(), 2u);
  EXPECT_LT(Clock::now() - t0, 1s);
  // A second later one forward tries it again.
  ahead_ms += 1100;
  r = forwarder.forward(kBody, args());
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kConnect), 2u);
}

TEST(BindForward, AReplicaThatNoLongerHoldsTheLeaseSendsTheForwardToTheNewHolder) {
  Fixture f;
  Holder next(Reply{200, R"({"Error":""})"});
  LeaderElector new_holder(*f.client, election("new", url_of(next.server)));
  std::unique_ptr<LeaderElector> old_holder;
  // The old holder hands the Lease over just as the forward reaches it, and answers 421.
  Holder old(Reply{kNotHolderStatus, R"({"Error":"not holder"})"});
  old_holder = std::make_unique<LeaderElector>(*f.client, election("old", url_of(old.server)));
  ASSERT_EQ(old_holder->try_acquire_or_renew(), Attempt::kHeld);
  LeaderElector here(*f.client, election("here"));
  ASSERT_EQ(here.try_acquire_or_renew(), Attempt::kHeldByOther);
  ASSERT_TRUE(old_holder->release());
  ASSERT_EQ(new_holder.try_acquire_or_renew(), Attempt::kHeld);

  BindForwarder forwarder(here, ForwardConfig{}, &f.metrics);
  std::optional<Reply> r = forwarder.forward(kBody, args());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, R"({"Error":""})");
  EXPECT_EQ(old.bodies.size(), 1u);
  EXPECT_EQ(next.bodies.size(), 1u);
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kNotHolder), 1u);
}

TEST(BindForward, WhileTheLeaseHasNoHolderItWaitsAndThisReplicaMayTakeIt) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(leave_the_lease_without_holder(*f.client));
  LeaderElector here(*f.client, election("here", "http://127.0.0.1:2"));
  here.refresh();
  EXPECT_EQ(here.lease_holder().identity, "");
  here.start();  // its next attempt is 10 s away unless nudged

  BindForwarder forwarder(here, ForwardConfig{}, &f.metrics);
  const auto t0 = Clock::now();
  std::optional<Reply> r = forwarder.forward(kBody, args());
  EXPECT_FALSE(r) << r->body;  // this replica holds the Lease now: it binds the pod itself
  EXPECT_TRUE(here.is_leader());
  EXPECT_LT(Clock::now() - t0, 5s);
  here.stop();
}

TEST(BindForward, AHolderThatPublishesNoAddressIsNamed) {
  Fixture f;
  HeldElsewhere lease(*f.client, "", "old-version");
  LeaderElector& here = lease.here;
  BindForwarder forwarder(here, ForwardConfig{}, &f.metrics);
  std::optional<Reply> r = forwarder.forward(kBody, args());
  ASSERT_TRUE(r);
  EXPECT_NE(error_of(*r).find(
                "its holder old-version publishes no address (annotation kube-extender.io/holder-url)"),
            std::string::npos)
      << r->body;
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kNoHolder), 1u);
}

TEST(BindForward, BeyondItsBoundAForwardThatMustWaitIsAnsweredAtOnce) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(leave_the_lease_without_holder(*f.client));
  kube::LeaderElectionConfig c = election("here");
  c.forward_timeout = 1s;
  LeaderElector here(*f.client, c);  // not started: nobody takes the Lease
  here.refresh();
  ForwardConfig one;
  one.max_waiting = 1;
  BindForwarder forwarder(here, one, &f.metrics);
  auto first = std::async(std::launch::async, [&] { return forwarder.forward(kBody, args()); });
  ASSERT_TRUE(wait_until([&] { return forwarder.waiting() == 1; }));  // the first waits for a holder
  std::optional<Reply> second = forwarder.forward(kBody, args());
  ASSERT_TRUE(second);
  EXPECT_NE(error_of(*second).find("1 binds are already waiting for the holder"), std::string::npos)
      << second->body;
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kBusy), 1u);
  std::optional<Reply> r = first.get();
  ASSERT_TRUE(r);
  EXPECT_NE(error_of(*r).find("no other replica took the Lease within 1000 ms"), std::string::npos)
      << r->body;
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kNoHolder), 1u);
}

// Forwards that reach a live holder at once never wait for a place, however many run together.
TEST(BindForward, ManyForwardsToALiveHolderRunTogether) {
  Fixture f;
  Holder slow(Reply{200, R"({"Error":""})"}, {}, 200ms);
  HeldElsewhere lease(*f.client, url_of(slow.server));
  LeaderElector& here = lease.here;
  ForwardConfig one;
  one.max_waiting = 1;
  BindForwarder forwarder(here, one, &f.metrics);
  std::vector<std::future<std::optional<Reply>>> all;
  for (int i = 0; i < 6; ++i)
    all.push_back(std::async(std::launch::async, [&] { return forwarder.forward(kBody, args()); }));
  for (auto& r : all) {
    std::optional<Reply> got = r.get();
    ASSERT_TRUE(got);
    EXPECT_EQ(got->body, R"({"Error":""})");
  }
  EXPECT_EQ(f.metrics.forward_failures(ForwardFailure::kBusy), 0u);
}

ServerConfig tls_server(const std::string& cert, const std::string& key, const std::string& client_ca) {
  ServerConfig c;
  c.tls.cert_file = std::string(KEXT_CERTS_DIR) + "/" + cert;
  c.tls.key_file = std::string(KEXT_CERTS_DIR) + "/" + key;
  c.tls.client_ca_file = client_ca.empty() ? "" : std::string(KEXT_CERTS_DIR) + "/" + client_ca;
  return c;
}

ForwardConfig tls_forward(const std::string& cert, const std::string& key) {
  ForwardConfig c;
  c.tls = true;
  c.ca_pem = read_file(std::string(KEXT_CERTS_DIR) + "/" + cert);
  c.client_cert_pem = c.ca_pem;
  c.client_key_pem = read_file(std::string(KEXT_CERTS_DIR) + "/" + key);
  return c;
}

// The replicas share one certificate: the holder's must be it (or chain to what the file holds), and
// with --client-ca-file the forwarder presents it as its client certificate. The holder is reached by
// an address its certificate need not name.
TEST(BindForward, OverTlsTheHolderMustShowTheSharedCertificateAndAcceptsItAsAClient) {
  Fixture f;
  Holder h(Reply{200, R"({"Error":""})"}, tls_server("peer.crt", "peer.key", "ca.crt"));
  const std::string url = "https://127.0.0.1:" + std::to_string(h.server.port());
  HeldElsewhere lease(*f.client, url);
  LeaderElector& here = lease.here;

  BindForwarder same(here, tls_forward("peer.crt", "peer.key"), &f.metrics);
  std::optional<Reply> r = same.forward(kBody, args());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, R"({"Error":""})");

  // A replica with another certificate does not trust this holder.
  BindForwarder other(here, tls_forward("server.crt", "server.key"), &f.metrics);
  r = other.forward(kBody, args());
  ASSERT_TRUE(r);
  EXPECT_NE(error_of(*r).find("no connection: TLS handshake with "), std::string::npos) << r->body;
  EXPECT_EQ(h.bodies.size(), 1u);
}

TEST(BindForward, TheAdvertisedUrlCarriesSchemeHostPortAndPrefix) {
  EXPECT_EQ(kube::advertise_url("10.0.0.5", 8888, false, ""), "http://10.0.0.5:8888");
  EXPECT_EQ(kube::advertise_url("fd00::5", 8443, true, "/scheduler"), "https://[fd00::5]:8443/scheduler");
  kube::ApiFlags flags;
  EXPECT_EQ(kube::advertise_host(flags, "127.0.0.1"), "127.0.0.1");
  EXPECT_FALSE(kube::advertise_host(flags, "0.0.0.0").empty());
  EXPECT_NE(kube::advertise_host(flags, "0.0.0.0"), "0.0.0.0");
  flags.advertise_address = "10.1.2.3";
  EXPECT_EQ(kube::advertise_host(flags, "0.0.0.0"), "10.1.2.3");
}

}  // namespace
}  // namespace bind_forward_test
}  // namespace kext::testing
