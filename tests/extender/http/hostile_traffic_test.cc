// Hostile and faulty clients never stop the scheduler's requests: stalled uploads, trickled headers,
// idle keep-alives, connection floods, oversized declarations, clients that do not read. Each bound of
// the transport is shown at work, with the refusal the client sees and the metric that counts it.
// Liveness bounds here are generous (seconds): these are not benchmarks.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "tests/support/extender_process.h"
#include "tests/support/raw_client.h"
#include "tests/support/test_server.h"
#include "tests/support/wait.h"

namespace kext::testing {
namespace hostile_traffic_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Under ASan and TSan every byte the program touches has shadow bytes too (TSan: 4 and more), so the
// process's RSS grows by a multiple of what the extender itself holds.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr long kShadowFactor = 8;
#else
constexpr long kShadowFactor = 1;
#endif

std::string filter_body() { return read_file(fixture_path("default/0001-filter--low-1-first.json")); }

void raise_descriptor_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

// A gauge or counter's value from GET /metrics on its own connection; -1 when absent.
long metric(int port, const std::string& series) {
  RawConnection c(port);
  if (!c.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")) return -1;
  const std::string text = body_of(c.read_response());
  const size_t at = text.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::atol(text.c_str() + at + series.size() + 2);
}

// One filter on its own fresh connection: status and seconds taken.
std::pair<int, double> timed_filter(int port, RawConnection* kept = nullptr) {
  const auto start = Clock::now();
  RawConnection fresh(port);
  RawConnection& c = kept ? *kept : fresh;
  if (!c.send(post_request("/filter", filter_body()))) return {0, 0};
  const std::string reply = c.read_response(10s);
  return {status_of(reply), std::chrono::duration<double>(Clock::now() - start).count()};
}

TEST(HostileTraffic, SchedulerIsServedThroughStalledTricklingAndIdleClients) {
  raise_descriptor_limit();
  ExtenderProcess extender({"--snapshot", fixture_path("cluster.json")});
  ASSERT_GT(extender.port(), 0) << extender.log();
  const int port = extender.port();

  RawConnection scheduler(port);  // the scheduler's kept-alive connection, opened before the attack
  ASSERT_EQ(timed_filter(port, &scheduler).first, 200);
  const auto [rss_before, threads_before] = rss_and_threads(extender.pid());

  // 500 idle keep-alives: one request each, then silence. One at a time: 500 requests at once would
  // meet --max-queued-requests (256) whenever the workers fall behind, and get its 503.
  std::vector<RawConnection> idle;
  for (int i = 0; i < 500; ++i) {
    idle.emplace_back(port);
    ASSERT_TRUE(idle.back().send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_EQ(status_of(idle.back().read_response()), 200);
  }
  // 200 uploads that declare 100000 bytes, send one, and stall.
  std::vector<RawConnection> stalled;
  for (int i = 0; i < 200; ++i) {
    stalled.emplace_back(port);
    ASSERT_TRUE(
        stalled.back().send("POST /filter HTTP/1.1\r\nHost: x\r\nContent-Type: "
                            "application/json\r\nContent-Length: 100000\r\n\r\n{"));
  }
  // 50 clients that trickle their headers a byte at a time, for as long as the test runs.
  std::vector<RawConnection> trickling;
  for (int i = 0; i < 50; ++i) trickling.emplace_back(port);
  std::mutex done_mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::atomic<size_t> trickled{0};  // bytes sent to each trickling connection
  std::thread trickler([&] {
    const std::string headers = "POST /filter HTTP/1.1\r\nHost: x\r\nX-Padding: " + std::string(400, 'a');
    std::unique_lock lock(done_mutex);
    for (size_t i = 0; i < headers.size() && !done; ++i) {
      for (auto& c : trickling) c.send(std::string_view(&headers[i], 1));
      trickled = i + 1;
      done_cv.wait_for(lock, 20ms, [&] { return done; });  // the trickle's pace
    }
  });

  // Every attacker connected (and the connection asking) and trickling.
  const long connections = 1 + 500 + 200 + 50 + 1;
  EXPECT_TRUE(wait_until(
      [&] { return trickled >= 2 && metric(port, "kube_extender_http_open_connections") >= connections; }));
  const auto [fresh_status, fresh_seconds] = timed_filter(port);
  const auto [kept_status, kept_seconds] = timed_filter(port, &scheduler);
  const auto [rss_during, threads_during] = rss_and_threads(extender.pid());
  {
    std::lock_guard lock(done_mutex);
    done = true;
  }
  done_cv.notify_all();
  trickler.join();

  EXPECT_EQ(fresh_status, 200);
  EXPECT_LT(fresh_seconds, 2.0);
  EXPECT_EQ(kept_status, 200);
  EXPECT_LT(kept_seconds, 2.0);
  // No thread per connection, and 750 connections cost little memory.
  EXPECT_LE(threads_during, threads_before + 1) << "threads " << threads_before << " -> " << threads_during;
  EXPECT_LT(rss_during - rss_before, 64 * 1024 * kShadowFactor)
      << "RSS KiB " << rss_before << " -> " << rss_during;
  std::cerr << "[ info ] 200 stalled + 50 trickling + 500 idle: filter on a fresh connection "
            << fresh_seconds * 1000 << " ms, on the kept-alive one " << kept_seconds * 1000 << " ms; RSS "
            << rss_before << " -> " << rss_during << " KiB; threads " << threads_before << " -> "
            << threads_during << "\n";
}

ServerConfig limits(std::function<void(TransportLimits&)> set) {
  ServerConfig c;
  set(c.limits);
  return c;
}

std::string metrics_text(TestServer& server) {
  auto res = server.client().Get("/metrics");
  return res ? res->body : std::string();
}

TEST(HostileTraffic, StalledUploadGets408AtTheRequestDeadline) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()),
                    limits([](TransportLimits& l) { l.request_timeout = 1s; }));
  RawConnection stalled(server.port());
  ASSERT_TRUE(stalled.send("POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"));
  const auto start = Clock::now();
  const std::string reply = stalled.read_to_close(5s);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(status_of(reply), 408) << reply;
  EXPECT_NE(body_of(reply).find("\"Error\""), std::string::npos) << reply;
  EXPECT_GT(seconds, 0.8);
  EXPECT_LT(seconds, 3.0);
  EXPECT_NE(metrics_text(server).find("kube_extender_http_timeouts_total{cause=\"request\"} 1"),
            std::string::npos);
}

