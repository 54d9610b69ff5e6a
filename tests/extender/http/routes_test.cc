// Every request goes through one path: the transport frames it, the Router runs its route's handler,
// the reply writer writes the reply. The bytes on the wire are pinned here, whole. A verb's reply is
// what cpp-httplib 0.11, which served these routes before, wrote for the same request (status line,
// headers in its case-insensitive order, Keep-Alive), so the scheduler and curl see the same replies.
#include <gtest/gtest.h>
#include <zlib.h>

#include <charconv>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "extender/http/reply_writer.h"
#include "extender/http/router.h"
#include "extender/http/transport.h"
#include "tests/support/raw_client.h"
#include "tests/support/served_transport.h"
#include "tests/support/wait.h"

namespace kext {
namespace routes_test {
namespace {

constexpr const char* kType = "application/json; charset=utf-8";
constexpr const char* kKeepAlive = "Keep-Alive: timeout=120, max=18446744073709551615\r\n";

// POST /v/echo answers with the status its body names (the first three bytes) and echoes what the
// handler saw; GET /v/echo answers "got", GET /v/text a compressible text, GET /v/throw throws.
void echo_routes(Router& router) {
  router.post("/v/echo", [](Exchange& x) {
    const HttpRequest& req = x.request;
    int status = 200;
    std::from_chars(req.body.data(), req.body.data() + std::min<size_t>(3, req.body.size()), status);
    x.response.set(status, kType,
                   "{\"path\":\"" + std::string(req.path) + "\",\"type\":\"" +
                       std::string(req.header("Content-Type").value_or("<none>")) + "\",\"length\":\"" +
                       std::string(req.header("Content-Length").value_or("")) + "\",\"body\":\"" +
                       std::string(req.body) + "\"}");
  });
  router.get("/v/echo", [](Exchange& x) { x.response.set(200, "text/plain", "got"); });
  router.get("/v/text", [](Exchange& x) { x.response.set(200, "text/plain", std::string(2000, 't')); });
  router.get("/v/throw", [](Exchange&) -> void { throw std::runtime_error("boom"); });
}

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

// The echo route's JSON reply as written on a kept connection (or closing: "Connection: close").
std::string echo_reply(const std::string& status_line, const std::string& path, const std::string& type,
                       const std::string& length, const std::string& body, bool closing = false) {
  const std::string json = "{\"path\":\"" + path + "\",\"type\":\"" + type + "\",\"length\":\"" + length +
                           "\",\"body\":\"" + body + "\"}";
  return "HTTP/1.1 " + status_line + "\r\n" + (closing ? "Connection: close\r\n" : "") +
         "Content-Length: " + std::to_string(json.size()) + "\r\nContent-Type: " + kType + "\r\n" +
         (closing ? "" : kKeepAlive) + "\r\n" + json;
}

std::string json_error(const std::string& status_line, const std::string& message, bool closing = false) {
  const std::string json = "{\"Error\":\"" + message + "\"}";
  return "HTTP/1.1 " + status_line + "\r\n" + (closing ? "Connection: close\r\n" : "") +
         "Content-Length: " + std::to_string(json.size()) + "\r\nContent-Type: " + kType + "\r\n" +
         (closing ? "" : kKeepAlive) + "\r\n" + json;
}

struct Case {
  const char* name;
  std::string request;
  std::string reply;
};

TEST(Routes, AVerbReplyIsWrittenByteForByte) {
  testing::ServedTransport served(TransportLimits{}, echo_routes);
  EXPECT_EQ(exchange(served.port(), post("/v/echo", "Content-Type: application/json\r\n", "200 {}")),
            "HTTP/1.1 200 OK\r\n"
            "Content-Length: 73\r\n"
            "Content-Type: application/json; charset=utf-8\r\n"
            "Keep-Alive: timeout=120, max=18446744073709551615\r\n"
            "\r\n"
            "{\"path\":\"/v/echo\",\"type\":\"application/json\",\"length\":\"6\",\"body\":\"200 {}\"}");
}

TEST(Routes, RequestsAreReadAndAnsweredAsBefore) {
  testing::ServedTransport served(TransportLimits{}, echo_routes);
  const std::string json = "Content-Type: application/json\r\n";
  const std::string app = "application/json";
  std::vector<Case> cases = {
      {"no content type", post("/v/echo", "", "200"), echo_reply("200 OK", "/v/echo", "<none>", "3", "200")},
      {"header names in any case", post("/v/echo", "content-TYPE: application/json\r\nX-A: b\r\n", "200"),
       echo_reply("200 OK", "/v/echo", app, "3", "200")},
      {"values trimmed", post("/v/echo", "Content-Type: \t application/json  \r\n", "200"),
       echo_reply("200 OK", "/v/echo", app, "3", "200")},
      {"go client headers: JSON is never gzipped",
       post("/v/echo", "User-Agent: Go-http-client/1.1\r\n" + json + "Accept-Encoding: gzip\r\n", "200"),
       echo_reply("200 OK", "/v/echo", app, "3", "200")},
      {"expect continue, body already sent", post("/v/echo", json + "Expect: 100-continue\r\n", "200"),
       echo_reply("200 OK", "/v/echo", app, "3", "200")},
      {"empty body", post("/v/echo", json, ""), echo_reply("200 OK", "/v/echo", app, "0", "")},
      {"query", post("/v/echo?x=1", json, "200"), echo_reply("200 OK", "/v/echo", app, "3", "200")},
      {"percent-encoded path", post("/v/%65cho", json, "200"),
       echo_reply("200 OK", "/v/echo", app, "3", "200")},
      {"percent in a value", post("/v/echo", "Content-Type: application/json%3B\r\n", "200"),
       echo_reply("200 OK", "/v/echo", "application/json%3B", "3", "200")},
      {"two content types: the first", post("/v/echo", json + "Content-Type: text/plain\r\n", "200"),
       echo_reply("200 OK", "/v/echo", app, "3", "200")},
      {"range is ignored", post("/v/echo", json + "Range: bytes=0-3\r\n", "200"),
       echo_reply("200 OK", "/v/echo", app, "3", "200")},
      {"connection keep-alive", post("/v/echo", json + "Connection: keep-alive\r\n", "200"),
       echo_reply("200 OK", "/v/echo", app, "3", "200")},
      {"chunked",
       "POST /v/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
       "chunked\r\n\r\n2;x=y\r\n20\r\n1\r\n0\r\n0\r\n\r\n",
       echo_reply("200 OK", "/v/echo", "<none>", "", "200")},
      {"GET", "GET /v/echo HTTP/1.1\r\nHost: x\r\n\r\n",
       std::string("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n") + kKeepAlive +
           "\r\ngot"},
      {"other path", post("/v/echo/", json, "200"),
       json_error("404 Not Found", "no such path: POST /v/echo/")},
      {"other method", "DELETE /v/echo HTTP/1.1\r\nHost: x\r\n\r\n",
       json_error("404 Not Found", "no such path: DELETE /v/echo")},
      {"a method no route may have", "TRACE /v/echo HTTP/1.1\r\nHost: x\r\n\r\n",
       json_error("400 Bad Request", "HTTP error 400")},
      {"a handler that throws", "GET /v/throw HTTP/1.1\r\nHost: x\r\n\r\n",
       json_error("500 Internal Server Error", "internal error: boom")},
  };
  for (const auto& [code, phrase] :
       std::vector<std::pair<std::string, std::string>>{{"400", "Bad Request"},
                                                        {"404", "Not Found"},
                                                        {"405", "Method Not Allowed"},
                                                        {"413", "Payload Too Large"},
                                                        {"415", "Unsupported Media Type"},
                                                        {"421", "Misdirected Request"},
                                                        {"422", "Unprocessable Entity"},
                                                        {"429", "Too Many Requests"},
                                                        {"500", "Internal Server Error"},
                                                        {"503", "Service Unavailable"},
                                                        {"599", "Internal Server Error"}}) {
    cases.push_back(
        {"status", post("/v/echo", json, code), echo_reply(code + " " + phrase, "/v/echo", app, "3", code)});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + std::string(": ") + c.request);
    EXPECT_EQ(exchange(served.port(), c.request), c.reply);
  }
}

TEST(Routes, ARequestThatClosesGetsConnectionCloseAndTheCloseFollows) {
  testing::ServedTransport served(TransportLimits{}, echo_routes);
  const std::string json = "Content-Type: application/json\r\n";
  for (const auto& [name, request] : std::vector<std::pair<std::string, std::string>>{
           {"connection close", post("/v/echo", json + "Connection: close\r\n", "200")},
           {"HTTP/1.0", post("/v/echo", json, "200", "HTTP/1.0")}}) {
    SCOPED_TRACE(name);
    testing::RawConnection c(served.port());
    ASSERT_TRUE(c.send(request));
    EXPECT_EQ(c.read_to_close(std::chrono::seconds(5)),
              echo_reply("200 OK", "/v/echo", "application/json", "3", "200", true));
  }
  // A header line without a colon: refused by the framer before any route, and closed.
  testing::RawConnection broken(served.port());
  ASSERT_TRUE(broken.send(post("/v/echo", json + "Broken\r\n", "200")));
  EXPECT_EQ(broken.read_to_close(std::chrono::seconds(5)),
            json_error("400 Bad Request", "malformed HTTP header line", true));
}

TEST(Routes, HeadIsAGetWithoutItsBody) {
  testing::ServedTransport served(TransportLimits{}, echo_routes);
  testing::RawConnection c(served.port());
  ASSERT_TRUE(c.send("HEAD /v/echo HTTP/1.1\r\nHost: x\r\n\r\nGET /v/echo HTTP/1.1\r\nHost: x\r\n\r\n"));
  const std::string head =
      std::string("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n") + kKeepAlive +
      "\r\n";
  // The GET's reply right after the HEAD's headers shows the HEAD sent no body.
  const std::string both = c.read_until(
      [&](const std::string& got) { return got.size() >= 2 * head.size() + 3; }, std::chrono::seconds(5));
  EXPECT_EQ(both, head + head + "got");
}

std::string gunzip(const std::string& in) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  std::string out(1 << 16, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}

TEST(Routes, TextIsGzippedForAClientThatAcceptsGzip) {
  testing::ServedTransport served(TransportLimits{}, echo_routes);
  const std::string reply =
      exchange(served.port(), "GET /v/text HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, deflate\r\n\r\n");
  EXPECT_NE(reply.find("\r\nContent-Encoding: gzip\r\n"), std::string::npos) << reply;
  EXPECT_EQ(gunzip(testing::body_of(reply)), std::string(2000, 't'));
  const std::string plain = exchange(served.port(), "GET /v/text HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(plain.find("Content-Encoding"), std::string::npos) << plain;
  EXPECT_EQ(testing::body_of(plain), std::string(2000, 't'));
}

// Records what an ExchangeObserver sees.
class Recorder final : public ExchangeObserver {
 public:
  void on_start(Exchange& x) override { add("start " + std::string(x.request.path)); }
  void on_end(const Exchange& x) override {
    add("end " + std::string(x.request.path) + " " + std::to_string(x.response.status) + " " +
        std::to_string(x.request.body.size()));
  }
  std::vector<std::string> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  void add(std::string s) {
    std::lock_guard lock(mu_);
    seen_.push_back(std::move(s));
  }
  std::mutex mu_;
  std::vector<std::string> seen_;
};

TEST(Routes, TheObserverSeesEveryExchangeRoutedOrNot) {
  Recorder recorder;
  testing::ServedTransport served(TransportLimits{}, [&](Router& r) {
    echo_routes(r);
    r.set_observer(&recorder);
  });
  // on_end runs once the reply is written, which may be after the client has read it.
  exchange(served.port(), post("/v/echo", "", "415 x"));
  EXPECT_TRUE(testing::wait_until([&] { return recorder.seen().size() >= 2; }));
  exchange(served.port(), post("/nowhere", "", "{}"));
  EXPECT_TRUE(testing::wait_until([&] { return recorder.seen().size() >= 4; }));
  EXPECT_EQ(recorder.seen(), (std::vector<std::string>{"start /v/echo", "end /v/echo 415 5", "start /nowhere",
                                                       "end /nowhere 404 2"}));
}

TEST(ReplyWriter, RefusalsCloseAndMayAskForARetry) {
  EXPECT_EQ(refusal_reply(503, "busy", true),
            "HTTP/1.1 503 Service Unavailable\r\n"
            "Connection: close\r\n"
            "Content-Length: 16\r\n"
            "Content-Type: application/json; charset=utf-8\r\n"
            "Retry-After: 1\r\n"
            "\r\n"
            "{\"Error\":\"busy\"}");
}

}  // namespace
}  // namespace routes_test
}  // namespace kext
