// Where a request ends, and what is refused before it is read: table-driven over whole requests, then
// the same requests fed one byte at a time (the trickling client).
#include "extender/http/request_framing.h"

#include <gtest/gtest.h>

namespace kext {
namespace request_framing_test {
namespace {

using Status = RequestFramer::Status;

struct Case {
  const char* name;
  std::string bytes;
  Status status;
  size_t end_or_code;  // request_end() when complete, reject_status() when rejected
  bool expect_continue = false;
};

const FrameLimits kLimits{256, 1000};

std::vector<Case> cases() {
  const std::string post = "POST /filter HTTP/1.1\r\nHost: x\r\n";
  return {
      {"get without body", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", Status::kComplete, 34},
      {"content length", post + "Content-Length: 5\r\n\r\nhello", Status::kComplete, post.size() + 26},
      {"pipelined: ends at the first request", post + "Content-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\n\r\n",
       Status::kComplete, post.size() + 23},
      {"body still arriving", post + "Content-Length: 10\r\n\r\nhello", Status::kNeedMore, 0},
      {"headers still arriving", post + "Content-Len", Status::kNeedMore, 0},
      {"lower-case header names", "POST /f HTTP/1.1\r\ncontent-length: 1\r\n\r\nx", Status::kComplete, 40},
      {"chunked", post + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\n\r\n",
       Status::kComplete, post.size() + 30 + 10 + 14 + 5},
      {"chunked with a trailer", post + "Transfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nT: 1\r\n\r\n",
       Status::kComplete, post.size() + 30 + 6 + 3 + 6 + 2},
      {"chunked, last chunk missing", post + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
       Status::kNeedMore, 0},
      {"expect 100-continue", post + "Expect: 100-continue\r\nContent-Length: 3\r\n\r\n", Status::kNeedMore,
       0, true},
      {"declared body over the cap", post + "Content-Length: 1001\r\n\r\n", Status::kRejected, 413},
      {"10 GB declared", post + "Content-Length: 10000000000\r\n\r\n", Status::kRejected, 413},
      {"length beyond 64 bits", post + "Content-Length: 99999999999999999999999\r\n\r\n", Status::kRejected,
       413},
      {"chunked body over the cap", post + "Transfer-Encoding: chunked\r\n\r\n3e9\r\n", Status::kRejected,
       413},
      {"chunk size beyond 64 bits", post + "Transfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\n",
       Status::kRejected, 413},
      {"header block over the cap, unterminated", post + std::string(300, 'a'), Status::kRejected, 431},
      {"header block over the cap, terminated", post + "X: " + std::string(250, 'a') + "\r\n\r\n",
       Status::kRejected, 431},
      {"length and chunked both", post + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
       Status::kRejected, 400},
      {"two different lengths", post + "Content-Length: 3\r\nContent-Length: 4\r\n\r\n", Status::kRejected,
       400},
      {"two equal lengths", post + "Content-Length: 1\r\nContent-Length: 1\r\n\r\nx", Status::kComplete,
       post.size() + 41},
      {"negative length", post + "Content-Length: -1\r\n\r\n", Status::kRejected, 400},
      {"length with junk", post + "Content-Length: 12abc\r\n\r\n", Status::kRejected, 400},
      {"gzip transfer coding", post + "Transfer-Encoding: gzip\r\n\r\n", Status::kRejected, 400},
      {"malformed chunk size", post + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", Status::kRejected, 400},
      {"chunk without its CRLF", post + "Transfer-Encoding: chunked\r\n\r\n1\r\nxy0\r\n\r\n",
       Status::kRejected, 400},
      {"space before colon", post + "Content-Length : 1\r\n\r\nx", Status::kRejected, 400},
      {"folded header", post + "X: a\r\n b\r\n\r\n", Status::kRejected, 400},
      {"not HTTP", "hello there\r\n\r\n", Status::kRejected, 400},
      {"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", Status::kRejected, 400},
  };
}

void check(const Case& c, RequestFramer& f, Status got) {
  ASSERT_EQ(got, c.status) << c.name;
  if (got == Status::kComplete) {
    EXPECT_EQ(f.request_end(), c.end_or_code) << c.name;
  }
  if (got == Status::kRejected) {
    EXPECT_EQ(f.reject_status(), static_cast<int>(c.end_or_code)) << c.name;
    EXPECT_FALSE(f.reject_reason().empty()) << c.name;
  }
  if (c.expect_continue) {
    EXPECT_TRUE(f.headers_done() && f.expects_continue()) << c.name;
  }
}

TEST(RequestFramer, WholeRequests) {
  for (const Case& c : cases()) {
    RequestFramer f(kLimits);
    check(c, f, f.feed(c.bytes));
  }
}

TEST(RequestFramer, OneByteAtATimeGivesTheSameAnswer) {
  for (const Case& c : cases()) {
    RequestFramer f(kLimits);
    Status got = Status::kNeedMore;
    for (size_t n = 1; n <= c.bytes.size() && got == Status::kNeedMore; ++n) {
      got = f.feed(std::string_view(c.bytes).substr(0, n));
    }
    check(c, f, got);
  }
}

TEST(RequestFramer, ResetFramesTheNextRequest) {
  RequestFramer f(kLimits);
  const std::string one = "POST /a HTTP/1.1\r\nContent-Length: 1\r\n\r\nx";
  ASSERT_EQ(f.feed(one + "GET /b HTTP/1.1\r\n\r\n"), Status::kComplete);
  ASSERT_EQ(f.request_end(), one.size());
  f.reset();
  ASSERT_EQ(f.feed("GET /b HTTP/1.1\r\n\r\n"), Status::kComplete);
  EXPECT_EQ(f.request_end(), 19u);
}

}  // namespace
}  // namespace request_framing_test
}  // namespace kext
