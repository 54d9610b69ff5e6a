// --check's notion of "the same reply": JSON values, not bytes.
#include "load/json_compare.h"

#include <gtest/gtest.h>

namespace kext::load {
namespace json_compare_test {
namespace {

TEST(SameJson, MemberOrderAndNumberSpellingDoNotMatter) {
  EXPECT_TRUE(same_json(R"({"a":1,"b":[1,2],"c":{"x":null}})", R"({"c":{"x":null},"b":[1,2.0],"a":1})"));
  EXPECT_TRUE(same_json(R"({"Nodes": null, "Error": ""})", R"({"Error":"","Nodes":null})"));
}

TEST(SameJson, NamesTheFirstDifference) {
  std::string why;
  EXPECT_FALSE(same_json(R"({"FailedNodes":{"n1":"Insufficient cpu"}})",
                         R"({"FailedNodes":{"n1":"Too many pods"}})", &why));
  EXPECT_EQ(why, R"($["FailedNodes"]["n1"]: "Insufficient cpu" vs "Too many pods")");
  EXPECT_FALSE(same_json(R"([{"Host":"a","Score":1},{"Host":"b","Score":2}])",
                         R"([{"Host":"a","Score":1},{"Host":"b","Score":3}])", &why));
  EXPECT_EQ(why, R"($[1]["Score"]: 2 vs 3)");
  EXPECT_FALSE(same_json(R"({"a":1})", R"({"a":1,"b":2})", &why));
  EXPECT_EQ(why, R"($: "b" unexpected)");
  EXPECT_FALSE(same_json("[1,2]", "[2,1]", &why));
  EXPECT_FALSE(same_json("[1]", "[1,1]", &why));
  EXPECT_EQ(why, "$: 1 elements vs 2");
}

TEST(SameJson, NonJsonIsComparedAsText) {
  std::string why;
  EXPECT_TRUE(same_json("not json", "not json"));
  EXPECT_FALSE(same_json("{}", "not json", &why));
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace json_compare_test
}  // namespace kext::load
