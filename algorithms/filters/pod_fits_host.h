#pragma once
// NodeName filter (legacy predicate PodFitsHost).
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "PodFitsHost": a pod bound to a node by spec.nodeName fits only that node. Unresolvable, with
// "node(s) didn't match the requested node name".
std::unique_ptr<FilterPlugin> make_pod_fits_host_filter();

}  // namespace kext
