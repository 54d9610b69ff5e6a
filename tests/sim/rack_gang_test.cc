// Topology-aware gangs on the virtual clock, with the inputs docs/simulator.md runs
// (examples/rack-cluster.json, examples/rack-workload.json): 8 racks of 4 nodes of 4 CPU; six groups of
// 8 × 2 CPU that require one rack each bind whole, each in a rack of its own; ordinary pods fill the two
// racks left (r7 at priority 100, r8 at priority 50); a seventh group at priority 1000 then evicts in
// one rack, the cheaper r8, never a gang member, and binds whole there. The report's per-level figures
// say so, in the text summary and the HTML report: every rack took a group at the start, none can at
// the end.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "sim/cluster_summary.h"
#include "sim/report/html_report.h"
#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::simtool {
namespace rack_gang_test {
namespace {

constexpr const char* kRack = "example.com/rack";

SimCommand rack_command() {
  SimCommand c;
  const std::filesystem::path examples = std::filesystem::path(KEXT_SOURCE_DIR) / "examples";
  c.cluster_file = (examples / "rack-cluster.json").string();
  c.workload_file = (examples / "rack-workload.json").string();
  c.arrival_interval_seconds = 1;  // as docs/simulator.md runs it: the seventh group comes last
  return c;
}

// The racks ("r3": a node "r3-n2"'s prefix) the pods "train/<group>-<i>" were bound in.
std::map<std::string, int> racks_of(const SimResult& r, const std::string& group) {
  std::map<std::string, int> racks;
  for (const auto& [pod, node] : r.placements)
    if (pod.starts_with("train/" + group + "-") && !node.empty()) ++racks[node.substr(0, node.find('-'))];
  return racks;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SimRackGangs, EachGroupBindsInOneRackAndTheUrgentOneEvictsInTheCheapestRack) {
  std::ostringstream log;
  const SimResult r = run_sim(rack_command(), &log);

  std::set<std::string> used;
  for (const std::string g : {"g1", "g2", "g3", "g4", "g5", "g6"}) {
    const auto racks = racks_of(r, g);
    ASSERT_EQ(racks.size(), 1u) << g << " spread over racks";
    EXPECT_EQ(racks.begin()->second, 8) << g;
    EXPECT_TRUE(used.insert(racks.begin()->first).second) << g << " shares rack " << racks.begin()->first;
  }
  EXPECT_FALSE(used.contains("r7") || used.contains("r8"));
  EXPECT_EQ(racks_of(r, "llm"), (std::map<std::string, int>{{"r8", 8}}));

  // One rack's worth of evictions, all of priority 50 in r8: the ordinary pods of r7 (priority 100)
  // and every gang member stay.
  std::set<std::string> victims;
  for (const Eviction& e : r.evictions) {
    EXPECT_TRUE(e.node.starts_with("r8-")) << e.node;
    for (const EvictedPod& v : e.victims) {
      EXPECT_TRUE(v.pod.starts_with("jobs/batch-b-")) << v.pod;
      EXPECT_EQ(v.priority, 50);
      victims.insert(v.pod);
    }
  }
  EXPECT_EQ(victims.size(), 8u);
  EXPECT_EQ(r.summary.victims, 8u);
  EXPECT_EQ(r.summary.pending_at_end, 0u);
  for (int i = 1; i <= 8; ++i)
    EXPECT_TRUE(r.placements.at("jobs/batch-a-" + std::to_string(i)).starts_with("r7-"));

  // The decision log names the rack each group was admitted in, and why none had room for the last.
  const std::string lines = log.str();
  EXPECT_TRUE(has(lines, R"("gang":"pod group train/g1: admitted now in rack r1")")) << lines;
  EXPECT_TRUE(has(lines, "pod group train/llm: no rack has room for 8 × 2 CPU: best rack r1 fits 0"));
  EXPECT_TRUE(
      has(lines,
          R"("gang":"pod group train/llm: admitted now, preempting 8 pods of priority <= 50 in rack r8")"));

  // The per-level figures: no levels configured, the groups' required key is reported.
  const TopologyFit& fit = r.topology_fit;
  EXPECT_EQ(fit.levels, std::vector<std::string>{kRack});
  ASSERT_EQ(fit.shapes.size(), 1u);
  EXPECT_EQ(fit.shapes[0].text(), "8 × 2 CPU");
  ASSERT_EQ(fit.start.size(), 1u);
  ASSERT_EQ(fit.end.size(), 1u);
  EXPECT_EQ(fit.start[0], (std::vector<gang::LevelFit>{{kRack, 8, 8, "r1", 8}}));
  EXPECT_EQ(fit.end[0], (std::vector<gang::LevelFit>{{kRack, 8, 0, "r1", 0}}));
  const std::string summary = format_result_summary(r, "default");
  EXPECT_TRUE(has(summary, "groups of 8 × 2 CPU fit in, at start  rack 8 of 8 (best r1: 8)\n")) << summary;
  EXPECT_TRUE(has(summary, "groups of 8 × 2 CPU fit in, at end    rack 0 of 8 (best r1: 0)\n")) << summary;
  const std::string html = html_report({{"default", &r}}, {});
  EXPECT_TRUE(has(html,
                  "<tr><td>8 × 2 CPU</td><td>rack</td><td class=\"n\">8</td><td class=\"n\">8</td>"
                  "<td class=\"n\">0</td><td>r1 (0)</td></tr>"))
      << html;
}

// --compare: both runs' figures side by side, the second with levels configured (each node a level
// of its own below the rack), which it reports before the groups' own key.
TEST(SimRackGangs, CompareShowsTheFiguresOfBothRuns) {
  sim::testing::SimFiles f("rack-compare");
  SimCommand c = rack_command();
  c.compare_file = f.write("levels.yaml",
                           "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\n"
                           "gang:\n  topologyLevels: [kubernetes.io/hostname]\n");
  const SimResult a = run_sim(c, nullptr);
  const SimResult b = run_sim(compare_command(c), nullptr, "--compare");
  EXPECT_EQ(b.topology_fit.levels, (std::vector<std::string>{"kubernetes.io/hostname", kRack}));
  const std::string table = format_result_summary(a, "default", &b, "levels.yaml");
  EXPECT_TRUE(has(table,
                  "groups of 8 × 2 CPU fit in, at start  rack 8 of 8 (best r1: 8)  "
                  "hostname 0 of 32 (best r1-n1: 2), rack 8 of 8 (best r1: 8)\n"))
      << table;
}

}  // namespace
}  // namespace rack_gang_test
}  // namespace kext::simtool
