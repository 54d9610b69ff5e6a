// SIGTERM on the real binary, and the drain itself: requests in flight finish, idle keep-alive
// connections do not hold the exit.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>

#include "tests/support/extender_process.h"
#include "tests/support/test_server.h"
#include "tests/support/wait.h"

namespace kext::testing {
namespace shutdown_test {
namespace {

using Clock = std::chrono::steady_clock;

TEST(Shutdown, SigtermExitsZeroPromptlyWithAnIdleKeepAliveConnection) {
  ExtenderProcess extender({"--snapshot", fixture_path("cluster.json"), "--shutdown-delay-seconds", "0"});
  ASSERT_GT(extender.port(), 0) << "no start-up line: " << extender.log();
  {
    httplib::Client client("127.0.0.1", extender.port());
    client.set_keep_alive(true);
    auto res = client.Post("/filter", read_file(fixture_path("default/0001-filter--low-1-first.json")),
                           "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    // The connection stays open and idle: a worker sits on it for the 120 s keep-alive timeout.
    const auto t0 = Clock::now();
    ASSERT_EQ(kill(extender.pid(), SIGTERM), 0);
    EXPECT_EQ(extender.wait_exit(std::chrono::seconds(5)), 0);
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(3));
  }
  EXPECT_NE(extender.log().find("SIGTERM, not ready, serving for 0 s more"), std::string::npos)
      << extender.log();
  EXPECT_NE(extender.log().find("draining (grace"), std::string::npos) << extender.log();
  EXPECT_NE(extender.log().find("stopped"), std::string::npos) << extender.log();
}

// A port nothing listens on now (the kernel's pick for an ephemeral bind, released at once).
int free_port() {
  int sock = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(sock);
    return 0;
  }
  close(sock);
  return ntohs(addr.sin_port);
}

int status_of(int port, const char* path, const std::string& body = {}) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(2, 0);
  client.set_read_timeout(5, 0);
  auto res = body.empty() ? client.Get(path) : client.Post(path, body, "application/json");
  return res ? res->status : -1;
}

// Several replicas behind a Service: on SIGTERM the replica turns not ready on every listener first and
// keeps serving the verbs for --shutdown-delay-seconds, then drains and exits 0.
TEST(Shutdown, SigtermTurnsNotReadyFirstAndServesThroughTheDelay) {
  const int metrics_port = free_port();
  ASSERT_GT(metrics_port, 0);
  ExtenderProcess extender({"--snapshot", fixture_path("cluster.json"), "--metrics-port",
                            std::to_string(metrics_port), "--shutdown-delay-seconds", "5"});
  ASSERT_GT(extender.port(), 0) << "no start-up line: " << extender.log();
  const std::string filter = read_file(fixture_path("default/0001-filter--low-1-first.json"));
  ASSERT_EQ(status_of(extender.port(), "/readyz"), 200);
  ASSERT_EQ(status_of(metrics_port, "/readyz"), 200);

  const auto t0 = Clock::now();
  ASSERT_EQ(kill(extender.pid(), SIGTERM), 0);
  ASSERT_TRUE(
      wait_until([&] { return status_of(extender.port(), "/readyz") == 503; }, std::chrono::seconds(2)))
      << extender.log();
  // Still inside the 5 s delay: everything is served (a draining server accepts no connection), only
  // /readyz fails.
  EXPECT_EQ(status_of(metrics_port, "/readyz"), 503);
  EXPECT_EQ(status_of(extender.port(), "/healthz"), 200);
  EXPECT_EQ(status_of(extender.port(), "/filter", filter), 200);

  EXPECT_EQ(extender.wait_exit(std::chrono::seconds(20)), 0) << extender.log();
  EXPECT_GE(Clock::now() - t0, std::chrono::seconds(5));  // the delay was served in full
  EXPECT_NE(extender.log().find("not ready, serving for 5 s more"), std::string::npos) << extender.log();
  EXPECT_NE(extender.log().find("stopped"), std::string::npos) << extender.log();
}

TEST(Shutdown, DrainLetsTheRequestInFlightFinish) {
  TestServer server(fixture_cluster());
  const std::string body = read_file(fixture_path("default/0001-filter--low-1-first.json"));

  int sock = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server.port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  // Headers and half the body: the request is in flight while the server is told to stop.
  const std::string head =
      "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n";
  ASSERT_EQ(send(sock, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  const size_t half = body.size() / 2;
  ASSERT_EQ(send(sock, body.data(), half, 0), static_cast<ssize_t>(half));
  wait_until([&] { return server.server().in_flight() != 0; }, std::chrono::seconds(1));
  ASSERT_EQ(server.server().in_flight(), 1u);

  auto drained = std::async(std::launch::async, [&] { server.server().shutdown(std::chrono::seconds(5)); });
  EXPECT_EQ(drained.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  // No new connections once draining.
  httplib::Client late("127.0.0.1", server.port());
  late.set_connection_timeout(1, 0);
  EXPECT_FALSE(late.Get("/healthz"));

  const size_t rest = body.size() - half;
  ASSERT_EQ(send(sock, body.data() + half, rest, 0), static_cast<ssize_t>(rest));
  std::string reply;
  char buf[4096];
  for (ssize_t n; reply.find("\r\n\r\n") == std::string::npos && (n = recv(sock, buf, sizeof buf, 0)) > 0;) {
    reply.append(buf, static_cast<size_t>(n));
  }
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply.substr(0, 200);
  EXPECT_EQ(drained.wait_for(std::chrono::seconds(3)), std::future_status::ready);
  close(sock);
}

}  // namespace
}  // namespace shutdown_test
}  // namespace kext::testing
