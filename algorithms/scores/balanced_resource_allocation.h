#pragma once
// BalancedResourceAllocation: the pre-v1.17 0..10 formula (P-BRA) favouring nodes whose cpu and
// memory utilisation stay close to each other.
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "BalancedResourceAllocation": f = r / c per resource (1 if c == 0) in double; 0 if either
// fraction is >= 1, else int64((1 - |f_cpu - f_mem|) * 10). r counts non-zero requests. No reduce.
std::unique_ptr<ScorePlugin> make_balanced_resource_allocation_score();

}  // namespace kext
