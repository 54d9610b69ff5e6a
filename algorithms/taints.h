#pragma once
// Taint / toleration matching (core/v1 Toleration.ToleratesTaint, v1helper taint helpers).
#include <cstdint>
#include <span>
#include <string_view>

#include "algorithms/model.h"

namespace kext {

inline constexpr std::string_view kTaintEffectNoSchedule = "NoSchedule";
inline constexpr std::string_view kTaintEffectPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kTaintEffectNoExecute = "NoExecute";
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";

// An empty effect or key on the toleration is a wildcard; operator "" / "Equal" compares values,
// "Exists" ignores them. Any other operator tolerates nothing (master's Lt/Gt is feature-gated and
// not part of the legacy scheduler this extender mirrors).
bool toleration_tolerates_taint(const Toleration& toleration, const Taint& taint);

// True when any toleration tolerates the taint.
bool tolerations_tolerate_taint(std::span<const Toleration> tolerations, const Taint& taint);

// The first taint, in node order, with effect NoSchedule or NoExecute that no toleration tolerates;
// nullptr if there is none. This is the taint TaintToleration's filter names.
const Taint* first_untolerated_scheduling_taint(std::span<const Taint> taints,
                                                std::span<const Toleration> tolerations);

// How many PreferNoSchedule taints are not tolerated by those tolerations whose effect is empty or
// PreferNoSchedule (the TaintTolerationPriority map).
int64_t count_untolerated_prefer_no_schedule(std::span<const Taint> taints,
                                             std::span<const Toleration> tolerations);

}  // namespace kext