TEST(HostileTraffic, TrickledRequestIsCutAtTheDeadlineOfTheWholeRequest) {
  // A byte at a time, each within the per-read timeout, never lets it fire; the whole-request deadline does.
  TestServer server(fixture_cluster(), std::string(default_policy_json()),
                    limits([](TransportLimits& l) { l.request_timeout = 1s; }));
  RawConnection slow(server.port());
  const std::string request = post_request("/filter", filter_body());
  const auto start = Clock::now();
  std::string reply;
  for (size_t i = 0; i < 40 && reply.empty(); ++i) {
    slow.send(std::string_view(&request[i], 1));
    reply = slow.read_until(&RawConnection::complete_response, 200ms);
  }
  EXPECT_EQ(status_of(reply), 408) << reply;
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 4.0);
}

TEST(HostileTraffic, SilentNewConnectionIsClosedAtTheRequestDeadline) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()),
                    limits([](TransportLimits& l) { l.request_timeout = 1s; }));
  RawConnection silent(server.port());
  EXPECT_TRUE(silent.closed_within(4s));
}

TEST(HostileTraffic, IdleKeepAliveIsClosedAfterTheIdleTimeoutNotTheRequestTimeout) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()), limits([](TransportLimits& l) {
                      l.request_timeout = 500ms;
                      l.idle_timeout = 2s;
                    }));
  RawConnection c(server.port());
  ASSERT_TRUE(c.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_EQ(status_of(c.read_response()), 200);
  EXPECT_FALSE(c.closed_within(1000ms));  // past the request timeout: idle is not a stalled request
  EXPECT_TRUE(c.closed_within(3s));
}

