// Every failed call to the API server is logged with its cause (method, path, status, the server's
// message) at most once per cause per minute, and counted by resource and status: for the Lease (its
// namespace missing, RBAC without a verb, no server, an untrusted certificate), a watch the server ends
// with an error, and a Binding.
#include "kube/client/api_errors.h"

#include <gtest/gtest.h>

#include <mutex>

#include "common/read_file.h"
#include "kube/client/api_client.h"
#include "kube/client/leader_election.h"
#include "kube/client/reflector.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"

namespace kext::testing {
namespace api_errors_test {
namespace {

using namespace std::chrono_literals;
using kube::ApiErrorReporter;

TEST(ApiResource, ThePathsResourceAsRbacNamesIt) {
  for (const auto& [path, resource] : std::vector<std::pair<std::string, std::string>>{
           {"/apis/coordination.k8s.io/v1/namespaces/kube-extender/leases", "leases"},
           {"/apis/coordination.k8s.io/v1/namespaces/kube-extender/leases/kube-extender", "leases"},
           {"/api/v1/namespaces/default/pods/p/binding", "pods/binding"},
           {"/api/v1/pods?watch=1&resourceVersion=5", "pods"},
           {"/api/v1/nodes?limit=500", "nodes"},
           {"/api/v1/namespaces", "namespaces"},
           {"/api/v1/namespaces/kube-extender", "namespaces"},
           {"/apis/scheduling.x-k8s.io/v1alpha1/podgroups", "podgroups"},
           {"/apis/metrics.k8s.io/v1beta1/nodes", "nodes"},
           {"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "selfsubjectaccessreviews"},
           {"/version", "/version"},
       }) {
    EXPECT_EQ(kube::api_resource(path), resource) << path;
  }
}

// What a reporter logs, on a clock the test moves.
class CapturedLog {
 public:
  explicit CapturedLog(ApiErrorReporter& r) {
    r.configure({[this] { return now(); }, [this](std::string_view l) { add(l); }, 60s});
  }
  void advance(std::chrono::seconds d) {
    std::lock_guard lock(mu_);
    now_ += d;
  }
  std::vector<std::string> lines() const {
    std::lock_guard lock(mu_);
    return lines_;
  }
  std::string text() const {
    std::string out;
    for (const std::string& l : lines()) out += l + "\n";
    return out;
  }

 private:
  ApiErrorReporter::Clock::time_point now() const {
    std::lock_guard lock(mu_);
    return now_;
  }
  void add(std::string_view line) {
    std::lock_guard lock(mu_);
    lines_.emplace_back(line);
  }
  mutable std::mutex mu_;
  ApiErrorReporter::Clock::time_point now_ = ApiErrorReporter::Clock::now();
  std::vector<std::string> lines_;
};

TEST(ApiErrorReporter, OneLinePerCausePerMinuteAndEveryFailureCounted) {
  ApiErrorReporter r;
  CapturedLog log(r);
  const kube::ApiFailure not_found{"POST", "/apis/coordination.k8s.io/v1/namespaces/x/leases", "404",
                                   "HTTP 404: namespaces \"x\" not found\n"};
  r.report(not_found);
  r.report(not_found);
  r.report({"GET", "/apis/coordination.k8s.io/v1/namespaces/x/leases/x", "403", "HTTP 403: forbidden"});
  log.advance(59s);
  r.report(not_found);
  ASSERT_EQ(log.lines().size(), 2u) << log.text();
  EXPECT_EQ(log.lines()[0],
            "POST /apis/coordination.k8s.io/v1/namespaces/x/leases: HTTP 404: namespaces \"x\" not found");
  EXPECT_EQ(log.lines()[1], "GET /apis/coordination.k8s.io/v1/namespaces/x/leases/x: HTTP 403: forbidden");
  log.advance(1s);
  r.report(not_found);
  ASSERT_EQ(log.lines().size(), 3u) << log.text();
  EXPECT_EQ(log.lines()[2],
            "POST /apis/coordination.k8s.io/v1/namespaces/x/leases: HTTP 404: namespaces \"x\" not found "
            "(2 more like it in the last 60 s)");
  EXPECT_EQ(r.count("leases", "404"), 4u);
  EXPECT_EQ(r.count("leases", "403"), 1u);
  EXPECT_EQ(r.counts(), (std::vector<ApiErrorReporter::Count>{{"leases", "403", 1}, {"leases", "404", 4}}));
  r.set_enabled(false);
  r.report(not_found);
  EXPECT_EQ(r.count("leases", "404"), 4u);
}

std::string replaced(std::string text, const std::string& url) {
  for (size_t at; (at = text.find("{url}")) != std::string::npos;) text.replace(at, 5, url);
  return text;
}

int closed_port() {
  FakeApiServer gone;
  return gone.port();
}

// A client of `api` that does not trust its certificate (another CA); verify_hostname false: OpenSSL
// checks the chain during the handshake instead of cpp-httplib after it.
std::unique_ptr<kube::ApiClient> untrusting_client(FakeApiServer& api, bool verify_hostname) {
  kube::ApiConfig cfg = kube::kubeconfig_config(write_temp("untrusting-kubeconfig", api.kubeconfig()));
  EXPECT_TRUE(read_whole_file(std::string(KEXT_CERTS_DIR) + "/rogue-ca.crt", cfg.ca_pem));
  cfg.verify_hostname = verify_hostname;
  return std::make_unique<kube::ApiClient>(cfg, kube::ApiClient::Timeouts{10000ms, 10000ms});
}

// A replica's attempt on its Lease, for each cause: the request's log line (once a minute), its count,
// and the elector's last_error (what /debug/leader shows).
TEST(ApiErrors, EachLeaseFailureIsLoggedWithItsCauseAndCounted) {
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/kube-extender/leases";
  struct Case {
    std::string name;
    std::function<void(FakeApiServer&)> fault;
    std::function<std::unique_ptr<kube::ApiClient>(FakeApiServer&, std::string* url)> client;
    std::string line, status, last_error;
  };
  auto usual = [](FakeApiServer& api, std::string* url) {
    *url = api.url();
    return client_for(api);
  };
  const std::vector<Case> cases = {
      {"namespace missing", [](FakeApiServer& api) { api.require_lease_namespace(true); }, usual,
       "POST " + leases + ": HTTP 404: namespaces \"kube-extender\" not found", "404",
       "creating Lease kube-extender/kube-extender: HTTP 404: namespaces \"kube-extender\" not found"},
      {"RBAC without create", [](FakeApiServer& api) { api.forbid_lease_verbs({"create"}); }, usual,
       "POST " + leases +
           ": HTTP 403: leases.coordination.k8s.io is forbidden: User \"system:kube-scheduler\" cannot "
           "create "
           "resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"kube-extender\"",
       "403",
       "creating Lease kube-extender/kube-extender: HTTP 403: leases.coordination.k8s.io is forbidden"},
      {"no server", [](FakeApiServer&) {},
       [](FakeApiServer&, std::string* url) {
         kube::ApiConfig cfg;
         kube::set_server_url(cfg, *url = "http://127.0.0.1:" + std::to_string(closed_port()));
         return std::make_unique<kube::ApiClient>(cfg);
       },
       "GET " + leases + "/kube-extender: cannot connect to {url}: connection refused", "refused",
       "reading Lease kube-extender/kube-extender: cannot connect to {url}: connection refused"},
      {"untrusted certificate", [](FakeApiServer&) {},
       [](FakeApiServer& api, std::string* url) {
         *url = api.url();
         return untrusting_client(api, true);
       },
       "GET " + leases +
           "/kube-extender: TLS handshake with {url} failed: certificate verify failed: self-signed "
           "certificate in certificate chain",
       "tls", "reading Lease kube-extender/kube-extender: TLS handshake with {url} failed"},
      {"untrusted certificate, chain checked in the handshake", [](FakeApiServer&) {},
       [](FakeApiServer& api, std::string* url) {
         *url = api.url();
         return untrusting_client(api, false);
       },
       "GET " + leases +
           "/kube-extender: TLS handshake with {url} failed: certificate verify failed: self-signed "
           "certificate in certificate chain",
       "tls", "reading Lease kube-extender/kube-extender: TLS handshake with {url} failed"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeApiServer api;
    c.fault(api);
    std::string url;
    std::unique_ptr<kube::ApiClient> client = c.client(api, &url);
    CapturedLog log(client->errors());
    kube::LeaderElectionConfig config;
    config.identity = "a";
    kube::LeaderElector a(*client, config);
    ASSERT_EQ(a.try_acquire_or_renew(), kube::LeaderElector::Attempt::kFailed);
    ASSERT_EQ(log.lines().size(), 1u) << log.text();
    EXPECT_EQ(log.lines()[0], replaced(c.line, url));
    EXPECT_EQ(client->errors().counts(), (std::vector<ApiErrorReporter::Count>{{"leases", c.status, 1}}));
    EXPECT_EQ(a.last_error().rfind(replaced(c.last_error, url), 0), 0u) << a.last_error();
    EXPECT_FALSE(a.is_leader());
    // The replica retries every retry period: counted each time, logged again only a minute later.
    ASSERT_EQ(a.try_acquire_or_renew(), kube::LeaderElector::Attempt::kFailed);
    EXPECT_EQ(log.lines().size(), 1u) << log.text();
    log.advance(60s);
    ASSERT_EQ(a.try_acquire_or_renew(), kube::LeaderElector::Attempt::kFailed);
    ASSERT_EQ(log.lines().size(), 2u) << log.text();
    EXPECT_EQ(log.lines()[1], replaced(c.line, url) + " (1 more like it in the last 60 s)");
    EXPECT_EQ(client->errors().count("leases", c.status), 3u);
  }
}

// The Lease read before it exists (404) and another replica's write first (409) are answers: nothing
// logged or counted.
TEST(ApiErrors, TheLeasesExpectedAnswersAreNoFailures) {
  FakeApiServer api;
  auto client = client_for(api);
  CapturedLog log(client->errors());
  kube::LeaderElectionConfig config;
  config.identity = "a";
  kube::LeaderElector a(*client, config);
  config.identity = "b";
  kube::LeaderElector b(*client, config);
  ASSERT_EQ(a.try_acquire_or_renew(), kube::LeaderElector::Attempt::kHeld);  // after a 404
  ASSERT_EQ(b.try_acquire_or_renew(), kube::LeaderElector::Attempt::kHeldByOther);
  const std::string stale = R"({"metadata":{"name":"kube-extender","namespace":"kube-extender"},"spec":{}})";
  EXPECT_EQ(
      client->post("/apis/coordination.k8s.io/v1/namespaces/kube-extender/leases", stale, kube::Expected{409})
          .status,
      409);
  EXPECT_EQ(log.text(), "");
  EXPECT_TRUE(client->errors().counts().empty());
  EXPECT_EQ(a.last_error(), "");
}

TEST(ApiErrors, AFailedBindingIsLoggedAndCounted) {
  FakeApiServer api;
  api.put("pods", pod_json("default", "p", ""));
  auto client = client_for(api);
  CapturedLog log(client->errors());
  api.fail_binds(500, "etcdserver: request timed out");
  const auto r = client->post("/api/v1/namespaces/default/pods/p/binding",
                              R"({"metadata":{"name":"p"},"target":{"name":"n1"}})");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(log.text(),
            "POST /api/v1/namespaces/default/pods/p/binding: HTTP 500: etcdserver: request timed out\n");
  EXPECT_EQ(client->errors().count("pods/binding", "500"), 1u);
}

struct NullSink : kube::ResourceSink {
  void list_begin() override {}
  void list_item(const json::Value&) override {}
  void list_end() override {}
  void event(kube::EventType, const json::Value&) override {}
  void flush() override {}
};

// The watch of pods, until the server ends it with an error: an ERROR event in the stream, or an error
// status instead of one.
class WatchEndedByTheServer : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = client_for(api_);
    log_ = std::make_unique<CapturedLog>(client_->errors());
    kube::ReflectorOptions o;
    o.resource = "pods";
    o.path = "/api/v1/pods";
    o.backoff_initial = 20ms;
    o.backoff_max = 200ms;
    reflector_ = std::make_unique<kube::Reflector>(*client_, o, sink_);
    reflector_->start();
    ASSERT_TRUE(wait_until([&] { return api_.watches_served("pods") >= 1; }));
  }
  bool logged(const std::string& line) {
    return wait_until([&] {
      for (const std::string& l : log_->lines())
        if (l == line) return true;
      return false;
    });
  }

  FakeApiServer api_;
  std::unique_ptr<kube::ApiClient> client_;
  std::unique_ptr<CapturedLog> log_;
  NullSink sink_;
  std::unique_ptr<kube::Reflector> reflector_;
};

TEST_F(WatchEndedByTheServer, AnErrorEventIsLoggedAndCounted) {
  api_.fail_streams(500, "etcdserver: request timed out");
  EXPECT_TRUE(logged("GET /api/v1/pods (watch): ERROR event: HTTP 500: etcdserver: request timed out"))
      << log_->text();
  EXPECT_EQ(client_->errors().count("pods", "500"), 1u);
  EXPECT_EQ(reflector_->status().last_error,
            "watch ended: ERROR event: HTTP 500: etcdserver: request timed out");
}

TEST_F(WatchEndedByTheServer, AnErrorStatusIsLoggedAndCounted) {
  // The stream ends (an ERROR event), and the watch that replaces it is answered 503.
  const int watches = api_.watches_served("pods");
  api_.fail_requests(1, 503);
  api_.fail_streams(500, "etcdserver: leader changed");
  EXPECT_TRUE(logged("GET /api/v1/pods (watch): HTTP 503: injected failure")) << log_->text();
  EXPECT_EQ(client_->errors().count("pods", "503"), 1u);
  // A watch's 410 Gone, as an ERROR event or as its status, is an answer (relist), not a failure.
  ASSERT_TRUE(wait_until([&] { return api_.watches_served("pods") > watches; }));  // the one after the 503
  const uint64_t gone = reflector_->status().gone;
  api_.set_gone_as_http_status(true);
  api_.expire_next_watch();
  api_.expire_streams();
  ASSERT_TRUE(wait_until([&] { return reflector_->status().gone >= gone + 2; })) << reflector_->status().gone;
  EXPECT_EQ(client_->errors().count("pods", "410"), 0u);
}

}  // namespace
}  // namespace api_errors_test
}  // namespace kext::testing
