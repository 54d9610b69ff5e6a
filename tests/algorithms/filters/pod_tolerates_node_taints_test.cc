#include "algorithms/filters/pod_tolerates_node_taints.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace pod_tolerates_node_taints_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_info;

NodeInfo tainted(std::vector<Taint> taints) {
  Node n = make_node("n", 4000, 0);
  n.taints = std::move(taints);
  return node_info(std::move(n));
}

Pod tolerating(std::vector<Toleration> tolerations) {
  Pod p = make_pod("p", 100, 0);
  p.tolerations = std::move(tolerations);
  return p;
}

TEST(PodToleratesNodeTaints, Name) {
  EXPECT_EQ(make_pod_tolerates_node_taints_filter()->name(), "PodToleratesNodeTaints");
}

TEST(PodToleratesNodeTaints, Table) {
  const std::vector<Taint> example4 = {
      {"dedicated", "gpu", "NoSchedule"}, {"spot", "", "PreferNoSchedule"}, {"maint", "true", "NoExecute"}};
  struct Case {
    std::string name;
    std::vector<Taint> taints;
    std::vector<Toleration> tolerations;
    std::vector<std::string> want_reasons;  // empty = fits
  };
  const std::vector<Case> cases = {
      {"untainted node", {}, {}, {}},
      {"example 4 tolerated",
       example4,
       {{"dedicated", "Equal", "gpu", "NoSchedule"}, {"", "Exists", "", "NoExecute"}},
       {}},
      {"example 4 without tolerations names the first hard taint",
       example4,
       {},
       {"node(s) had untolerated taint {dedicated: gpu}"}},
      {"example 4 with only the NoSchedule toleration fails on NoExecute",
       example4,
       {{"dedicated", "Equal", "gpu", "NoSchedule"}},
       {"node(s) had untolerated taint {maint: true}"}},
      {"PreferNoSchedule alone never filters", {{"spot", "", "PreferNoSchedule"}}, {}, {}},
      {"empty taint value keeps the separator",
       {{"node-role.kubernetes.io/control-plane", "", "NoSchedule"}},
       {},
       {"node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"}},
      {"toleration with the wrong value",
       {{"k", "v", "NoSchedule"}},
       {{"k", "Equal", "w", ""}},
       {"node(s) had untolerated taint {k: v}"}},
      {"wildcard toleration", example4, {{"", "Exists", "", ""}}, {}},
  };
  auto f = make_pod_tolerates_node_taints_filter();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Pod p = tolerating(c.tolerations);
    FilterStatus s = f->filter(PodContext(p), tainted(c.taints));
    if (c.want_reasons.empty()) {
      EXPECT_TRUE(s.ok());
    } else {
      EXPECT_EQ(s.code, FilterCode::kUnresolvable);
      EXPECT_EQ(s.reasons, c.want_reasons);
    }
  }
}

}  // namespace
}  // namespace pod_tolerates_node_taints_test
}  // namespace kext
