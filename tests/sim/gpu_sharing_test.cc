// GPU sharing in the simulator, with the inputs docs/simulator.md runs (examples/gpu-*.{json,yaml}): 4
// nodes of 4 cards of 16000 MiB, one card half held by a running pod; 10 inference pods of one card's
// 6000 MiB and 30 cores, then a Job of 3 pods of 2 whole cards each. A simulated bind gives each pod its
// cards, as the extender's bind does, so the next cycles count them: HAMi's binpack leaves whole cards
// for the Job and places everything; spread takes a card for each inference pod and leaves a training
// pod without two idle cards on one node. The summary, --compare and the HTML report show the cards.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "sim/cluster_summary.h"
#include "sim/core/cluster.h"
#include "sim/report/html_report.h"
#include "sim/run.h"

namespace kext::simtool {
namespace gpu_sharing_test {
namespace {

const std::filesystem::path kExamples = std::filesystem::path(KEXT_SOURCE_DIR) / "examples";

SimCommand gpu_command(const std::string& policy) {
  SimCommand c;
  c.cluster_file = (kExamples / "gpu-cluster.json").string();
  c.workload_file = (kExamples / "gpu-workload.json").string();
  c.scheduler_config_file = (kExamples / "gpu-scheduler-config.yaml").string();
  c.config_file = (kExamples / ("gpu-" + policy + ".yaml")).string();
  return c;
}

int placed_with_prefix(const SimResult& r, const std::string& prefix) {
  int n = 0;
  for (const auto& [pod, node] : r.placements) n += pod.starts_with(prefix) && !node.empty();
  return n;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// MiB the cluster's pods hold when all of them run: the running pod's 8000, 10 × 6000, 3 × 2 whole cards.
constexpr int64_t kAllPlaced = 8000 + 10 * 6000 + 3 * 2 * 16000;

TEST(SimGpuSharing, BinpackLeavesWholeCardsForTheJobAndEveryBindTakesItsCards) {
  const SimResult r = run_sim(gpu_command("binpack"), nullptr);
  EXPECT_EQ(r.summary.pending_at_end, 0u);
  EXPECT_EQ(placed_with_prefix(r, "ml/infer-"), 10);
  EXPECT_EQ(placed_with_prefix(r, "ml/train-"), 3);
  EXPECT_EQ(r.use.gpu.cards, 16);
  EXPECT_EQ(r.use.gpu.memory, 16 * 16000);
  EXPECT_EQ(r.use.gpu.memory_allocated, kAllPlaced) << "each bind recorded its pod's cards";
  // gpu-1 takes the running pod's card with one inference pod and two a card on the other three (12000
  // MiB, 60 cores); the Job takes two cards on each other node, where the last three inference pods take
  // one more: one card idle on each.
  EXPECT_EQ(r.use.gpu.cards_idle, 3);
  EXPECT_EQ(r.use.gpu.largest_free_share, 16000);
}

TEST(SimGpuSharing, SpreadTakesACardEachAndATrainingPodFindsNoTwoIdleCards) {
  const SimResult r = run_sim(gpu_command("spread"), nullptr);
  EXPECT_EQ(placed_with_prefix(r, "ml/infer-"), 10);
  EXPECT_LT(placed_with_prefix(r, "ml/train-"), 3);
  EXPECT_GT(r.summary.pending_at_end, 0u);
  // Three cards are idle, one on each of three nodes: none has the two a training pod asks.
  EXPECT_EQ(r.use.gpu.cards_idle, 3);
  EXPECT_EQ(r.pending_by_reason.count("node(s) had 1 of the 2 GPU(s) asked free"), 1u);
  EXPECT_LT(r.use.gpu.memory_allocated, kAllPlaced);
}

TEST(SimGpuSharing, TheSummaryCompareAndReportShowTheCards) {
  SimCommand c = gpu_command("binpack");
  const SimResult binpack = run_sim(c, nullptr);
  const SimResult spread = run_sim(gpu_command("spread"), nullptr);
  const std::string summary = format_result_summary(binpack, "binpack", &spread, "spread");
  for (const char* row : {"GPU memory allocated", "GPUs idle", "largest GPU share free"})
    EXPECT_TRUE(has(summary, row)) << row << "\n" << summary;
  EXPECT_TRUE(has(summary, "3/16")) << summary;
  const std::string nodes = format_node_use(binpack.use);
  EXPECT_TRUE(has(nodes, "GPUs idle  GPU memory")) << "the per-node lines\n" << nodes;

  const std::string html = html_report({ReportRun{"binpack", &binpack}, ReportRun{"spread", &spread}},
                                       placement_diff(binpack, spread), c);
  EXPECT_TRUE(has(html, "largest GPU share free")) << "the HTML report's table";
}

// The cluster without GPUShare in its profile records no cards: a plain bind is unchanged.
TEST(SimGpuSharing, ABindWithoutGpuSharingRecordsNoCards) {
  sim::SimCluster cluster;
  Node n;
  n.name = "n1";
  n.allocatable.milli_cpu = 4000;
  n.allocatable.pods = 10;
  cluster.add_node(n);
  Pod p;
  p.name = "p";
  p.namespace_ = "ml";
  p.uid = "u";
  cluster.add_pod(p);
  cluster.bind("u", "n1", 0);
  EXPECT_EQ(cluster.pod("u")->gpu_shares, nullptr);
}

}  // namespace
}  // namespace gpu_sharing_test
}  // namespace kext::simtool
