// extender-sim's per-level fit of pod groups (sim/topology_fit.h), the summary rows it adds, the
// alignment of two runs' rows under --compare (sim/cluster_summary.h align_rows), and the text table's
// columns with characters wider than a byte.
#include "sim/topology_fit.h"

#include <gtest/gtest.h>

#include "sim/cluster_summary.h"
#include "sim/core/simulator.h"
#include "tests/support/test_builders.h"

namespace kext::simtool {
namespace topology_fit_test {
namespace {

using kext::testing::make_pod;

constexpr const char* kRack = "example.com/rack";
constexpr const char* kBlock = "example.com/block";

gang::PodGroupSpec group(const std::string& name, int32_t min_member, const std::string& required = "",
                         const std::string& preferred = "") {
  gang::PodGroupSpec g;
  g.namespace_ = "default";
  g.name = name;
  g.min_member = min_member;
  g.topology.required = required;
  g.topology.preferred = preferred;
  return g;
}

Pod member(const std::string& name, const std::string& group, int64_t cpu_milli) {
  Pod p = make_pod(name, cpu_milli, 0);
  p.labels = Labels{{"scheduling.x-k8s.io/pod-group", group}};
  return p;
}

gang::GroupMap map_of(std::vector<gang::PodGroupSpec> groups) {
  gang::GroupMap out;
  for (auto& g : groups) out.emplace(g.key(), std::move(g));
  return out;
}

TEST(TopologyFitPlan, LevelsAndShapes) {
  const Pod big_a = member("a-0", "a", 2000), big_b = member("b-0", "b", 2000),
            small = member("c-0", "c", 1000);
  const Pod other_a = member("a-1", "a", 4000), ordinary = make_pod("web", 500, 0);
  const std::vector<const Pod*> pods{&ordinary, &small, &big_a, &other_a, &big_b};
  struct Case {
    std::string name;
    std::vector<std::string> configured;
    std::vector<gang::PodGroupSpec> groups;
    std::vector<std::string> levels;
    std::vector<std::string> shapes;
  };
  const std::vector<Case> cases = {
      {"a required key is reported with no levels configured",
       {},
       {group("a", 8, kRack)},
       {kRack},
       {"8 × 2 CPU"}},
      {"configured levels first, then the keys named, once",
       {kBlock},
       {group("a", 8, kRack), group("b", 4, "", kBlock)},
       {kBlock, kRack},
       {"8 × 2 CPU", "4 × 2 CPU"}},
      {"distinct shapes, largest first, the first member's requests",
       {kRack},
       {group("c", 4), group("a", 8), group("b", 8)},
       {kRack},
       {"8 × 2 CPU", "4 × 1 CPU"}},
      {"a group with no member to place has no shape", {kRack}, {group("x", 8)}, {}, {}},
      {"no level: nothing to report", {}, {group("a", 8)}, {}, {}},
  };
  for (const Case& c : cases) {
    const TopologyFit plan = plan_topology_fit(c.configured, map_of(c.groups), pods);
    EXPECT_EQ(plan.levels, c.levels) << c.name;
    std::vector<std::string> shapes;
    for (const GroupShape& s : plan.shapes) shapes.push_back(s.text());
    EXPECT_EQ(shapes, c.shapes) << c.name;
  }
}

TEST(TopologyFitPlan, FitsPerLevelOnFreeRoom) {
  // Racks r1 (two empty 4-CPU nodes) and r2 (one empty, one with 3 CPU used), in one block.
  std::vector<NodeInfo> infos;
  for (const auto& [name, rack, used] : std::vector<std::tuple<std::string, std::string, int64_t>>{
           {"r1-n1", "r1", 0}, {"r1-n2", "r1", 0}, {"r2-n1", "r2", 0}, {"r2-n2", "r2", 3000}}) {
    Node n = kext::testing::make_node(name, 4000, 0);
    n.labels = {{kRack, rack}, {kBlock, "b1"}};
    std::vector<Pod> pods;
    if (used > 0) pods.push_back(make_pod(name + "-used", used, 0));
    infos.push_back(kext::testing::node_info(std::move(n), std::move(pods)));
  }
  std::vector<const NodeInfo*> nodes;
  for (const NodeInfo& i : infos) nodes.push_back(&i);
  const Pod first = member("a-0", "a", 2000);
  const std::vector<const Pod*> pods{&first};
  TopologyFit fit =
      plan_topology_fit(std::vector<std::string>{kBlock, kRack}, map_of({group("a", 4, kRack)}), pods);
  fit.end = fit_shapes(fit, nodes);
  ASSERT_EQ(fit.end.size(), 1u);
  EXPECT_EQ(fit.end[0], (std::vector<gang::LevelFit>{{kBlock, 1, 1, "b1", 4}, {kRack, 2, 1, "r1", 4}}));
  EXPECT_EQ(level_fit_text(fit.end[0]), "block 1 of 1 (best b1: 4), rack 1 of 2 (best r1: 4)");
  fit.start = fit.end;
  EXPECT_EQ(
      topology_fit_rows(fit),
      (std::vector<std::pair<std::string, std::string>>{
          {"groups of 4 × 2 CPU fit in, at start", "block 1 of 1 (best b1: 4), rack 1 of 2 (best r1: 4)"},
          {"groups of 4 × 2 CPU fit in, at end", "block 1 of 1 (best b1: 4), rack 1 of 2 (best r1: 4)"}}));
}

TEST(SummaryRows, TwoRunsAlignOnTheRowsEitherHas) {
  SummaryRows a = {{"cycles", "3"}, {"groups fit, at end", "rack 0 of 8"}, {"nodes used", "2/2"}};
  SummaryRows b = {{"cycles", "4"}, {"bind failures", "1"}, {"nodes used", "1/2"}};
  align_rows(a, b);
  EXPECT_EQ(a, (SummaryRows{{"cycles", "3"},
                            {"bind failures", "-"},
                            {"groups fit, at end", "rack 0 of 8"},
                            {"nodes used", "2/2"}}));
  EXPECT_EQ(
      b, (SummaryRows{
             {"cycles", "4"}, {"bind failures", "1"}, {"groups fit, at end", "-"}, {"nodes used", "1/2"}}));
}

TEST(SummaryRows, ColumnsCountCharactersNotBytes) {
  const std::string table = sim::format_table({{"8 × 2 CPU", "1"}, {"8 x 2 CPU", "22"}}, "run");
  EXPECT_EQ(table,
            "           run\n"
            "8 × 2 CPU    1\n"
            "8 x 2 CPU   22\n");
}

}  // namespace
}  // namespace topology_fit_test
}  // namespace kext::simtool
