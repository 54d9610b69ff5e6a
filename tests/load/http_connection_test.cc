// The load tool's HTTP/1.1 client against a scripted peer: keep-alive reuse, the reply framings a
// server may choose (Content-Length, chunked, to the end of the connection), a server that closes an
// idle connection, and each failure kind.
#include "load/http_connection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/wait.h"

namespace kext::testing {
namespace http_connection_test {
namespace {

using load::HttpConnection;
using load::HttpFailure;
using load::HttpReply;

// Accepts connections one after another; answers each request read from them with the next scripted
// reply; closes the connection after a reply whose `close_after` is set. Records every request.
class ScriptedPeer {
 public:
  struct Reply {
    std::string bytes;
    bool close_after = false;
  };

  explicit ScriptedPeer(std::vector<Reply> replies) : replies_(std::move(replies)) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(listener_, 4);
    socklen_t len = sizeof addr;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~ScriptedPeer() {
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    thread_.join();
  }

  int port() const { return port_; }
  int connections() const { return connections_.load(); }
  int closed() const { return closed_.load(); }                           // connections this peer has closed
  const std::vector<std::string>& requests() const { return requests_; }  // read after the exchanges

 private:
  void run() {
    size_t next = 0;
    while (next < replies_.size()) {
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      ++connections_;
      std::string in;
      bool open = true;
      while (open && next < replies_.size()) {
        size_t end;
        char buf[65536];
        while ((end = in.find("\r\n\r\n")) == std::string::npos ||
               in.size() < end + 4 + content_length(in, end)) {
          const ssize_t n = recv(fd, buf, sizeof buf, 0);
          if (n <= 0) {
            open = false;
            break;
          }
          in.append(buf, static_cast<size_t>(n));
        }
        if (!open) break;
        const size_t total = end + 4 + content_length(in, end);
        requests_.push_back(in.substr(0, total));
        in.erase(0, total);
        const Reply& r = replies_[next++];
        send(fd, r.bytes.data(), r.bytes.size(), MSG_NOSIGNAL);
        open = !r.close_after;
      }
      close(fd);
      ++closed_;
    }
    // Every reply is used: keep accepting (and holding) connections until the destructor.
    for (int fd; (fd = accept(listener_, nullptr, nullptr)) >= 0;) held_.push_back(fd);
  }

  static size_t content_length(const std::string& in, size_t head_end) {
    const size_t at = in.find("Content-Length: ");
    if (at == std::string::npos || at > head_end) return 0;
    return std::stoul(in.substr(at + 16));
  }

  std::vector<Reply> replies_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> connections_{0};
  std::atomic<int> closed_{0};
  std::vector<std::string> requests_;
  std::vector<int> held_;
  std::thread thread_;
};

std::string ok(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(HttpConnection, KeepAliveReusesOneConnectionAndSendsTheExactBody) {
  const std::string big(3 << 20, 'x');  // larger than any socket buffer: the body arrives in pieces
  ScriptedPeer peer({{ok("{\"a\":1}")}, {ok(big)}, {ok("")}});
  HttpConnection c("127.0.0.1", peer.port(), std::chrono::seconds(5));
  HttpReply reply;
  const std::string body = "{\"Pod\":{}}";
  ASSERT_EQ(c.post("/filter", body, "application/json", reply), HttpFailure::kNone);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "{\"a\":1}");
  ASSERT_EQ(c.post("/prioritize", big, "application/json", reply), HttpFailure::kNone);
  EXPECT_EQ(reply.body.size(), big.size());
  EXPECT_EQ(reply.body, big);
  ASSERT_EQ(c.get("/healthz", reply), HttpFailure::kNone);
  EXPECT_EQ(reply.body, "");
  EXPECT_EQ(peer.connections(), 1);
  ASSERT_EQ(peer.requests().size(), 3u);
  EXPECT_EQ(peer.requests()[2], "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(peer.port()) +
                                    "\r\nUser-Agent: extender-load\r\n\r\n");
  EXPECT_EQ(peer.requests()[0].rfind("POST /filter HTTP/1.1\r\n", 0), 0u);
  EXPECT_NE(peer.requests()[0].find("Content-Type: application/json\r\n"), std::string::npos);
  EXPECT_NE(peer.requests()[0].find("\r\n\r\n" + body), std::string::npos);
  EXPECT_EQ(peer.requests()[1].size(), peer.requests()[1].find("\r\n\r\n") + 4 + big.size());
}

TEST(HttpConnection, ChunkedRepliesAreReassembled) {
  ScriptedPeer peer({{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                      "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n"},
                     {ok("next")}});
  HttpConnection c("127.0.0.1", peer.port(), std::chrono::seconds(5));
  HttpReply reply;
  ASSERT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kNone);
  EXPECT_EQ(reply.body, "hello world");
  ASSERT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kNone);
  EXPECT_EQ(reply.body, "next");  // the chunked reply was consumed exactly
  EXPECT_EQ(peer.connections(), 1);
}

TEST(HttpConnection, AReplyWithoutLengthRunsToTheEndOfTheConnection) {
  ScriptedPeer peer({{"HTTP/1.0 404 Not Found\r\n\r\n{\"Error\":\"no\"}", true}, {ok("again")}});
  HttpConnection c("127.0.0.1", peer.port(), std::chrono::seconds(5));
  HttpReply reply;
  ASSERT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kNone);
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.body, "{\"Error\":\"no\"}");
  ASSERT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kNone);
  EXPECT_EQ(reply.body, "again");
  EXPECT_EQ(peer.connections(), 2);
}

TEST(HttpConnection, AnIdleConnectionTheServerClosedIsReopenedOnce) {
  // The server closes after the first reply without saying so (as a keep-alive timeout does).
  ScriptedPeer peer({{ok("one"), true}, {ok("two")}});
  HttpConnection c("127.0.0.1", peer.port(), std::chrono::seconds(5));
  HttpReply reply;
  ASSERT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kNone);
  ASSERT_TRUE(wait_until([&] { return peer.closed() == 1; }));
  ASSERT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kNone);
  EXPECT_EQ(reply.body, "two");
  EXPECT_EQ(peer.connections(), 2);
}

TEST(HttpConnection, FailuresAreClassified) {
  HttpReply reply;
  {
    ScriptedPeer peer({{"garbage\r\n\r\n"}});
    HttpConnection c("127.0.0.1", peer.port(), std::chrono::seconds(5));
    EXPECT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kTransport);
  }
  {
    ScriptedPeer peer({{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", true}});
    HttpConnection c("127.0.0.1", peer.port(), std::chrono::seconds(5));
    EXPECT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kTransport);
  }
  {
    ScriptedPeer peer({});  // accepts and never answers
    HttpConnection c("127.0.0.1", peer.port(), std::chrono::milliseconds(200));
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kTimeout);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));
  }
  int port = 0;
  {
    ScriptedPeer gone({});
    port = gone.port();
  }
  HttpConnection c("127.0.0.1", port, std::chrono::seconds(1));
  EXPECT_EQ(c.post("/filter", "{}", "application/json", reply), HttpFailure::kConnect);
}

}  // namespace
}  // namespace http_connection_test
}  // namespace kext::testing
