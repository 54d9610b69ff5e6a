#include "algorithms/preemption/pick_node.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext::preemption {
namespace pick_node_test {
namespace {

constexpr int64_t kDay = 1767225600;  // 2026-01-01T00:00:00Z
constexpr int64_t kNow = kDay + 23 * 3600;
constexpr int64_t at(int h, int m = 0) { return kDay + h * 3600 + m * 60; }

int counter = 0;

std::shared_ptr<const PodInfo> victim(int32_t priority, std::optional<int64_t> start) {
  Pod p = testing::make_pod("v" + std::to_string(++counter), 100, 0);
  p.priority = priority;
  p.start_time = start;
  return std::make_shared<const PodInfo>(make_pod_info(std::make_shared<const Pod>(std::move(p))));
}

Candidate cand(std::string name, int64_t pdb, std::vector<std::shared_ptr<const PodInfo>> victims) {
  return Candidate{std::move(name), std::move(victims), pdb, {}};
}

std::vector<std::string> order(std::vector<Candidate> cs) {
  order_candidates(cs, kNow);
  std::vector<std::string> out;
  for (const auto& c : cs) out.push_back(c.node_name);
  return out;
}

// Six nodes: each criterion of pickOneNodeForPreemption removes some nodes, N6 survives them all.
std::vector<Candidate> golden_chain() {
  return {
      cand("N1", 1, {victim(10, at(9))}),
      cand("N2", 0, {victim(500, at(9)), victim(1, at(9))}),
      cand("N3", 0, {victim(100, at(9)), victim(100, at(9, 30))}),
      cand("N4", 0, {victim(100, at(9)), victim(-50, at(9)), victim(-50, at(9))}),
      cand("N5", 0, {victim(100, at(10)), victim(50, at(12))}),
      cand("N6", 0, {victim(100, at(11)), victim(50, at(7))}),
      cand("N8", 0, {victim(100, at(8)), victim(50, at(6)), victim(INT32_MIN, at(5))}),
  };
}

TEST(PickNodeTest, GoldenChainPicksN6) {
  auto cs = golden_chain();
  // The offset sums quoted in the reference.
  EXPECT_EQ(priority_sum_with_offset(cs[2].victims), 4294967496);
  EXPECT_EQ(priority_sum_with_offset(cs[3].victims), 6442450944);
  EXPECT_EQ(priority_sum_with_offset(cs[4].victims), 4294967446);
  EXPECT_EQ(priority_sum_with_offset(cs[5].victims), 4294967446);
  EXPECT_EQ(priority_sum_with_offset(cs[6].victims), 4294967446);

  order_candidates(cs, kNow);
  ASSERT_EQ(cs.front().node_name, "N6");
  EXPECT_EQ(cs.front().decided_by, "earliest_start_time");  // vs N5: 11:00 beats 10:00
  std::vector<std::string> names;
  std::vector<std::string> why;
  for (const auto& c : cs) {
    names.push_back(c.node_name);
    why.push_back(c.decided_by);
  }
  // The rest follow the same chain in reverse: N8 lost on count, N3 and N4 on sum, N2 on top
  // priority, N1 on PDB violations.
  EXPECT_EQ(names, (std::vector<std::string>{"N6", "N5", "N8", "N3", "N4", "N2", "N1"}));
  EXPECT_EQ(why, (std::vector<std::string>{"earliest_start_time", "num_victims", "sum_of_priorities",
                                           "sum_of_priorities", "highest_victim_priority", "pdb_violations",
                                           "last"}));
}

TEST(PickNodeTest, GoldenChainDoesNotDependOnInputOrder) {
  auto cs = golden_chain();
  std::reverse(cs.begin(), cs.end());
  EXPECT_EQ(order(std::move(cs)).front(), "N6");
}

// Each criterion deciding alone: the two nodes agree on every earlier criterion.
struct Alone {
  std::string name;
  Candidate winner;
  Candidate loser;
  std::string criterion;
};

TEST(PickNodeTest, EachCriterionDecidesAlone) {
  const std::vector<Alone> cases = {
      {"zero victims win at once (v1.16)", cand("b", 5, {}), cand("a", 0, {victim(1, at(9))}),
       "zero_victims"},
      {"fewer PDB violations beat lower priorities", cand("b", 0, {victim(900, at(9)), victim(800, at(9))}),
       cand("a", 1, {victim(1, at(9))}), "pdb_violations"},
      {"lower highest priority beats more victims",
       cand("b", 0, {victim(99, at(9)), victim(99, at(9)), victim(99, at(9))}),
       cand("a", 0, {victim(100, at(9))}), "highest_victim_priority"},
      {"smaller offset sum", cand("b", 0, {victim(100, at(9)), victim(10, at(9))}),
       cand("a", 0, {victim(100, at(9)), victim(20, at(9))}), "sum_of_priorities"},
      {"fewer victims (only reachable with MinInt32 victims)", cand("b", 0, {victim(100, at(9))}),
       cand("a", 0, {victim(100, at(10)), victim(INT32_MIN, at(11))}), "num_victims"},
      {"later earliest start among top-priority victims",
       cand("b", 0, {victim(100, at(10)), victim(50, at(1))}),
       cand("a", 0, {victim(100, at(9)), victim(50, at(11))}), "earliest_start_time"},
      {"full tie broken by node name", cand("a", 0, {victim(100, at(9))}), cand("b", 0, {victim(100, at(9))}),
       "node_name"},
  };
  for (const auto& c : cases) {
    auto cmp = compare_candidates(c.winner, c.loser, kNow);
    EXPECT_TRUE(cmp.a_first) << c.name;
    EXPECT_EQ(criterion_name(cmp.decided_by), c.criterion) << c.name;
    auto rev = compare_candidates(c.loser, c.winner, kNow);
    EXPECT_FALSE(rev.a_first) << c.name;
    EXPECT_EQ(rev.decided_by, cmp.decided_by) << c.name;

    std::vector<Candidate> cs = {c.loser, c.winner};
    order_candidates(cs, kNow);
    EXPECT_EQ(cs[0].node_name, c.winner.node_name) << c.name;
    EXPECT_EQ(cs[0].decided_by, c.criterion) << c.name;
  }
}

TEST(PickNodeTest, NegativePrioritiesNeedTheOffset) {
  // Highest victim priority is -50 on both. Without the 2^31 offset the raw sums are -100 vs -50 and
  // the node with MORE victims would win.
  Candidate two = cand("two", 0, {victim(-50, at(9)), victim(-50, at(9))});
  Candidate one = cand("one", 0, {victim(-50, at(9))});
  EXPECT_EQ(priority_sum_with_offset(two.victims), 2 * ((int64_t{1} << 31) - 50));
  EXPECT_EQ(order({two, one}), (std::vector<std::string>{"one", "two"}));

  // A MinInt32 victim contributes exactly 0, so only the count can tell these apart.
  EXPECT_EQ(priority_sum_with_offset(std::vector{victim(INT32_MIN, at(9))}), 0);
  Candidate lowest = cand("lowest", 0, {victim(-1, at(9)), victim(INT32_MIN, at(9))});
  Candidate single = cand("single", 0, {victim(-1, at(9))});
  auto cmp = compare_candidates(single, lowest, kNow);
  EXPECT_TRUE(cmp.a_first);
  EXPECT_EQ(cmp.decided_by, Criterion::kNumVictims);
}

TEST(PickNodeTest, HighestPriorityIsReadFromTheFirstVictimAsGiven) {
  // v1.16 lists victims in reprieve order (violating first), so Pods[0] can be a lower-priority pod
  // than another victim: pickOneNodeForPreemption reads 100 here, not 200.
  Candidate unsorted = cand("unsorted", 1, {victim(100, at(9)), victim(200, at(8)), victim(50, at(7))});
  Candidate other = cand("other", 1, {victim(150, at(9))});
  EXPECT_EQ(order({other, unsorted}).front(), "unsorted");
}

TEST(PickNodeTest, EarliestStartIgnoresLowerPriorityVictimsAndOrder) {
  // Unordered list: the 100s are the maximum; the 07:00 pod has priority 50 and does not count.
  auto v = std::vector{victim(50, at(7)), victim(100, at(11)), victim(100, at(10, 30))};
  EXPECT_EQ(earliest_start_of_highest_priority(v, kNow), at(10, 30));
}

TEST(PickNodeTest, NilStartTimeCountsAsNow) {
  // A top-priority victim that never started looks as young as possible, so its node wins step 5.
  auto v = std::vector{victim(100, std::nullopt), victim(100, at(11))};
  EXPECT_EQ(earliest_start_of_highest_priority(v, kNow), at(11));
  auto w = std::vector{victim(100, std::nullopt)};
  EXPECT_EQ(earliest_start_of_highest_priority(w, kNow), kNow);
  Candidate fresh = cand("a-fresh", 0, {victim(100, std::nullopt), victim(50, at(1))});
  Candidate old = cand("b-old", 0, {victim(100, at(22)), victim(50, at(1))});
  auto cmp = compare_candidates(fresh, old, kNow);
  EXPECT_TRUE(cmp.a_first);
  EXPECT_EQ(cmp.decided_by, Criterion::kEarliestStartTime);
}

}  // namespace
}  // namespace pick_node_test
}  // namespace kext::preemption
