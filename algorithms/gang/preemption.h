#pragma once
// Gang scheduling and preemption. A member preempts only as part of its whole group: the group is
// admitted with the evictions all its members' preemptions make (Gatekeeper::preempt), and each
// member then preempts on the node held for it only. A victim is never a gang member: evicting one
// member of a running group stops the whole group's work.
#include <vector>

#include "algorithms/gang/gatekeeper.h"
#include "algorithms/model.h"
#include "algorithms/preemption/pick_node.h"

namespace kext::gang {

// A preemptor of no group (or of a running one): the candidates left are those whose victims include
// no gang member.
void keep_gangs_whole(std::vector<preemption::Candidate>& candidates);

// A gang member's candidates from its group's preemption: none, or the node held for it with the
// planned victims that `node` (that node as the caller's cluster has it now, null if unknown) still
// runs and that are not terminating already. A candidate with no victims left is still returned (the
// member waits for them to go), and preemption leaves it out as one with nothing to evict.
std::vector<preemption::Candidate> member_candidates(const GroupPreemption& p, const NodeInfo* node);

}  // namespace kext::gang
