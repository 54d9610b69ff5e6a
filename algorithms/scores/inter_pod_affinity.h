#pragma once
// InterPodAffinity score (pkg/scheduler/framework/plugins/interpodaffinity/scoring.go), on the framework's
// 0..100 scale.
#include <memory>

#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"
#include "algorithms/plugin_args.h"

namespace kext {

// "InterPodAffinity". prepare (PreScore), over every node of the cluster, adds up by topology pair of
// each existing pod's node:
//  - the incoming pod's preferred affinity terms the existing pod matches (+weight) and preferred
//    anti-affinity terms it matches (-weight), when the incoming pod has any (else only the pods with
//    affinity are read);
//  - the existing pod's required affinity terms the incoming pod matches (+hard_pod_affinity_weight,
//    none when it is 0), preferred affinity terms (+weight) and preferred anti-affinity terms
//    (-weight).
// With ignore_preferred_terms_of_existing_pods and an incoming pod without preferred terms, nothing is
// added (PreScore returns Skip). The map: the sum over the node's labels of their pairs' totals. The
// reduce: (s - min) * 100 / (max - min) in floating point, truncated; 0 everywhere when max == min.
// `version` decides whether the terms' matchLabelKeys / mismatchLabelKeys count (LabelKeys).
std::unique_ptr<ScorePlugin> make_inter_pod_affinity_score(const InterPodAffinityArgs& args,
                                                           KubeVersion version = KubeVersion::newest());

}  // namespace kext
