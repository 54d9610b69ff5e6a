// Router::serve_direct answers a plain POST to a direct route with the bytes cpp-httplib would have
// written, and passes everything it is not sure of to cpp-httplib. Each request below goes to two
// routers with the same routes, one serving directly and one not, and the replies must be identical.
#include <gtest/gtest.h>

#include <atomic>
#include <charconv>
#include <mutex>
#include <string>
#include <vector>

#include "extender/http/router.h"
#include "extender/http/transport.h"
#include "tests/support/raw_client.h"
#include "tests/support/served_transport.h"

namespace kext {
namespace {

constexpr const char* kType = "application/json; charset=utf-8";

// POST /v/echo answers with the status its body names (the first three bytes) and echoes what the
// handler saw; GET /v/echo and the 404s stay cpp-httplib's.
void echo_routes(Router& router, bool direct) {
  router.set_keep_alive(SIZE_MAX, 120);
  router.set_direct_enabled(direct);
  router.post_direct("/v/echo", kType, [](const DirectRequest& req) {
    int status = 200;
    std::from_chars(req.body.data(), req.body.data() + std::min<size_t>(3, req.body.size()), status);
    std::string body = "{\"path\":\"" + std::string(req.path) + "\",\"type\":\"" +
                       std::string(req.content_type.value_or("<none>")) + "\",\"length\":\"" +
                       std::string(req.content_length) + "\",\"body\":\"" + std::string(req.body) + "\"}";
    return DirectReply{status, std::move(body)};
  });
  router.Get("/v/echo",
             [](const httplib::Request&, httplib::Response& res) { res.set_content("got", "text/plain"); });
}

// Sends `raw` on a new connection and reads one whole reply.
std::string exchange(int port, const std::string& raw) {
  testing::RawConnection c(port);
  EXPECT_TRUE(c.ok() && c.send(raw));
  return c.read_response();
}

std::string post(const std::string& target, const std::string& headers, const std::string& body,
                 const std::string& version = "HTTP/1.1") {
  return "POST " + target + " " + version + "\r\nHost: x\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

struct Case {
  const char* name;
  std::string request;
  bool direct;  // served without cpp-httplib
};

TEST(DirectRoutes, RepliesMatchCppHttplibByteForByte) {
  // Requests each router served directly: the direct observer sees those and no others.
  std::atomic<int> served_direct{0}, httplib_only_direct{0};
  const auto counting = [](std::atomic<int>& n, bool direct) {
    return [&n, direct](Router& r) {
      echo_routes(r, direct);
      r.set_direct_observer([&n](std::string_view) { ++n; }, [](std::string_view, int, size_t) {});
    };
  };
  testing::ServedTransport direct(TransportLimits{}, counting(served_direct, true));
  testing::ServedTransport httplib_only(TransportLimits{}, counting(httplib_only_direct, false));
  const std::string json = "Content-Type: application/json\r\n";
  std::vector<Case> cases = {
      {"plain", post("/v/echo", json, "200 {}"), true},
      {"no content type", post("/v/echo", "", "200"), true},
      {"header names in any case", post("/v/echo", "content-TYPE: application/json\r\nX-A: b\r\n", "200"),
       true},
      {"values trimmed", post("/v/echo", "Content-Type: \t application/json  \r\n", "200"), true},
      {"go client headers",
       post("/v/echo", "User-Agent: Go-http-client/1.1\r\n" + json + "Accept-Encoding: gzip\r\n", "200"),
       true},
      {"expect continue", post("/v/echo", json + "Expect: 100-continue\r\n", "200"), true},
      {"empty body", post("/v/echo", json, ""), true},
      {"400", post("/v/echo", json, "400"), true},
      {"404", post("/v/echo", json, "404"), true},
      {"405", post("/v/echo", json, "405"), true},
      {"413", post("/v/echo", json, "413"), true},
      {"415", post("/v/echo", json, "415"), true},
      {"421", post("/v/echo", json, "421"), true},
      {"422", post("/v/echo", json, "422"), true},
      {"429", post("/v/echo", json, "429"), true},
      {"500", post("/v/echo", json, "500"), true},
      {"503", post("/v/echo", json, "503"), true},
      {"unknown status", post("/v/echo", json, "599"), true},
      // cpp-httplib's: what it reads differently, decodes or refuses.
      {"connection close", post("/v/echo", json + "Connection: close\r\n", "200"), false},
      {"connection keep-alive", post("/v/echo", json + "Connection: keep-alive\r\n", "200"), false},
      {"HTTP/1.0", post("/v/echo", json, "200", "HTTP/1.0"), false},
      {"query", post("/v/echo?x=1", json, "200"), false},
      {"percent-encoded path", post("/v/%65cho", json, "200"), false},
      {"percent in a value", post("/v/echo", "Content-Type: application/json%3B\r\n", "200"), false},
      {"empty value", post("/v/echo", json + "X-Empty:\r\n", "200"), false},
      {"no colon", post("/v/echo", json + "Broken\r\n", "200"), false},
      {"range", post("/v/echo", json + "Range: bytes=0-3\r\n", "200"), false},
      {"two content types", post("/v/echo", json + json, "200"), false},
      {"other path", post("/v/echo/", json, "200"), false},
      {"GET", "GET /v/echo HTTP/1.1\r\nHost: x\r\n\r\n", false},
      {"chunked",
       "POST /v/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n200\r\n0\r\n\r\n", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const int before = served_direct.load();
    const std::string got = exchange(direct.port(), c.request);
    const std::string want = exchange(httplib_only.port(), c.request);
    EXPECT_EQ(got, want);
    EXPECT_EQ(served_direct.load() - before, c.direct ? 1 : 0);
    EXPECT_EQ(want.rfind("HTTP/1.1 ", 0), 0u) << want;
  }
  EXPECT_EQ(httplib_only_direct.load(), 0);
}

TEST(DirectRoutes, ObserverSeesEachDirectRequest) {
  std::vector<std::string> seen;
  std::mutex mu;
  testing::ServedTransport served(TransportLimits{}, [&](Router& r) {
    echo_routes(r, true);
    r.set_direct_observer(
        [&](std::string_view path) {
          std::lock_guard lock(mu);
          seen.push_back("start " + std::string(path));
        },
        [&](std::string_view path, int status, size_t bytes) {
          std::lock_guard lock(mu);
          seen.push_back("end " + std::string(path) + " " + std::to_string(status) + " " +
                         std::to_string(bytes));
        });
  });
  exchange(served.port(), post("/v/echo", "", "415 x"));
  std::lock_guard lock(mu);
  EXPECT_EQ(seen, (std::vector<std::string>{"start /v/echo", "end /v/echo 415 5"}));
}

}  // namespace
}  // namespace kext
