#include "algorithms/preemption/pick_node.h"

#include <algorithm>
#include <numeric>

namespace kext::preemption {

std::string_view criterion_name(Criterion c) {
  switch (c) {
    case Criterion::kZeroVictims:
      return "zero_victims";
    case Criterion::kPdbViolations:
      return "pdb_violations";
    case Criterion::kHighestVictimPriority:
      return "highest_victim_priority";
    case Criterion::kSumOfPriorities:
      return "sum_of_priorities";
    case Criterion::kNumVictims:
      return "num_victims";
    case Criterion::kEarliestStartTime:
      return "earliest_start_time";
    case Criterion::kNodeName:
      return "node_name";
    case Criterion::kNone:
      return "none";
  }
  return "none";
}

int64_t priority_sum_with_offset(std::span<const std::shared_ptr<const PodInfo>> victims) {
  constexpr int64_t kOffset = int64_t{1} << 31;  // Go: int64(math.MaxInt32 + 1)
  int64_t sum = 0;
  for (const auto& v : victims) sum += int64_t{v->pod->effective_priority()} + kOffset;
  return sum;
}

int64_t earliest_start_of_highest_priority(std::span<const std::shared_ptr<const PodInfo>> victims,
                                           int64_t now_unix_seconds) {
  int32_t max_priority = victims.front()->pod->effective_priority();
  int64_t earliest = victims.front()->pod->start_time.value_or(now_unix_seconds);
  for (const auto& v : victims.subspan(1)) {
    const int32_t p = v->pod->effective_priority();
    const int64_t t = v->pod->start_time.value_or(now_unix_seconds);
    if (p > max_priority) {
      max_priority = p;
      earliest = t;
    } else if (p == max_priority && t < earliest) {
      earliest = t;
    }
  }
  return earliest;
}

RankKey rank_key(const Candidate& c, int64_t now) {
  if (c.victims.empty()) return {0, c.num_pdb_violations, 0, 0, 0, 0};
  return {1,
          c.num_pdb_violations,
          c.victims.front()->pod->effective_priority(),
          priority_sum_with_offset(c.victims),
          static_cast<int64_t>(c.victims.size()),
          -earliest_start_of_highest_priority(c.victims, now)};
}

// Every key is "smaller is better", so one lexicographic comparison implements the whole chain.
Comparison compare_keys(const RankKey& ka, const std::string& na, const RankKey& kb, const std::string& nb) {
  const int64_t a[] = {ka.has_victims,  ka.pdb_violations, ka.top_priority,
                       ka.priority_sum, ka.num_victims,    ka.neg_earliest_start};
  const int64_t b[] = {kb.has_victims,  kb.pdb_violations, kb.top_priority,
                       kb.priority_sum, kb.num_victims,    kb.neg_earliest_start};
  for (int i = 0; i < 6; ++i) {
    if (a[i] != b[i]) return {static_cast<Criterion>(i), a[i] < b[i]};
  }
  if (na != nb) return {Criterion::kNodeName, na < nb};
  return {Criterion::kNone, false};
}

Comparison compare_candidates(const Candidate& a, const Candidate& b, int64_t now_unix_seconds) {
  return compare_keys(rank_key(a, now_unix_seconds), a.node_name, rank_key(b, now_unix_seconds), b.node_name);
}

void order_candidates(std::vector<Candidate>& candidates, int64_t now_unix_seconds) {
  // Keys once per candidate: the sum and the start-time scan are O(victims).
  std::vector<RankKey> keys;
  keys.reserve(candidates.size());
  for (const auto& c : candidates) keys.push_back(rank_key(c, now_unix_seconds));
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return compare_keys(keys[x], candidates[x].node_name, keys[y], candidates[y].node_name).a_first;
  });

  std::vector<Candidate> sorted;
  sorted.reserve(candidates.size());
  for (size_t i = 0; i < order.size(); ++i) {
    Candidate c = std::move(candidates[order[i]]);
    if (i + 1 < order.size()) {
      const size_t x = order[i], y = order[i + 1];
      c.decided_by = std::string(
          criterion_name(compare_keys(keys[x], c.node_name, keys[y], candidates[y].node_name).decided_by));
    } else {
      c.decided_by = "last";
    }
    sorted.push_back(std::move(c));
  }
  candidates = std::move(sorted);
}

}  // namespace kext::preemption
