#pragma once
// LoadAwareScheduling's filter (Koordinator pkg/scheduler/plugins/loadaware/load_aware.go Filter,
// filterNodeUsage): a node whose usage would pass a threshold with the pod on it fails.
#include <memory>

#include "algorithms/plugin.h"
#include "algorithms/plugin_args.h"

namespace kext {

// Per resource with a threshold (cpu, memory; 0 = none): round(100 * (the node's usage as
// estimated_usage gives it + the pod's requests at the view's estimate fraction) / allocatable) above
// the threshold fails, Unschedulable, "node(s) cpu usage exceed threshold" (Koordinator's words).
// Passes a node without a sample or with an allocatable of 0, and every node when the request has no
// fresh usage (usage_lookup.h): the filter is an optimization and never fails for missing data.
std::unique_ptr<FilterPlugin> make_load_aware_scheduling_filter(const LoadAwareSchedulingArgs& args);

}  // namespace kext
