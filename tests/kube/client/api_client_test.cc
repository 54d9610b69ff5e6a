// The API client: TLS trust (the certificate authority the configuration names, and no other) and
// keep-alive connections the server has closed.
#include "kube/client/api_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
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

// A plain-HTTP server on loopback that answers the first request of its first connection with a
// keep-alive 200, then reads the next request on that connection and closes it unanswered: the close
// crossing a request on the wire, which no poll before the write can see. Later connections get a 200.
class ClosesOnSecondRequest {
 public:
  ClosesOnSecondRequest() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(listener_, 8) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      throw std::runtime_error("cannot listen on loopback");
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ClosesOnSecondRequest() {
    ::shutdown(listener_, SHUT_RDWR);
    ::close(listener_);
    thread_.join();
  }
  kube::ApiConfig config() const {
    kube::ApiConfig cfg;
    kube::set_server_url(cfg, "http://127.0.0.1:" + std::to_string(port_));
    return cfg;
  }
  int requests() const { return requests_; }

 private:
  // One request's bytes: its head and, when it has one, its body.
  bool read_request(int fd) {
    std::string in;
    char buf[4096];
    size_t head_end = std::string::npos;
    size_t need = 0;
    while (head_end == std::string::npos || in.size() < head_end + 4 + need) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) return false;
      in.append(buf, static_cast<size_t>(n));
      if (head_end == std::string::npos && (head_end = in.find("\r\n\r\n")) != std::string::npos) {
        const size_t cl = in.find("Content-Length: ");
        if (cl != std::string::npos && cl < head_end) need = std::stoul(in.substr(cl + 16));
      }
    }
    ++requests_;
    return true;
  }
  static void answer(int fd) {
    static const std::string ok = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                                  "Connection: keep-alive\r\n\r\n{}";
    (void)!::write(fd, ok.data(), ok.size());
  }
  void serve() {
    for (int connection = 0;; ++connection) {
      const int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      if (read_request(fd)) answer(fd);
      if (connection == 0 && read_request(fd)) ::shutdown(fd, SHUT_RDWR);  // read, never answered
      ::close(fd);
    }
  }
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> requests_{0};
  std::thread thread_;
};

// The server closed the pooled connection as the request went out: a GET goes again on a new
// connection (reading twice changes nothing), as Go's net/http does for replayable requests.
TEST(ApiClient, AGetTheServerClosedItsConnectionOnGoesAgain) {
  ClosesOnSecondRequest server;
  kube::ApiClient client(server.config(), kube::ApiClient::Timeouts{10000ms, 10000ms});
  ASSERT_EQ(client.get("/api/v1/pods/a").status, 200);
  auto r = client.get("/api/v1/pods/a");
  EXPECT_EQ(r.status, 200) << r.describe();
  EXPECT_EQ(server.requests(), 3);
}

// The same close under a POST: the server read it and may have acted on it (a Binding), so it is not
// sent twice; the caller gets the failure in words.
TEST(ApiClient, APostTheServerClosedItsConnectionOnIsNotSentTwice) {
  ClosesOnSecondRequest server;
  kube::ApiClient client(server.config(), kube::ApiClient::Timeouts{10000ms, 10000ms});
  ASSERT_EQ(client.get("/api/v1/pods/a").status, 200);
  auto r = client.post("/api/v1/namespaces/ml/pods/a/binding", "{}", 10000ms);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.describe().find("connection closed"), std::string::npos) << r.describe();
  EXPECT_EQ(server.requests(), 2);
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
