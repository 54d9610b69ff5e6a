#pragma once
// LoadVariationRiskBalancing (scheduler-plugins pkg/trimaran/loadvariationriskbalancing
// loadvariationriskbalancing.go Score, analysis.go computeScore): balances the risk of each node's load,
// its mean utilization plus a margin of its deviation, across the cluster.
#include <memory>

#include "algorithms/plugin.h"
#include "algorithms/plugin_args.h"

namespace kext {

// 0..100, no reduce. Per resource (cpu, memory): mu = mean utilization + the pod's request over
// allocatable, sigma = margin * stddev^(1/sensitivity), each clamped to 0..1; the resource scores
// (1 - (mu + sigma) / 2) * 100, and the node the rounded lower of the two. The mean and deviation are
// NodeUsage's, through estimated_usage. A node without a sample scores 0 (Trimaran's minimum for a node
// without metrics), and so does every node when the request has no fresh usage.
std::unique_ptr<ScorePlugin> make_load_variation_risk_balancing_score(
    const LoadVariationRiskBalancingArgs& args);

}  // namespace kext
