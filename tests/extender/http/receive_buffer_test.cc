#include "extender/http/receive_buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace kext {
namespace receive_buffer_test {
namespace {

// What the transport does with a connection's buffer, step by step, against std::string doing the same.
struct Step {
  enum Kind { kRead, kAppend, kReserve, kConsume, kRelease } kind;
  std::string bytes;  // kRead, kAppend
  size_t n = 0;       // kReserve, kConsume
};

TEST(ReceiveBuffer, HoldsWhatAStringWouldHold) {
  using S = Step;
  const std::string body(5000, 'b');
  struct Case {
    std::string name;
    std::vector<Step> steps;
  };
  const std::vector<Case> cases = {
      {"one read into reserved room", {{S::kReserve, "", 64}, {S::kRead, "POST /filter HTTP/1.1\r\n", 0}}},
      {"reads add up",
       {{S::kReserve, "", 64}, {S::kRead, "abc", 0}, {S::kRead, "def", 0}, {S::kRead, "g", 0}}},
      {"reserve keeps the bytes", {{S::kAppend, "head", 0}, {S::kReserve, "", 10000}, {S::kRead, body, 0}}},
      {"appends grow",
       {{S::kAppend, "a", 0}, {S::kAppend, body, 0}, {S::kAppend, body, 0}, {S::kAppend, "z", 0}}},
      {"a reply consumes its request", {{S::kAppend, "request", 0}, {S::kConsume, "", 7}}},
      {"a pipelined rest moves to the front",
       {{S::kAppend, "first|second", 0},
        {S::kConsume, "", 6},
        {S::kRead, "|third", 0},
        {S::kConsume, "", 7}}},
      {"consume past the end empties it",
       {{S::kAppend, "abc", 0}, {S::kConsume, "", 10}, {S::kAppend, "d", 0}}},
      {"release then reuse", {{S::kAppend, body, 0}, {S::kRelease, "", 0}, {S::kAppend, "again", 0}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ReceiveBuffer buf;
    std::string want;
    for (const Step& s : c.steps) {
      switch (s.kind) {
        case S::kRead:  // as read_some does: write into the spare room, then commit what came
          ASSERT_GE(buf.capacity() - buf.size(), s.bytes.size());
          std::memcpy(buf.spare(), s.bytes.data(), s.bytes.size());
          buf.commit(s.bytes.size());
          want += s.bytes;
          break;
        case S::kAppend:
          buf.append(s.bytes.data(), s.bytes.size());
          want += s.bytes;
          break;
        case S::kReserve:
          buf.reserve(s.n);
          EXPECT_GE(buf.capacity(), s.n);
          break;
        case S::kConsume:
          buf.consume(s.n);
          want.erase(0, s.n);
          break;
        case S::kRelease:
          buf.release();
          want.clear();
          EXPECT_EQ(buf.capacity(), 0u);
          break;
      }
      EXPECT_EQ(std::string_view(buf), want);
      EXPECT_EQ(buf.size(), want.size());
      EXPECT_EQ(buf.empty(), want.empty());
      EXPECT_LE(buf.size(), buf.capacity());
    }
  }
}

TEST(ReceiveBuffer, AMovedFromBufferIsEmpty) {
  ReceiveBuffer a;
  a.append("abc", 3);
  ReceiveBuffer b(std::move(a));
  EXPECT_EQ(std::string_view(b), "abc");
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the state a move leaves is the point
  EXPECT_EQ(a.capacity(), 0u);
  a.append("d", 1);
  EXPECT_EQ(std::string_view(a), "d");
}

}  // namespace
}  // namespace receive_buffer_test
}  // namespace kext
