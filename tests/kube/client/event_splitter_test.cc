#include "kube/client/event_splitter.h"

#include <gtest/gtest.h>

namespace kext::kube {
namespace event_splitter_test {
namespace {

std::vector<std::string> split_in_pieces(const std::string& stream, size_t piece) {
  EventSplitter s;
  std::vector<std::string> out;
  for (size_t i = 0; i < stream.size(); i += piece) {
    EXPECT_TRUE(
        s.feed(std::string_view(stream).substr(i, piece), [&](std::string_view e) { out.emplace_back(e); }));
  }
  EXPECT_EQ(s.pending(), 0u);
  return out;
}

TEST(EventSplitter, EventsSurviveAnyChunking) {
  const std::string a = R"({"type":"ADDED","object":{"metadata":{"name":"a}\"{"},"x":[1,{"y":"]"}]}})";
  const std::string b = R"({"type":"DELETED","object":{"k":"\\"}})";
  const std::string stream = a + "\n" + b + "\r\n" + a + b;  // newline-separated or not
  for (size_t piece : {1, 2, 3, 7, 64, 4096}) {
    auto got = split_in_pieces(stream, piece);
    ASSERT_EQ(got.size(), 4u) << "piece " << piece;
    EXPECT_EQ(got[0], a);
    EXPECT_EQ(got[1], b);
    EXPECT_EQ(got[2], a);
    EXPECT_EQ(got[3], b);
  }
}

TEST(EventSplitter, TruncatedStreamLeavesPendingBytes) {
  EventSplitter s;
  int n = 0;
  EXPECT_TRUE(s.feed(R"({"type":"ADDED","object":{"metadata":)", [&](std::string_view) { ++n; }));
  EXPECT_EQ(n, 0);
  EXPECT_GT(s.pending(), 0u);
  s.reset();
  EXPECT_EQ(s.pending(), 0u);
}

TEST(EventSplitter, GarbageAndOversizedEventsAreErrors) {
  EventSplitter s;
  EXPECT_FALSE(s.feed("<html>", [](std::string_view) {}));
  EXPECT_NE(s.error().find("unexpected byte"), std::string::npos);
  EventSplitter small(16);
  EXPECT_FALSE(small.feed(R"({"type":"ADDED","object":{)", [](std::string_view) {}));
  EXPECT_NE(small.error().find("larger than 16"), std::string::npos);
}

}  // namespace
}  // namespace event_splitter_test
}  // namespace kext::kube
