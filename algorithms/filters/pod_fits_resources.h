#pragma once
// NodeResourcesFit filter (legacy predicate name PodFitsResources), FIT-new semantics.
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "PodFitsResources": pod count, then cpu / memory / ephemeral-storage / scalars against
// allocatable minus the node's actual requests. Every failing resource is reported.
std::unique_ptr<FilterPlugin> make_pod_fits_resources_filter();

}  // namespace kext
