#pragma once
// NodeAffinityPriority: the weights of the matching preferred terms, normalised to 0..10
// (v1.16: pkg/scheduler/algorithm/priorities/node_affinity.go CalculateNodeAffinityPriorityMap,
// NormalizeReduce(MaxPriority, false)).
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "NodeAffinityPriority": map = Σ weight of the preferred terms the node matches (expressions and
// metadata.name fields, modern matching: an unparsable or empty term just does not match, where
// v1.16 aborted the priority and looked at expressions only). Reduce = default_normalize_score(10,
// false).
// shown_as: the name it is shown under (AliasedScore); empty = its own.
std::unique_ptr<ScorePlugin> make_node_affinity_score(std::string_view shown_as = {});

// "NodeAffinity", 0..100: the same map, reduced by DefaultNormalizeScore(MaxNodeScore, false)
// (kube-scheduler nodeaffinity/node_affinity.go NormalizeScore).
std::unique_ptr<ScorePlugin> make_node_affinity_plugin_score();

}  // namespace kext
