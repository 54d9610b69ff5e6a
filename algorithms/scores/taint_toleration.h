#pragma once
// TaintTolerationPriority: fewer untolerated PreferNoSchedule taints score higher, normalised in reverse
// (v1.16: pkg/scheduler/algorithm/priorities/taint_toleration.go ComputeTaintTolerationPriorityMap,
// NormalizeReduce(MaxPriority, true)).
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "TaintTolerationPriority": map = count of the node's PreferNoSchedule taints not tolerated by the
// pod's tolerations with an empty or PreferNoSchedule effect. Reduce = default_normalize_score(10,
// true): the node with the most such taints gets 0, a node with none 10.
// shown_as: the name it is shown under (AliasedScore); empty = its own.
std::unique_ptr<ScorePlugin> make_taint_toleration_score(std::string_view shown_as = {});

// "TaintToleration", 0..100: the same map, reduced by DefaultNormalizeScore(MaxNodeScore, true)
// (kube-scheduler tainttoleration/taint_toleration.go NormalizeScore).
std::unique_ptr<ScorePlugin> make_taint_toleration_plugin_score();

}  // namespace kext
