#include "algorithms/label_selector.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kext {
namespace label_selector_test {
namespace {

struct Case {
  std::string name;
  LabelSelector selector;
  Labels labels;
  bool want;
};

SelectorRequirement req(std::string key, std::string op, std::vector<std::string> values = {}) {
  return {std::move(key), std::move(op), std::move(values)};
}

TEST(LabelSelectorTest, MetaV1Semantics) {
  const Labels db = {{"app", "db"}, {"tier", "backend"}};
  const std::vector<Case> cases = {
      {"empty selector matches everything (labels.Everything)", {}, db, true},
      {"empty selector matches an unlabeled set", {}, {}, true},
      {"matchLabels equal", {{{"app", "db"}}, {}}, db, true},
      {"matchLabels wrong value", {{{"app", "web"}}, {}}, db, false},
      {"matchLabels key missing", {{{"zone", "a"}}, {}}, db, false},
      {"matchLabels are ANDed", {{{"app", "db"}, {"tier", "frontend"}}, {}}, db, false},
      {"In hit", {{}, {req("app", "In", {"web", "db"})}}, db, true},
      {"In miss", {{}, {req("app", "In", {"web"})}}, db, false},
      {"In with key missing", {{}, {req("zone", "In", {"a"})}}, db, false},
      {"NotIn with key missing is true", {{}, {req("zone", "NotIn", {"a"})}}, db, true},
      {"NotIn with listed value", {{}, {req("app", "NotIn", {"db"})}}, db, false},
      {"NotIn with other value", {{}, {req("app", "NotIn", {"web"})}}, db, true},
      {"Exists", {{}, {req("tier", "Exists")}}, db, true},
      {"Exists missing", {{}, {req("zone", "Exists")}}, db, false},
      {"DoesNotExist missing", {{}, {req("zone", "DoesNotExist")}}, db, true},
      {"DoesNotExist present", {{}, {req("app", "DoesNotExist")}}, db, false},
      {"labels and expressions ANDed", {{{"app", "db"}}, {req("tier", "NotIn", {"backend"})}}, db, false},
      {"labels and expressions both hold", {{{"app", "db"}}, {req("tier", "In", {"backend"})}}, db, true},
      // LabelSelectorAsSelector errors: the scheduler treats them as "no match".
      {"Gt is not a label selector operator", {{}, {req("n", "Gt", {"1"})}}, {{"n", "5"}}, false},
      {"unknown operator", {{}, {req("app", "Equals", {"db"})}}, db, false},
      {"In without values is invalid", {{}, {req("app", "In")}}, db, false},
      {"NotIn without values is invalid (even though key missing)", {{}, {req("zone", "NotIn")}}, db, false},
      {"Exists with values is invalid", {{}, {req("app", "Exists", {"db"})}}, db, false},
      {"one invalid expression spoils a selector that would match",
       {{{"app", "db"}}, {req("tier", "Exists"), req("x", "Lt", {"3"})}},
       db,
       false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(label_selector_matches(c.selector, c.labels), c.want) << c.name;
  }
}

TEST(LabelSelectorTest, EmptyAndValid) {
  EXPECT_TRUE(label_selector_is_empty({}));
  EXPECT_FALSE(label_selector_is_empty({{{"a", "b"}}, {}}));
  EXPECT_FALSE(label_selector_is_empty({{}, {req("a", "Exists")}}));
  EXPECT_TRUE(label_selector_valid({{}, {req("a", "DoesNotExist"), req("b", "In", {"x"})}}));
  EXPECT_FALSE(label_selector_valid({{}, {req("a", "DoesNotExist", {"x"})}}));
}

}  // namespace
}  // namespace label_selector_test
}  // namespace kext
