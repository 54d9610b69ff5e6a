#pragma once
// One verb request as GET /debug/decisions shows it. The verbs move their working data in after the
// reply is encoded (node names, filter outcome, score matrix), so recording copies next to nothing;
// turning it into JSON happens only when someone asks.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/engine.h"
#include "kube/codec/extender_args.h"

namespace kext {

struct AlgorithmInfo {
  std::string name;
  int64_t weight = 1;
};

struct VictimRecord {
  std::string pod;  // namespace/name
  std::string uid;
  int32_t priority = 0;
};

struct CandidateRecord {
  std::string node;
  std::vector<VictimRecord> victims;  // most important first
  int64_t num_pdb_violations = 0;
  // pickOneNodeForPreemption's criterion that put this node ahead of the next one ("last" for the last).
  std::string decided_by;
  bool evaluated = true;  // false: unknown to the state, the scheduler's own victims kept
  bool chosen = false;    // in the reply
};

struct Decision {
  uint64_t seq = 0;
  int64_t unix_micros = 0;
  std::string_view verb;  // a literal: "filter", "prioritize", "preempt"
  std::string pod;        // namespace/name
  std::string pod_uid;
  int status = 0;
  double seconds = 0;
  std::string error_body;  // the reply's {"Error":…} when status != 200
  std::string gang;        // filter of a gang member: its group and the group's state

  NameList nodes;  // filter/prioritize: the request's nodes, in order

  FilterReply filter;  // filter: indices into nodes

  // prioritize: row a of `scores` is algorithms[a]; column k is nodes[scored_index[k]].
  std::shared_ptr<const std::vector<AlgorithmInfo>> algorithms;
  ScoreMatrix scores;
  std::vector<size_t> scored_index;
  std::vector<int64_t> final_scores;  // per request node (0 for nodes the state does not know)

  std::vector<CandidateRecord> candidates;  // preempt: best first
};

// Heap bytes the decision holds, roughly (strings beyond the small-string buffer, vectors' capacity):
// what the decision log budgets by.
size_t approximate_bytes(const Decision& d);

// {"decisions":[…]} in the given order.
std::string decisions_to_json(std::span<const std::shared_ptr<const Decision>> decisions);

}  // namespace kext
