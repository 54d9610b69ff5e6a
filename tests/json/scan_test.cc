// The scanner must accept exactly what RapidJSON accepts (one complete value), and its spans must
// point at the right bytes.
#include "json/scan.h"

#include <gtest/gtest.h>

#include "json/json.h"

namespace kext::json_scan {
namespace scan_test {
namespace {

bool rapidjson_accepts(std::string_view text) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  return !d.HasParseError();
}

TEST(JsonScan, AgreesWithRapidJsonOnValidity) {
  const char* cases[] = {"{}", "[]", "0", "-0", "1.5e-3", "-12E+4", "true", "false", "null",
                         R"("a\"b\\c\/\u00e9\n")", R"({"a":[1,{"b":null}],"c":"d"})", " { \"a\" : [ ] } ",
                         R"(["x","y",[[[]]]])",
                         R"("0123456789abcdefghij0123456789\"tail")",  // an escape past the 8-byte fast path
                         // invalid
                         "", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\"}", "{a:1}", "01", "1.", ".5", "1e", "-",
                         "+1", "tru", "nul", "\"abc", "\"a\\x\"", "\"\\u12g4\"", "[1 2]", "{\"a\":1 \"b\":2}",
                         "\"tab\there\"", "[\"a\"]]x", "{\"a\":[}", "NaN", "[\"\x01\"]"};
  for (const char* c : cases) {
    std::string_view text(c);
    size_t begin = skip_ws(text, 0);
    size_t end = begin < text.size() ? skip_value(text, begin) : kInvalid;
    // RapidJSON without kParseStopWhenDone also rejects trailing bytes.
    bool ours = end != kInvalid && skip_ws(text, end) == text.size();
    EXPECT_EQ(ours, rapidjson_accepts(text)) << "[" << c << "]";
  }
}

TEST(JsonScan, DeepNestingCostsNoStack) {
  std::string deep(200000, '[');
  deep += std::string(200000, ']');
  EXPECT_EQ(skip_value(deep, 0), deep.size());
  EXPECT_EQ(skip_value(deep.substr(0, deep.size() - 1), 0), kInvalid);
}

TEST(JsonScan, SpansRecordContainersUpToTheDepth) {
  std::string text = R"({"a":{"b":[1,{"c":{}}]},"d":[]})";
  Spans spans;
  ASSERT_EQ(skip_value(text, 0, &spans, 3), text.size());
  EXPECT_EQ(spans.end_of(0), text.size());
  size_t a = text.find("{\"b\"");
  EXPECT_EQ(text.substr(a, spans.end_of(a) - a), R"({"b":[1,{"c":{}}]})");
  size_t b = text.find('[');
  EXPECT_EQ(text.substr(b, spans.end_of(b) - b), R"([1,{"c":{}}])");
  EXPECT_EQ(spans.end_of(text.find("{\"c\"")), kInvalid);  // level 4
  EXPECT_EQ(spans.end_of(1), kInvalid);                    // not a container start
}

TEST(JsonScan, MembersAndElementsAreSlicesOfTheText) {
  std::string text = R"({"k1": [1, "two" ,{"x":3}], "K2":null})";
  std::vector<std::pair<std::string, std::string>> members;
  ASSERT_TRUE(for_each_member(text, 0, nullptr, [&](std::string_view k, std::string_view v) {
    members.emplace_back(k, v);
    return true;
  }));
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].first, "k1");
  EXPECT_EQ(members[0].second, R"([1, "two" ,{"x":3}])");
  EXPECT_EQ(members[1].second, "null");
  std::vector<std::string> elements;
  size_t pos = text.find('[');
  ASSERT_TRUE(for_each_element(text, pos, nullptr, [&](std::string_view e) { elements.emplace_back(e); }));
  EXPECT_EQ(elements, (std::vector<std::string>{"1", R"("two")", R"({"x":3})"}));
  EXPECT_FALSE(for_each_element(text, 0, nullptr, [](std::string_view) {}));  // an object, not an array
}

TEST(JsonScan, HashSeesEveryByte) {
  std::string a(37, 'x');
  std::string b = a;
  EXPECT_EQ(hash_bytes(a), hash_bytes(b));
  for (size_t i = 0; i < a.size(); ++i) {
    b = a;
    b[i] = 'y';
    EXPECT_NE(hash_bytes(a), hash_bytes(b)) << i;
  }
  EXPECT_NE(hash_bytes(a), hash_bytes(a.substr(0, 36)));
}

}  // namespace
}  // namespace scan_test
}  // namespace kext::json_scan
