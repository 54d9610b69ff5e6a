// NameList: a request's node names in one buffer. It must hand back every name exactly, empty ones
// included, and keep them side by side (no allocation per name, the reason it exists).
#include "extender/codec/name_list.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace kext {
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
  }
}

TEST(NameList, KeepsTheNamesSideBySide) {
  NameList list;
  list.reserve(3, 120);
  for (std::string_view n :
       {"ip-10-0-12-34.us-west-2.compute.internal", "ip-10-0-12-35.us-west-2.compute.internal",
        "ip-10-0-12-36.us-west-2.compute.internal"}) {
    list.push_back(n);
  }
  EXPECT_EQ(list[1].data(), list[0].data() + list[0].size());
  EXPECT_EQ(list[2].data(), list[1].data() + list[1].size());
  EXPECT_GE(list.capacity_bytes(), 120u);
}

TEST(NameList, EqualWhenTheSameNamesInTheSameOrder) {
  EXPECT_EQ((NameList{"a", "bc"}), (NameList{"a", "bc"}));
  EXPECT_NE((NameList{"a", "bc"}), (NameList{"ab", "c"}));  // the same bytes, cut elsewhere
  EXPECT_NE((NameList{"a", "bc"}), (NameList{"bc", "a"}));
  EXPECT_NE((NameList{"a"}), (NameList{"a", ""}));
  EXPECT_EQ(NameList{}, NameList{});
}

}  // namespace
}  // namespace kext
