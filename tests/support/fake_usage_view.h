#pragma once
// A UsageView (algorithms/node_usage.h) held in memory, keyed by node name, for the load-aware plugins'
// tests and benchmarks: the real one is the usage store's.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "algorithms/node_usage.h"
#include "algorithms/plugin.h"

namespace kext::testing {

class FakeUsageView final : public UsageView {
 public:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  const NodeUsage* find(std::string_view node) const override {
    auto it = samples.find(node);
    return it == samples.end() ? nullptr : &it->second;
  }
  bool fresh() const override { return is_fresh; }
  double estimate_fraction() const override { return fraction; }

  std::unordered_map<std::string, NodeUsage, Hash, std::equal_to<>> samples;
  bool is_fresh = true;
  double fraction = 1.0;
};

// A sample of `cpu_percent` / `memory_percent` of the node's allocatable, with those means and the
// given deviations (percent), as Trimaran's load watcher reports them.
inline NodeUsage usage_percent(const Node& node, double cpu_percent, double memory_percent,
                               double cpu_std_percent = 0, double memory_std_percent = 0) {
  NodeUsage u;
  u.milli_cpu = static_cast<int64_t>(cpu_percent / 100 * static_cast<double>(node.allocatable.milli_cpu));
  u.memory = static_cast<int64_t>(memory_percent / 100 * static_cast<double>(node.allocatable.memory));
  u.cpu_mean = cpu_percent / 100;
  u.memory_mean = memory_percent / 100;
  u.cpu_stddev = cpu_std_percent / 100;
  u.memory_stddev = memory_std_percent / 100;
  return u;
}

// `plugin`'s score of `pod` on `node`, whose usage is `sample` (none: the view has no sample for it).
inline int64_t score_with_usage(const ScorePlugin& plugin, const Pod& pod, const NodeInfo& node,
                                const std::optional<NodeUsage>& sample) {
  FakeUsageView view;
  if (sample) view.samples[node.name()] = *sample;
  ClusterView cluster;
  cluster.usage = &view;
  PodContext ctx(pod, &cluster);
  const NodeInfo* nodes[] = {&node};
  auto prepared = plugin.prepare(ctx, nodes);
  return plugin.score(ctx, prepared.get(), node);
}

}  // namespace kext::testing
