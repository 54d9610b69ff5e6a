#pragma once
// What the simulated nodes really use, as opposed to what their pods request: each pod uses a
// profile's fraction of its requests, and each node publishes a sample of its pods' sum only at each
// interval tick, as a metrics pipeline does (Trimaran's load-watcher polls its metrics source
// periodically: scheduler-plugins pkg/trimaran/collector.go). Between ticks the load-aware plugins
// read the last sample, plus through estimated_usage (algorithms/node_usage.h) the pods it cannot
// include.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "algorithms/node_usage.h"
#include "sim/core/clock.h"
#include "sim/core/cluster.h"

namespace kext::sim {

// A pod's usage as a fraction of its requests over its life: a step function of the time since the
// pod started. Before the first step's offset, the first step's fraction.
struct UsageProfile {
  std::vector<std::pair<SimDuration, double>> steps;  // offsets ascending, at least one
  double at(SimDuration since_start) const;
  bool operator==(const UsageProfile&) const = default;
};

// "0.6" (a constant fraction) or "0s:0.2,60s:0.8,120s:0.4" (the fraction from each offset since the
// pod started; offsets in seconds with an optional "s", ascending). Fractions are non-negative. nullopt
// with `error` set on bad text.
std::optional<UsageProfile> parse_usage_profile(std::string_view text, std::string& error);

struct UsageOptions {
  bool enabled = false;  // off: no samples, ClusterView::usage stays null
  SimDuration interval = std::chrono::seconds(30);
  // The fraction of their requests that pods without a profile use: requests are what a pod uses
  // unless told otherwise.
  double default_fraction = 1.0;
  // UsageView::estimate_fraction: the share of their requests the pods a sample cannot include yet
  // are taken to use.
  double estimate_fraction = 1.0;
  // How many of a node's latest samples its mean and deviation are over.
  size_t window = 10;
};

// One node's usage over the run, for the reports: one number a sample, so that a long run of a large
// cluster stays within memory.
struct NodeUsageSeries {
  std::string node;
  int64_t allocatable_milli_cpu = 0;
  int64_t requested_peak_milli_cpu = 0;  // the most its pods requested at a sample
  std::vector<int64_t> used_milli_cpu;   // what its pods used at each sample
};

// The samples, as the plugins read them (UsageView) and the reports summarize them.
class SampledUsage : public UsageView {
 public:
  explicit SampledUsage(UsageOptions options) : options_(options) {}
  const NodeUsage* find(std::string_view node) const override;
  bool fresh() const override { return !latest_.empty(); }
  double estimate_fraction() const override { return options_.estimate_fraction; }

  // Samples every node of `cluster` as it stands: each bound pod uses `fraction_of(pod)` (its
  // profile's, at its age) of its requests. `sampled_unix_ms` is when the sample was measured.
  template <typename FractionOf>
  void sample(const SimCluster& cluster, int64_t sampled_unix_ms, FractionOf&& fraction_of) {
    for (const NodeInfo* n : cluster.nodes()) {
      double cpu = 0, memory = 0;
      for (const auto& p : n->pods) {
        const double f = fraction_of(*p->pod);
        cpu += static_cast<double>(p->requests.milli_cpu) * f;
        memory += static_cast<double>(p->requests.memory) * f;
      }
      record(*n, sampled_unix_ms, static_cast<int64_t>(cpu), static_cast<int64_t>(memory));
    }
  }
  const UsageOptions& options() const { return options_; }
  // Every node ever sampled, in the order first sampled.
  const std::vector<NodeUsageSeries>& series() const { return series_; }

 private:
  struct Window {
    std::deque<std::pair<double, double>> utilization;  // (cpu, memory) fractions of allocatable
  };
  void record(const NodeInfo& node, int64_t sampled_unix_ms, int64_t milli_cpu, int64_t memory);

  UsageOptions options_;
  std::unordered_map<std::string, NodeUsage> latest_;
  std::unordered_map<std::string, Window> windows_;
  std::unordered_map<std::string, size_t> series_index_;
  std::vector<NodeUsageSeries> series_;
};

// A node's usage summarized for the reports: its CPU requests' peak, and its usage's p95 and peak,
// in millicores and as shares of allocatable.
struct NodeUsageSummary {
  std::string node;
  int64_t allocatable_milli_cpu = 0;
  int64_t requested_peak_milli_cpu = 0;
  int64_t used_p95_milli_cpu = 0;
  int64_t used_peak_milli_cpu = 0;
  bool operator==(const NodeUsageSummary&) const = default;
};
std::vector<NodeUsageSummary> summarize_usage(const std::vector<NodeUsageSeries>& series);

}  // namespace kext::sim
