// NameList: a request's node names in one buffer. It must hand back every name exactly, empty ones
// included, and keep them side by side (no allocation per name, the reason it exists).
#include "kube/codec/name_list.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "json/append.h"

namespace kext {
namespace name_list_test {
namespace {

TEST(NameList, HandsBackEveryNameInOrder) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {""},
      {"", "", ""},
      {"node-1"},
      {"ip-10-0-12-34.us-west-2.compute.internal", "", "n", "gke-prod-default-pool-1a2b3c4d-x7k9"},
      {std::string("a\0b", 3), "\"quoted\"", "back\\slash"},
  };
  for (const auto& names : cases) {
    NameList list;
    for (const auto& n : names) list.push_back(n);
    ASSERT_EQ(list.size(), names.size());
    EXPECT_EQ(list.empty(), names.empty());
    std::vector<std::string> back;
    for (std::string_view n : list) back.emplace_back(n);
    EXPECT_EQ(back, names);
    for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(list[i], names[i]) << i;
    const std::vector<std::string_view> views = list.names();
    EXPECT_EQ(std::vector<std::string>(views.begin(), views.end()), names);
  }
}

TEST(NameList, KeepsTheNamesSideBySideAsJson) {
  NameList list;
  list.reserve(3, 120);
  for (std::string_view n :
       {"ip-10-0-12-34.us-west-2.compute.internal", "ip-10-0-12-35.us-west-2.compute.internal",
        "ip-10-0-12-36.us-west-2.compute.internal"}) {
    list.push_back(n);
  }
  EXPECT_EQ(list[1].data(), list[0].data() + list[0].size() + 3);  // "," between
  EXPECT_EQ(list.json_run(0, 3),
            R"("ip-10-0-12-34.us-west-2.compute.internal","ip-10-0-12-35.us-west-2.compute.internal",)"
            R"("ip-10-0-12-36.us-west-2.compute.internal")");
  EXPECT_GE(list.capacity_bytes(), 120u);
}

// json(i) and json_run are what append_string writes for the names, and operator[] still hands back
// each name itself, for names that need escapes too: a control byte, a quote, a backslash, a NUL.
TEST(NameList, JsonIsWhatAppendStringWrites) {
  const std::vector<std::string> names = {
      "a",         "",     "say \"hi\"", "back\\slash",         std::string("nul\0x", 5),
      "tab\there", "\x01", "ok",         "r\xc3\xa9sum\xc3\xa9"};
  NameList list;
  for (const auto& n : names) list.push_back(n);
  for (size_t first = 0; first < names.size(); ++first) {
    EXPECT_EQ(list[first], names[first]) << first;
    for (size_t last = first + 1; last <= names.size(); ++last) {
      std::string want;
      for (size_t i = first; i < last; ++i) {
        if (i > first) want.push_back(',');
        json::append_string(want, names[i]);
      }
      EXPECT_EQ(list.json_run(first, last), want) << first << ".." << last;
    }
  }
  EXPECT_EQ(list.json(2), R"("say \"hi\"")");
}

// push_back_plain is push_back for a name without a byte to escape, minus the look for one.
TEST(NameList, PlainNamesAreKeptAsPushBackKeepsThem) {
  NameList plain, checked;
  for (std::string_view n : {"ip-10-0-12-34.us-west-2.compute.internal", "", "\x7f\xff/ok"}) {
    plain.push_back_plain(n);
    checked.push_back(n);
  }
  EXPECT_EQ(plain, checked);
}

TEST(NameList, EqualWhenTheSameNamesInTheSameOrder) {
  EXPECT_EQ((NameList{"a", "bc"}), (NameList{"a", "bc"}));
  EXPECT_NE((NameList{"a", "bc"}), (NameList{"ab", "c"}));  // the same bytes, cut elsewhere
  EXPECT_NE((NameList{"a", "bc"}), (NameList{"bc", "a"}));
  EXPECT_NE((NameList{"a"}), (NameList{"a", ""}));
  EXPECT_EQ(NameList{}, NameList{});
}

}  // namespace
}  // namespace name_list_test
}  // namespace kext
