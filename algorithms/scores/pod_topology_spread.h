#pragma once
// PodTopologySpread score (pkg/scheduler/framework/plugins/podtopologyspread/scoring.go), 0..100.
#include <memory>

#include "algorithms/kube_version.h"
#include "algorithms/plugin.h"
#include "algorithms/plugin_args.h"

namespace kext {

// "PodTopologySpread": the pod's ScheduleAnyway constraints (or the ScheduleAnyway defaults of `args`
// when a workload selects a pod without constraints). prepare() counts matching pods per topology domain
// over the whole cluster, for the domains of the scored nodes; a hostname constraint counts the scored
// node's own pods. Raw score = round(Σ log(domains + 2) · count + maxSkew - 1). The reduce gives 0 to the
// nodes missing a topology key (only required with the pod's own constraints or non-system defaults),
// 100 · (max + min - s) / max to the others, 100 when max is 0. A pod without ScheduleAnyway
// constraints scores 0 everywhere (PreScore Skip). `version` decides matchLabelKeys and what an empty
// selector counts (SpreadRules).
std::unique_ptr<ScorePlugin> make_pod_topology_spread_score(const TopologySpreadArgs& args,
                                                            KubeVersion version = KubeVersion::newest());

}  // namespace kext
