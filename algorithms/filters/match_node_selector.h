#pragma once
// NodeAffinity filter (legacy predicate MatchNodeSelector).
#include <memory>
#include <string_view>

#include "algorithms/plugin.h"

namespace kext {

// The filter's two names: the current framework plugin and the legacy Policy predicate (name()).
inline constexpr std::string_view kNodeAffinityPlugin = "NodeAffinity";
inline constexpr std::string_view kMatchNodeSelectorPredicate = "MatchNodeSelector";

// "MatchNodeSelector": spec.nodeSelector AND required node affinity (see match_required_affinity).
// Unresolvable, with "node(s) didn't match Pod's node affinity/selector" (nodeaffinity/node_affinity.go
// Filter: UnschedulableAndUnresolvable).
// shown_as: the name it is shown under (AliasedFilter); empty = its predicate's.
std::unique_ptr<FilterPlugin> make_match_node_selector_filter(std::string_view shown_as = {});

}  // namespace kext
