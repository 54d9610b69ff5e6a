#pragma once
// How the load-aware plugins reach the usage of a request's nodes (node_usage.h): one view for the whole
// request, or none when there is nothing fresh to read, so that every node then scores the same and the
// filter passes every node, rather than a request failing for missing data.
#include <optional>

#include "algorithms/node_usage.h"
#include "algorithms/plugin.h"

namespace kext {

// The request's usage view when it has one and its samples are fresh; nullptr otherwise.
inline const UsageView* fresh_usage(const PodContext& pod) {
  if (pod.cluster == nullptr || pod.cluster->usage == nullptr) return nullptr;
  return pod.cluster->usage->fresh() ? pod.cluster->usage : nullptr;
}

// The view a score plugin's prepare() found, for its map.
struct UsagePrepared final : ScorePrepared {
  explicit UsagePrepared(const UsageView* v) : view(v) {}
  const UsageView* view;  // nullptr: neutral
};

// The node's usage between samples (estimated_usage), or nullopt when the view has no sample of it.
inline std::optional<NodeUsage> node_usage(const UsageView& view, const NodeInfo& node) {
  const NodeUsage* sample = view.find(node.name());
  if (sample == nullptr) return std::nullopt;
  return estimated_usage(*sample, node, view.estimate_fraction());
}

}  // namespace kext
