#include "sim/cluster_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/core/simulator.h"
#include "tests/support/test_builders.h"

namespace kext::simtool {
namespace cluster_summary_test {
namespace {

using kext::testing::GiB;
using kext::testing::MiB;

NodeUse node(std::string name, int64_t cpu_req, int64_t cpu_alloc, int64_t mem_req, int64_t mem_alloc,
             int64_t pods, int64_t allowed = 110) {
  return NodeUse{std::move(name), cpu_req, cpu_alloc, mem_req, mem_alloc, pods, allowed, {}};
}

ClusterUse use_of(std::vector<NodeUse> nodes) {
  ClusterUse u;
  for (const NodeUse& n : nodes) {
    ++u.nodes;
    if (n.pods > 0) ++u.nodes_used;
    u.milli_cpu_requested += n.milli_cpu_requested;
    u.milli_cpu_allocatable += n.milli_cpu_allocatable;
    u.memory_requested += n.memory_requested;
    u.memory_allocatable += n.memory_allocatable;
  }
  u.per_node = std::move(nodes);
  return u;
}

// Four nodes and a typical pod of 1 CPU and 1Gi: n1 has 500m free (a hole too small), n2 has 3 CPU
// free but its memory is exhausted (stranded), n3 takes the pod, n4 has room but no pod slot.
ClusterUse four_nodes() {
  return use_of({
      node("n1", 3500, 4000, 2 * GiB, 16 * GiB, 3),
      node("n2", 1000, 4000, 16 * GiB - 512 * MiB, 16 * GiB, 2),
      node("n3", 2000, 4000, 8 * GiB, 16 * GiB, 4),
      node("n4", 0, 2000, 0, 8 * GiB, 110),
  });
}

TEST(SimFragmentation, FreeRoomWhereTheTypicalPodDoesNotFit) {
  const Fragmentation f = fragmentation(four_nodes(), PodShape{1000, GiB});
  // Free cpu 500 + 3000 + 2000 + 2000 = 7500m, all but n3's 2000m where the pod does not fit.
  ASSERT_TRUE(f.cpu.has_value());
  EXPECT_DOUBLE_EQ(*f.cpu, 5500.0 / 7500.0);
  // Free memory 14Gi + 0.5Gi + 8Gi + 8Gi = 30.5Gi, all but n3's 8Gi.
  ASSERT_TRUE(f.memory.has_value());
  EXPECT_DOUBLE_EQ(*f.memory, 22.5 / 30.5);

  // A pod that fits everywhere with a slot: nothing fragmented but n4's room (no slot).
  const Fragmentation small = fragmentation(four_nodes(), PodShape{100, 100 * MiB});
  EXPECT_DOUBLE_EQ(*small.cpu, 2000.0 / 7500.0);
  EXPECT_DOUBLE_EQ(*small.memory, 8.0 / 30.5);

  // No typical pod, or nothing free: undefined.
  EXPECT_FALSE(fragmentation(four_nodes(), std::nullopt).cpu.has_value());
  const Fragmentation full = fragmentation(use_of({node("f", 1000, 1000, GiB, GiB, 1)}), PodShape{1, 1});
  EXPECT_FALSE(full.cpu.has_value());
  EXPECT_FALSE(full.memory.has_value());
}

TEST(SimFragmentation, RowsAndNodeTable) {
  SimResult r;
  r.use = four_nodes();
  r.typical_pod = PodShape{1000, GiB};
  // 6500m of 14000m cpu and 25.5Gi of 56Gi memory requested.
  EXPECT_EQ(use_rows(r), (std::vector<std::pair<std::string, std::string>>{
                             {"nodes used", "4/4"},
                             {"cpu requested", "46.4 %"},
                             {"memory requested", "45.5 %"},
                             {"typical pod cpu", "1"},
                             {"typical pod memory", "1Gi"},
                             {"cpu fragmented", "73.3 %"},
                             {"memory fragmented", "73.8 %"},
                         }));
  EXPECT_EQ(format_node_use(r.use),
            "nodes by requested share    cpu  memory\n"
            "  [0, 10) %                   1       1\n"
            "  [10, 20) %                  0       1\n"
            "  [20, 30) %                  1       0\n"
            "  [30, 40) %                  0       0\n"
            "  [40, 50) %                  0       0\n"
            "  [50, 60) %                  1       1\n"
            "  [60, 70) %                  0       0\n"
            "  [70, 80) %                  0       0\n"
            "  [80, 90) %                  1       0\n"
            "  [90, 100) %                 0       1\n"
            "  100 %                       0       0\n"
            "  node      cpu   memory  pods\n"
            "  n1     87.5 %   12.5 %  3/110\n"
            "  n2     25.0 %   96.9 %  2/110\n"
            "  n3     50.0 %   50.0 %  4/110\n"
            "  n4      0.0 %    0.0 %  110/110\n");

  SimResult none;
  EXPECT_EQ(use_rows(none)[3].second, "-");
  EXPECT_EQ(use_rows(none)[5].second, "-");

  // With --compare: the rows in a second column.
  SimResult other = r;
  other.typical_pod = PodShape{100, 100 * MiB};
  const std::string table = format_result_summary(r, "a", &other, "b");
  EXPECT_NE(table.find("\ncpu fragmented           73.3 %   26.7 %\n"), std::string::npos) << table;
  EXPECT_NE(table.find("\ntypical pod memory          1Gi    100Mi\n"), std::string::npos) << table;
}

TEST(SimFragmentation, HistogramBinsAndTheNodeListThreshold) {
  // Shares exactly on a bin's lower edge land in it; full and over-full nodes and nodes with nothing
  // allocatable in the last bin.
  std::vector<NodeUse> nodes = {
      node("a", 0, 1000, 0, 1000 * MiB, 0),
      node("b", 99, 1000, 99 * MiB, 1000 * MiB, 1),
      node("c", 100, 1000, 100 * MiB, 1000 * MiB, 1),
      node("d", 999, 1000, 999 * MiB, 1000 * MiB, 1),
      node("e", 1000, 1000, 1000 * MiB, 1000 * MiB, 1),
      node("f", 1500, 1000, 0, 0, 1),
  };
  const UseHistogram h = use_histogram(use_of(nodes));
  EXPECT_EQ(h.cpu, (std::array<size_t, kShareBins>{2, 1, 0, 0, 0, 0, 0, 0, 0, 1, 2}));
  EXPECT_EQ(h.memory, (std::array<size_t, kShareBins>{2, 1, 0, 0, 0, 0, 0, 0, 0, 1, 2}));

  // Up to kNodeListMax nodes each is listed; one more and only the histogram remains.
  std::vector<NodeUse> many;
  for (size_t i = 0; i < kNodeListMax; ++i) many.push_back(node("n" + std::to_string(i), 0, 1000, 0, GiB, 0));
  EXPECT_NE(format_node_use(use_of(many)).find("  n19 "), std::string::npos);
  many.push_back(node("n20", 0, 1000, 0, GiB, 0));
  const std::string text = format_node_use(use_of(many));
  EXPECT_EQ(text.find("node "), std::string::npos) << text;
  EXPECT_NE(text.find("  [0, 10) %                  21      21\n"), std::string::npos) << text;
}

TEST(SimFragmentation, TypicalPodIsTheMedianOfEachResource) {
  EXPECT_EQ(typical_pod({}), std::nullopt);
  std::vector<Resources> r(4);
  r[0].milli_cpu = 4000, r[0].memory = 1;
  r[1].milli_cpu = 100, r[1].memory = 3;
  r[2].milli_cpu = 500, r[2].memory = 2;
  r[3].milli_cpu = 200, r[3].memory = 4;
  // Nearest rank: the 2nd of 4.
  EXPECT_EQ(typical_pod(r), (PodShape{200, 2}));
  r.pop_back();
  EXPECT_EQ(typical_pod(r), (PodShape{500, 2}));
}

TEST(SimFragmentation, QuantityText) {
  EXPECT_EQ(milli_cpu_text(2000), "2");
  EXPECT_EQ(milli_cpu_text(1500), "1500m");
  EXPECT_EQ(milli_cpu_text(0), "0");
  EXPECT_EQ(memory_text(0), "0");
  EXPECT_EQ(memory_text(4 * GiB), "4Gi");
  EXPECT_EQ(memory_text(GiB + MiB), "1025Mi");
  EXPECT_EQ(memory_text(3 * 1024), "3Ki");
  EXPECT_EQ(memory_text(1000), "1000");
}

}  // namespace
}  // namespace cluster_summary_test
}  // namespace kext::simtool
