#include "algorithms/gang/preemption.h"

#include <algorithm>

#include "algorithms/gang/pod_group.h"

namespace kext::gang {

void keep_gangs_whole(std::vector<preemption::Candidate>& candidates) {
  std::erase_if(candidates, [](const preemption::Candidate& c) {
    return std::any_of(c.victims.begin(), c.victims.end(),
                       [](const auto& v) { return pod_group_key(*v->pod).has_value(); });
  });
}

std::vector<preemption::Candidate> member_candidates(const GroupPreemption& p, const NodeInfo* node) {
  if (p.kind != GroupPreemption::Kind::kNode || node == nullptr) return {};
  preemption::Candidate c;
  c.node_name = p.node;
  for (const auto& planned : p.victims) {
    auto running = std::find_if(node->pods.begin(), node->pods.end(),
                                [&](const auto& q) { return q->pod->uid == planned->pod->uid; });
    if (running != node->pods.end() && !(*running)->pod->terminating) c.victims.push_back(*running);
  }
  c.decided_by = "the node held for this member of pod group " + p.group;
  return {std::move(c)};
}

}  // namespace kext::gang
