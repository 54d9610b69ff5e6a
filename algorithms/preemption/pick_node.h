#pragma once
// pickOneNodeForPreemption (preemption.go; v1.16: generic_scheduler.go), generalised to a total order
// over the candidates.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/model.h"

namespace kext::preemption {

struct Candidate {
  std::string node_name;
  std::vector<std::shared_ptr<const PodInfo>> victims;  // most important first (kCurrent)
  int64_t num_pdb_violations = 0;
  // The criterion that separated this candidate from the next one in the returned order ("last" for
  // the final one). For logs: says why a node won.
  std::string decided_by;
  // False when the caller could not run the dry run (node unknown to its state) and kept the victims it
  // was offered. Does not affect the order.
  bool evaluated = true;
};

// The criteria in the order they are applied. Each one only breaks ties left by the previous ones,
// so "the first criterion that leaves one node" equals the lexicographic minimum over these keys.
enum class Criterion {
  kZeroVictims,            // 0: v1.16 returned a node with no victims at once
  kPdbViolations,          // 1: fewest
  kHighestVictimPriority,  // 2: lowest priority of victims[0] (read as-is, not recomputed)
  kSumOfPriorities,        // 3: smallest Σ (priority + 2^31)
  kNumVictims,             // 4: fewest
  kEarliestStartTime,      // 5: latest "earliest start among the highest-priority victims"
  kNodeName,               // 6: Go picks at random (map order); we take the smaller name
  kNone,                   // identical keys and names
};

std::string_view criterion_name(Criterion c);

// Σ (int64(priority) + 2^31): every term is in [0, 2^32-1], so an extra victim never lowers the sum,
// even with negative priorities.
int64_t priority_sum_with_offset(std::span<const std::shared_ptr<const PodInfo>> victims);

// GetEarliestPodStartTime: scans all victims (no order assumed) and returns the earliest start time
// among those with the maximum priority; a missing start time counts as `now`. Victims must be non-empty.
int64_t earliest_start_of_highest_priority(std::span<const std::shared_ptr<const PodInfo>> victims,
                                           int64_t now_unix_seconds);

// The criterion that decides between a and b, and whether a comes first.
struct Comparison {
  Criterion decided_by = Criterion::kNone;
  bool a_first = false;
};

// A candidate's keys in the criteria's order (lower is better), so that a caller can compare a bound
// of a candidate it has not worked out with one it has (algorithms/gang/topology.cc).
struct RankKey {
  int64_t has_victims;  // 0 first
  int64_t pdb_violations;
  int64_t top_priority;
  int64_t priority_sum;
  int64_t num_victims;
  int64_t neg_earliest_start;  // later start is better
};
RankKey rank_key(const Candidate& c, int64_t now_unix_seconds);
Comparison compare_keys(const RankKey& a, const std::string& a_name, const RankKey& b,
                        const std::string& b_name);
Comparison compare_candidates(const Candidate& a, const Candidate& b, int64_t now_unix_seconds);

// Sorts best first and fills decided_by. candidates[0] is what pickOneNodeForPreemption picks
// whenever Kubernetes' choice is deterministic.
void order_candidates(std::vector<Candidate>& candidates, int64_t now_unix_seconds);

}  // namespace kext::preemption
