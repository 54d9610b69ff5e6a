#pragma once
// MostRequestedPriority: the pre-v1.17 0..10 formula that packs pods onto the fullest node.
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "MostRequestedPriority": per resource (r * 10) / c, 0 if c == 0 or r > c (no clamp, as before
// PR #102925); the node score is (cpu + memory) / 2. r counts non-zero requests. No reduce.
std::unique_ptr<ScorePlugin> make_most_requested_score();

}  // namespace kext
