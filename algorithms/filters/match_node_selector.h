#pragma once
// NodeAffinity filter (legacy predicate MatchNodeSelector).
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "MatchNodeSelector": spec.nodeSelector AND required node affinity (see match_required_affinity).
// Unresolvable, with "node(s) didn't match Pod's node affinity/selector".
std::unique_ptr<FilterPlugin> make_match_node_selector_filter();

}  // namespace kext
