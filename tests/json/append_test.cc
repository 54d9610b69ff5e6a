// json::append_string and write_int write the bytes rapidjson::Writer writes for the same value, so
// a reply written by appending is byte-identical to one written through a Writer.
#include "json/append.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "json/json.h"

namespace kext::json {
namespace append_test {
namespace {

std::string writer_string(std::string_view s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  write_string(w, s);
  return {buf.GetString(), buf.GetSize()};
}

std::string appended(std::string_view s) {
  std::string out = "prefix";  // appends, never replaces
  append_string(out, s);
  EXPECT_EQ(out.substr(0, 6), "prefix");
  return out.substr(6);
}

TEST(JsonAppend, EveryByteIsWrittenAsTheWriterWritesIt) {
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    // Alone, between plain bytes, and repeated in a string long enough for the Writer's SSE path.
    for (const std::string& s : {std::string(1, c), "a" + std::string(1, c) + "b",
                                 std::string(40, 'x') + std::string(3, c) + std::string(40, 'y')}) {
      EXPECT_EQ(appended(s), writer_string(s)) << "byte " << b;
    }
  }
}

// The plain bytes are passed eight at a time: a byte to escape at any offset of a word, or in the bytes
// after the last whole word, must still be found.
TEST(JsonAppend, EscapesAtEveryOffsetOfALongName) {
  for (const char special : {'"', '\\', '\n', '\x01', '\x1f'}) {
    for (size_t at = 0; at < 41; ++at) {
      std::string s = "ip-10-0-12-34.us-west-2.compute.internal";  // 40 bytes: five words
      s.insert(at, 1, special);
      EXPECT_EQ(appended(s), writer_string(s)) << "byte " << int(special) << " at " << at;
    }
  }
  EXPECT_EQ(appended("ip-10-0-12-34.us-west-2.compute.internal"),
            R"("ip-10-0-12-34.us-west-2.compute.internal")");
}

// skip_plain_words stops exactly at the first byte to escape when a whole word holds it (a false flag
// from a borrow only ever follows a true one), and at the start of the last partial word otherwise;
// skip_plain then finds it in that partial word too.
TEST(JsonWord, SkipPlainWordsStopsAtTheFirstByteToEscape) {
  const std::string name = "ip-10-0-12-34.us-west-2.compute.internal";  // 40 bytes: five words
  EXPECT_EQ(skip_plain_words(name, 0), 40u);
  EXPECT_EQ(skip_plain(name, 0), 40u);
  EXPECT_EQ(skip_plain(name, 3), 40u);
  EXPECT_EQ(skip_plain_words(name, 3), 35u);  // 35 + 8 > 40: the last 5 bytes are left to the caller
  // Bytes that need no escape, next to those that do: space, DEL, '!' and ']' (one above '"' and '\\').
  const std::string plain = std::string(" \x7f\x80\xff!]#") + std::string(33, ' ');
  EXPECT_EQ(skip_plain_words(plain, 0), 40u);
  for (const char special : {'"', '\\', '\0', '\n', '\x1f'}) {
    for (size_t at = 0; at <= name.size(); ++at) {
      for (const char after : {'a', '"', '!', '\x01', ']'}) {
        std::string s = name;
        s.insert(at, 1, special);
        if (at + 1 < s.size()) s[at + 1] = after;
        const size_t word = at - at % 8;
        const size_t want = word + 8 <= s.size() ? at : word;
        EXPECT_EQ(skip_plain_words(s, 0), want)
            << "byte " << int(special) << " at " << at << " then " << after;
        EXPECT_EQ(skip_plain(s, 0), at) << "byte " << int(special) << " at " << at;  // the tail too
      }
    }
  }
}

// count_byte sums its 16 byte-wide counters every 255 steps of 16 bytes: lengths around 4080 bytes and
// strings made only of the byte check that no counter wraps and none is lost at a flush or in the tail.
TEST(JsonWord, CountByteAgreesWithStdCount) {
  std::mt19937_64 rng(11);
  for (const size_t size : {0u, 1u, 15u, 16u, 17u, 255u, 4079u, 4080u, 4081u, 4096u, 9000u}) {
    for (const int density : {0, 1, 50, 100}) {
      std::string s(size, 'a');
      for (char& c : s) {
        if (static_cast<int>(rng() % 100) < density) c = ',';
      }
      EXPECT_EQ(count_byte(s, ','), static_cast<size_t>(std::count(s.begin(), s.end(), ',')))
          << size << " bytes, " << density << " % commas";
    }
  }
  EXPECT_EQ(count_byte("\xff\xff,\xff", '\xff'), 3u);  // a byte above 0x7f, compared as it is
}

TEST(JsonAppend, StringsAsTheWriterWritesThem) {
  struct Case {
    std::string in, want;
  };
  const Case cases[] = {
      {"", R"("")"},
      {"node-1", R"("node-1")"},
      {"a\"b", R"("a\"b")"},
      {"a\\b", R"("a\\b")"},
      {"a/b", R"("a/b")"},  // '/' is not escaped
      {std::string("\0x", 2), R"("\u0000x")"},
      {"\b\t\n\f\r", R"("\b\t\n\f\r")"},
      {"\x1f\x0b\x7f", "\"\\u001F\\u000B\x7f\""},  // upper-case hex; DEL as it is
      {"n\xc3\xa9ud-\xe2\x82\xac-\xf0\x9f\x98\x80", "\"n\xc3\xa9ud-\xe2\x82\xac-\xf0\x9f\x98\x80\""},
      {"\xff\xc3", "\"\xff\xc3\""},  // invalid UTF-8 is copied, as the Writer copies it
      {"\"\"\\\\", R"("\"\"\\\\")"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(appended(c.in), c.want) << c.in;
    EXPECT_EQ(appended(c.in), writer_string(c.in)) << c.in;
  }
}

TEST(JsonAppend, IntegersAsTheWriterWritesThem) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{100}, int64_t{-100}, int64_t{1} << 53,
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.Int64(v);
    char bytes[kMaxIntBytes];
    const std::string out(bytes, write_int(bytes, v));
    EXPECT_EQ(out, std::string(buf.GetString(), buf.GetSize())) << v;
    EXPECT_EQ(out, std::to_string(v));
  }
}

}  // namespace
}  // namespace append_test
}  // namespace kext::json
