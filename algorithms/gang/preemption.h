#pragma once
// Gang scheduling and preemption: a group's room comes from its admission (gatekeeper.h), never from
// evictions one member at a time, which would leave the rest of the group pending on room taken from
// others; and evicting one member of a running group stops the whole group's work.
#include <vector>

#include "algorithms/model.h"
#include "algorithms/preemption/pick_node.h"

namespace kext::gang {

// No candidate for a preemptor that is a gang member; for any other, the candidates left are those
// whose victims include no gang member.
void keep_gangs_whole(const PodMeta& preemptor, std::vector<preemption::Candidate>& candidates);

}  // namespace kext::gang
