// The API client: TLS trust (the certificate authority the configuration names, and no other) and
// keep-alive connections the server has closed.
#include "kube/client/api_client.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <thread>

#include "common/read_file.h"
#include "kube/client/cache_sinks.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/live_cluster.h"
#include "tests/support/tcp_states.h"

namespace kext::testing {
namespace api_client_test {
namespace {

using namespace std::chrono_literals;

std::string cert(const std::string& file) { return std::string(KEXT_CERTS_DIR) + "/" + file; }

// OpenSSL's default verify paths (the "system" CAs) come from SSL_CERT_FILE when it is set.
class SystemCaFile {
 public:
  explicit SystemCaFile(const std::string& path) { ::setenv("SSL_CERT_FILE", path.c_str(), 1); }
  ~SystemCaFile() { ::unsetenv("SSL_CERT_FILE"); }
};

TEST(ApiClient, TrustsOnlyTheConfiguredCertificateAuthority) {
  // The API server's CA is a system CA here; the configuration names another one.
  SystemCaFile system_ca(cert("ca.crt"));
  {
    FakeApiServer api;
    kube::ApiConfig cfg = kube::kubeconfig_config(write_temp("trust-kubeconfig", api.kubeconfig()));
    {
      kube::ApiClient right_ca(cfg, kube::ApiClient::Timeouts{10000ms, 10000ms});
      EXPECT_EQ(right_ca.get("/api/v1/nodes").status, 200);
    }
    ASSERT_TRUE(read_whole_file(cert("rogue-ca.crt"), cfg.ca_pem));
    kube::ApiClient wrong_ca(cfg, kube::ApiClient::Timeouts{10000ms, 10000ms});
    auto r = wrong_ca.get("/api/v1/nodes");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.error, "SSLServerVerification");
  }
}

// The in-repo API server closes keep-alive connections idle for a second, as servers do after their
// idle timeout: the client must not send the next request into such a connection.
TEST(ApiClient, DoesNotReuseAConnectionTheServerClosed) {
  FakeApiServer api;
  kube::ApiClient client(kube::kubeconfig_config(write_temp("reuse-kubeconfig", api.kubeconfig())),
                         kube::ApiClient::Timeouts{10000ms, 10000ms});
  ASSERT_EQ(client.get("/api/v1/nodes").status, 200);
  // Until the server's keep-alive timeout has closed the connection the client pooled.
  const std::set<int> pooled = established_to(api.port());
  ASSERT_FALSE(pooled.empty());
  ASSERT_TRUE(wait_until([&] { return all_closed(pooled, api.port()); }));
  auto r = client.get("/api/v1/nodes");
  EXPECT_EQ(r.status, 200) << r.error;
}

}  // namespace
}  // namespace api_client_test
}  // namespace kext::testing

namespace kext::kube {
namespace api_client_test {
namespace {

// What both the extender's watch and extender-sim --follow skip: a resource not served or not granted;
// a server error is not absence (the reflector retries it).
TEST(ResourceAbsent, OnlyNotFoundAndForbiddenAreAbsence) {
  testing::FakeApiServer api;
  auto client = testing::client_for(api);
  const std::string podgroups(find_watched_resource("podgroups")->path);
  EXPECT_FALSE(resource_absent(*client, podgroups));
  api.forbid("podgroups");
  EXPECT_TRUE(resource_absent(*client, podgroups));
  api.forbid("podgroups", false);
  EXPECT_TRUE(resource_absent(*client, "/apis/example.com/v1/nothings"));
  api.fail_requests(1, 500);
  EXPECT_FALSE(resource_absent(*client, podgroups));
}

// GET /version's gitVersion, as kube-extender and extender-sim read the server's Kubernetes release; a
// failure says what and where.
TEST(ServerGitVersion, ReadsTheServersReleaseOrSaysWhyNot) {
  testing::FakeApiServer api;
  auto client = testing::client_for(api);
  EXPECT_EQ(server_git_version(*client), ApiServer::kDefaultGitVersion);
  api.set_git_version("v1.31.0-gke.1200");
  EXPECT_EQ(server_git_version(*client), "v1.31.0-gke.1200");
  api.fail_version(403);
  try {
    server_git_version(*client);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "GET /version from " + api.url() + ": HTTP 403: injected /version failure");
  }
  api.fail_version(0);
  api.set_git_version("");
  EXPECT_THROW(server_git_version(*client), ConfigError);  // a reply without one
}

}  // namespace
}  // namespace api_client_test
}  // namespace kext::kube
