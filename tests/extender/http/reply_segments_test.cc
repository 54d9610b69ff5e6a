// A reply's status line, headers and body leave in one send: one TCP data segment on loopback for a
// small reply, not one for the headers and one for the body (one syscall saved per request). Large replies,
// bodiless replies and kept-alive connections still get every byte.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <thread>

#include "extender/http/router.h"
#include "extender/http/transport.h"
#include "tests/support/served_transport.h"

namespace kext {

int64_t tcp_data_segments_in(int fd);  // tcp_segments.cc

namespace reply_segments_test {
namespace {

// /small: a few kilobytes, /large: megabytes, /empty: 204 without a body.
testing::ServedTransport served_routes() {
  return testing::ServedTransport(TransportLimits{}, [](Router& router) {
    router.get("/small", [](Exchange& x) { x.response.set(200, "text/plain", std::string(3000, 's')); });
    router.get("/large", [](Exchange& x) { x.response.set(200, "text/plain", std::string(3 << 20, 'l')); });
    router.get("/empty", [](Exchange& x) { x.response.status = 204; });
  });
}

// A raw keep-alive client, so the test sees the segments the server sent.
class RawClient {
 public:
  explicit RawClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  }
  ~RawClient() { ::close(fd_); }

  // Sends GET path and reads the whole reply (headers, then Content-Length bytes if any).
  std::string get(const std::string& path) {
    const std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
    EXPECT_EQ(::send(fd_, req.data(), req.size(), 0), static_cast<ssize_t>(req.size()));
    std::string got;
    size_t want = std::string::npos;
    char buf[65536];
    while (want == std::string::npos || got.size() < want) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
      const size_t head_end = got.find("\r\n\r\n");
      if (want == std::string::npos && head_end != std::string::npos) {
        const size_t cl = got.find("Content-Length: ");
        const size_t body = cl == std::string::npos || cl > head_end ? 0 : std::stoul(got.substr(cl + 16));
        want = head_end + 4 + body;
      }
    }
    return got;
  }

  int64_t data_segments_in() const {
    const int64_t n = tcp_data_segments_in(fd_);
    EXPECT_GE(n, 0) << "the kernel does not count data segments";
    return n;
  }

 private:
  int fd_;
};

std::string body_of(const std::string& reply) { return reply.substr(reply.find("\r\n\r\n") + 4); }

TEST(ReplySegments, ASmallReplyIsOneSegment) {
  testing::ServedTransport served = served_routes();
  RawClient client(served.port());
  for (int i = 0; i < 5; ++i) {  // every reply on the kept-alive connection, not just the first
    const int64_t before = client.data_segments_in();
    const std::string reply = client.get("/small");
    EXPECT_EQ(reply.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << reply.substr(0, 40);
    EXPECT_EQ(body_of(reply), std::string(3000, 's'));
    EXPECT_EQ(client.data_segments_in() - before, 1) << "request " << i;
  }
}

TEST(ReplySegments, LargeAndBodilessRepliesArriveWhole) {
  testing::ServedTransport served = served_routes();
  RawClient client(served.port());
  const std::string large = client.get("/large");
  EXPECT_EQ(body_of(large), std::string(3 << 20, 'l'));
  const std::string empty = client.get("/empty");
  EXPECT_EQ(empty.rfind("HTTP/1.1 204 No Content\r\n", 0), 0u) << empty.substr(0, 40);
  EXPECT_EQ(body_of(empty), "");
  EXPECT_EQ(body_of(client.get("/small")), std::string(3000, 's'));
}

}  // namespace
}  // namespace reply_segments_test
}  // namespace kext
