#pragma once
// LeastRequestedPriority: the pre-v1.17 0..10 formula that favours the emptiest node.
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "LeastRequestedPriority": per resource ((c - r) * 10) / c, 0 if c == 0 or r > c; the node score
// is (cpu + memory) / 2. r counts non-zero requests (100m / 200Mi defaults). No reduce.
std::unique_ptr<ScorePlugin> make_least_requested_score();

}  // namespace kext
