#include "algorithms/filters/check_node_unschedulable.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace check_node_unschedulable_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_info;

TEST(CheckNodeUnschedulable, Name) {
  EXPECT_EQ(make_check_node_unschedulable_filter()->name(), "CheckNodeUnschedulable");
}

TEST(CheckNodeUnschedulable, Table) {
  struct Case {
    std::string name;
    bool unschedulable;
    std::vector<Toleration> tolerations;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"schedulable node", false, {}, true},
      {"cordoned node", true, {}, false},
      {"exact toleration", true, {{"node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"}}, true},
      {"toleration for all effects", true, {{"node.kubernetes.io/unschedulable", "Exists", "", ""}}, true},
      // The implicit taint has an empty value, so Equal "" tolerates it too.
      {"Equal with empty value", true, {{"node.kubernetes.io/unschedulable", "", "", "NoSchedule"}}, true},
      {"Equal with a value",
       true,
       {{"node.kubernetes.io/unschedulable", "Equal", "true", "NoSchedule"}},
       false},
      {"wrong effect", true, {{"node.kubernetes.io/unschedulable", "Exists", "", "NoExecute"}}, false},
      {"wildcard toleration", true, {{"", "Exists", "", ""}}, true},
      {"unrelated toleration", true, {{"node.kubernetes.io/not-ready", "Exists", "", ""}}, false},
  };
  auto f = make_check_node_unschedulable_filter();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Node n = make_node("n", 4000, 0);
    n.unschedulable = c.unschedulable;
    Pod p = make_pod("p", 100, 0);
    p.tolerations = c.tolerations;
    FilterStatus s = f->filter(PodContext(p), node_info(n));
    EXPECT_EQ(s.ok(), c.fits);
    if (!c.fits) {
      EXPECT_EQ(s.code, FilterCode::kUnresolvable);
      EXPECT_EQ(s.reasons, std::vector<std::string>{"node(s) were unschedulable"});
    }
  }
}

TEST(CheckNodeUnschedulable, IgnoresRealTaints) {
  // The node's own taints are PodToleratesNodeTaints' business.
  Node n = make_node("n", 4000, 0);
  n.taints = {{"node.kubernetes.io/unschedulable", "", "NoSchedule"}};
  Pod p = make_pod("p", 100, 0);
  EXPECT_TRUE(make_check_node_unschedulable_filter()->filter(PodContext(p), node_info(n)).ok());
}

}  // namespace
}  // namespace check_node_unschedulable_test
}  // namespace kext