TEST(HostileTraffic, ConnectionsBeyondTheCapGet503) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()),
                    limits([](TransportLimits& l) { l.max_connections = 8; }));
  server.client().Get("/healthz");  // the test client's own keep-alive connection is one of the 8
  std::vector<RawConnection> held;
  for (int i = 0; i < 7; ++i) {
    held.emplace_back(server.port());
    ASSERT_TRUE(held.back().send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_EQ(status_of(held.back().read_response()), 200);
  }
  RawConnection extra(server.port());
  const std::string refused = extra.read_to_close(3s);
  EXPECT_EQ(status_of(refused), 503) << refused;
  EXPECT_NE(refused.find("Retry-After: 1"), std::string::npos);
  EXPECT_NE(body_of(refused).find("--max-connections"), std::string::npos);
  held.pop_back();  // one leaves: room for one more, once the server has seen it go
  EXPECT_TRUE(wait_until([&] {
    return metrics_text(server).find("kube_extender_http_open_connections 7\n") != std::string::npos;
  }));
  RawConnection next(server.port());
  ASSERT_TRUE(next.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(status_of(next.read_response()), 200);
  EXPECT_NE(metrics_text(server).find("kube_extender_http_refusals_total{cause=\"connections\"} 1"),
            std::string::npos);
}

TEST(HostileTraffic, OversizedDeclarationsAreRefusedUnread) {
  TestServer server(fixture_cluster());
  RawConnection huge(server.port());
  ASSERT_TRUE(huge.send("POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000000\r\n\r\n{"));
  const std::string reply = huge.read_to_close(3s);
  EXPECT_EQ(status_of(reply), 413) << reply;
  EXPECT_NE(body_of(reply).find("--max-body-bytes"), std::string::npos);

  RawConnection headers(server.port());
  ASSERT_TRUE(headers.send("GET /healthz HTTP/1.1\r\nX-Big: " + std::string(40000, 'a')));
  const std::string reply431 = headers.read_to_close(3s);
  EXPECT_EQ(status_of(reply431), 431) << reply431.substr(0, 200);

  const std::string metrics = metrics_text(server);
  EXPECT_NE(metrics.find("kube_extender_http_refusals_total{cause=\"body_too_large\"} 1"), std::string::npos);
  EXPECT_NE(metrics.find("kube_extender_http_refusals_total{cause=\"header_too_large\"} 1"),
            std::string::npos);
}

TEST(HostileTraffic, BufferedBytesAreBoundedAcrossConnections) {
  TestServer server(fixture_cluster(), std::string(default_policy_json()),
                    limits([](TransportLimits& l) { l.max_buffered_bytes = 120'000; }));
  const std::string head = "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 80000\r\n\r\n";
  RawConnection a(server.port()), b(server.port());
  ASSERT_TRUE(a.send(head + std::string(60000, ' ')));
  // What the first upload sent is held for it.
  ASSERT_TRUE(wait_until([&] { return server.server().buffered_bytes() >= 60000; }));
  b.send(head + std::string(60000, ' '));
  const std::string refused = b.read_to_close(3s);
  EXPECT_EQ(status_of(refused), 503) << refused;
  EXPECT_NE(refused.find("Retry-After"), std::string::npos);
  // The scheduler's small request still fits beside the first upload.
  auto res = server.post("/filter", filter_body());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

// A bind handler that blocks until released: a request that holds its worker.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  int entered = 0;
  Reply wait() {
    std::unique_lock lock(m);
    ++entered;
    cv.notify_all();
    cv.wait_for(lock, 10s, [this] { return open; });
    return Reply{200, "{\"Error\":\"\"}"};
  }
  void release() {
    std::lock_guard lock(m);
    open = true;
    cv.notify_all();
  }
  bool wait_entered(int n) {
    std::unique_lock lock(m);
    return cv.wait_for(lock, 5s, [&] { return entered >= n; });
  }
};

TEST(HostileTraffic, FullQueueGets503WithRetryAfter) {
  Gate gate;
  TestServer server(fixture_cluster(), std::string(default_policy_json()), limits([](TransportLimits& l) {
                      l.threads = 1;
                      l.max_queued_requests = 1;
                    }),
                    [&gate](std::string_view) { return gate.wait(); });
  const std::string bind =
      post_request("/bind", R"({"PodName":"p","PodNamespace":"d","PodUID":"u","Node":"n"})");
  RawConnection running(server.port()), queued(server.port()), refused(server.port());
  ASSERT_TRUE(running.send(bind));
  ASSERT_TRUE(gate.wait_entered(1));
  ASSERT_TRUE(queued.send(bind));
  ASSERT_TRUE(wait_until([&] { return server.server().queued_requests() == 1; }));
  ASSERT_TRUE(refused.send(bind));
  const std::string reply = refused.read_to_close(3s);
  EXPECT_EQ(status_of(reply), 503) << reply;
  EXPECT_NE(reply.find("Retry-After: 1"), std::string::npos);
  EXPECT_NE(body_of(reply).find("--max-queued-requests"), std::string::npos);
  gate.release();
  EXPECT_EQ(status_of(running.read_response()), 200);
  EXPECT_EQ(status_of(queued.read_response()), 200);
}

TEST(HostileTraffic, ClientThatDoesNotReadItsReplyHoldsNoWorker) {
  // One worker; a reply of tens of megabytes to a client that never reads it. The worker moves the rest of
  // the reply to the reactor and is free for the next request.
  std::atomic<bool> answered{false};
  TestServer server(fixture_cluster(), std::string(default_policy_json()),
                    limits([](TransportLimits& l) { l.threads = 1; }), [&answered](std::string_view) {
                      answered = true;
                      return Reply{200, std::string(48u << 20, ' ')};
                    });
  RawConnection reader(server.port());
  ASSERT_TRUE(reader.send(post_request("/bind", "{}")));
  // The reply is made and the worker has given what it could not send to the reactor.
  ASSERT_TRUE(wait_until([&] { return answered && server.server().in_flight() == 0; }));
  const auto [status, seconds] = timed_filter(server.port());
  EXPECT_EQ(status, 200);
  // A held worker would answer only after the write timeout; the bound leaves room for the reply
  // being made and handed over on a loaded 2-core machine under ASan.
  EXPECT_LT(seconds, 5.0);
  const std::string reply = reader.read_response(20s);  // now it reads: the whole reply is there
  EXPECT_EQ(status_of(reply), 200);
  EXPECT_EQ(body_of(reply).size(), 48u << 20);
}

TEST(HostileTraffic, ExpectContinuePipeliningAndHalfClose) {
  TestServer server(fixture_cluster());
  const std::string body = filter_body();
  {
    RawConnection c(server.port());
    std::string head = post_request("/filter", body, "Expect: 100-continue\r\n");
    head.resize(head.size() - body.size());
    ASSERT_TRUE(c.send(head));
    const std::string interim =
        c.read_until([](const std::string& s) { return s.find("\r\n\r\n") != s.npos; }, 2s);
    EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
    ASSERT_TRUE(c.send(body));
    const std::string reply = c.read_response();
    EXPECT_EQ(status_of(reply), 200) << reply.substr(0, 300);
  }
  {
    RawConnection c(server.port());
    ASSERT_TRUE(c.send(post_request("/filter", body) + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    std::string both = c.read_response();
    const size_t first_size = RawConnection::response_size(both);
    EXPECT_EQ(status_of(both), 200);
    std::string second = both.substr(first_size);
    if (!RawConnection::complete_response(second)) second += c.read_response();
    EXPECT_EQ(status_of(second), 200) << second;
    EXPECT_EQ(body_of(second), "ok");
  }
  {
    RawConnection c(server.port());
    ASSERT_TRUE(c.send(post_request("/filter", body)));
    c.shutdown_write();
    const std::string reply = c.read_to_close();
    EXPECT_EQ(status_of(reply), 200) << reply.substr(0, 300);
  }
}

TEST(HostileTraffic, MalformedRequestGets400AndTheServerKeepsServing) {
  TestServer server(fixture_cluster());
  for (std::string junk : {std::string("hello\r\n\r\n"), std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
                           post_request("/filter", "{}", "Transfer-Encoding: chunked\r\n")}) {
    RawConnection c(server.port());
    ASSERT_TRUE(c.send(junk));
    const std::string reply = c.read_to_close(3s);
    EXPECT_EQ(status_of(reply), 400) << junk;
    EXPECT_NE(body_of(reply).find("\"Error\""), std::string::npos);
  }
  auto res = server.post("/filter", filter_body());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(MetricsPort, ServesMetricsAndProbesButNoVerbs) {
  ServerConfig config;
  config.metrics_port = 0;
  TestServer server(fixture_cluster(), std::string(default_policy_json()), config);
  ASSERT_GT(server.server().metrics_port(), 0);
  ASSERT_NE(server.server().metrics_port(), server.port());
  httplib::Client metrics("127.0.0.1", server.server().metrics_port());
  for (const char* path : {"/metrics", "/healthz", "/readyz"}) {
    auto res = metrics.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path;
  }
  EXPECT_NE(metrics.Get("/metrics")->body.find("kube_extender_http_open_connections"), std::string::npos);
  for (const char* path : {"/filter", "/prioritize", "/preempt", "/bind"}) {
    auto res = metrics.Post(path, filter_body(), "application/json");
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path;
  }
  auto debug = metrics.Get("/debug/decisions");
  ASSERT_TRUE(debug);
  EXPECT_EQ(debug->status, 404);
  // The verb port keeps everything, for compatibility.
  EXPECT_EQ(server.client().Get("/metrics")->status, 200);
  EXPECT_EQ(server.post("/filter", filter_body())->status, 200);
}

}  // namespace
}  // namespace hostile_traffic_test
}  // namespace kext::testing
