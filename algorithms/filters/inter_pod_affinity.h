#pragma once
// InterPodAffinity filter: the incoming pod's required pod affinity and anti-affinity, and the existing
// pods' required anti-affinity (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go).
#include <memory>
#include <string_view>

#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"
#include "algorithms/plugin_args.h"

namespace kext {

// filtering.go's reasons.
inline constexpr std::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view kErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kErrReasonAntiAffinityRulesNotMatch =
    "node(s) didn't match pod anti-affinity rules";

// "InterPodAffinity". pre_filter counts by topology pair, over every node of the cluster: the existing
// pods whose required anti-affinity terms match the incoming pod, and the existing pods that match the
// incoming pod's required affinity (all terms) and anti-affinity (each term) terms. check(), in
// filtering.go Filter's order:
//  - a required affinity term whose topology key the node lacks, or whose pair counts no matching pod
//    (unless no pod matches anywhere and the pod matches its own terms): unresolvable,
//    "node(s) didn't match pod affinity rules";
//  - a required anti-affinity term's pair counts a matching pod: unschedulable,
//    "node(s) didn't match pod anti-affinity rules";
//  - one of the node's label pairs counts an existing pod's matching anti-affinity term: unschedulable,
//    "node(s) didn't satisfy existing pods anti-affinity rules".
// The state follows preemption's removals and additions (PreFilterExtensions AddPod / RemovePod).
// args: not read by the filter (InterPodAffinityArgs only weigh scores); taken for symmetry with the
// score. `version` decides whether the terms' matchLabelKeys / mismatchLabelKeys count (LabelKeys).
std::unique_ptr<FilterPlugin> make_inter_pod_affinity_filter(const InterPodAffinityArgs& args,
                                                             KubeVersion version = KubeVersion::newest());

}  // namespace kext
