#pragma once
// What nodes really use, as opposed to what their pods request: the input of the load-aware plugins
// (Trimaran's TargetLoadPacking and LoadVariationRiskBalancing, scheduler-plugins pkg/trimaran; a
// usage-threshold filter as Koordinator's LoadAwareScheduling). Samples come from a source off the
// request path (the metrics API or Prometheus in the extender, the simulated nodes in extender-sim);
// a request only reads them.
#include <cstdint>
#include <string_view>

#include "algorithms/model.h"

namespace kext {

// One node's usage as last measured.
struct NodeUsage {
  int64_t milli_cpu = 0;  // CPU in use, millicores
  int64_t memory = 0;     // memory in use, bytes
  // Over the source's window of samples: the mean and standard deviation of utilization, as
  // fractions of allocatable (0..1), what LoadVariationRiskBalancing reads (Trimaran's
  // loadwatcher reports them per node). With one sample, the mean is that sample and the deviation 0.
  double cpu_mean = 0;
  double cpu_stddev = 0;
  double memory_mean = 0;
  double memory_stddev = 0;
  int64_t sampled_unix_ms = 0;  // when the latest sample was measured
  bool operator==(const NodeUsage&) const = default;
};

// Every node's latest usage, as a request reads it. An implementation is immutable once published
// (a request may read it on any thread) and answers from memory.
class UsageView {
 public:
  virtual ~UsageView() = default;
  // The node's latest sample; nullptr when none is known (the load plugins then score it as every
  // other node without a sample: neutral).
  virtual const NodeUsage* find(std::string_view node) const = 0;
  // False when the source is down or its samples older than its staleness limit: the load plugins
  // then give every node the same score and the filter passes every node.
  virtual bool fresh() const = 0;
  // The share of their requests that pods the latest sample cannot include yet are taken to use
  // (estimated_usage): the configured fraction, 1 by default.
  virtual double estimate_fraction() const { return 1.0; }
};

// The node's usage as the plugins should see it between samples: the sample, plus `fraction` of the
// requests of the node's pods that the sample cannot include, those not started before it was
// measured (no status.startTime yet, or a later one): a burst of pods bound to the node that looked
// idle at the last sample then counts against it at once, rather than a sample interval later
// (Koordinator's LoadAwareScheduling estimates recently assigned pods the same way). The mean
// utilizations rise by the same amounts; the deviations are kept.
NodeUsage estimated_usage(const NodeUsage& sample, const NodeInfo& node, double fraction);

}  // namespace kext
