#pragma once
// MostRequestedPriority: the pre-v1.17 0..10 formula that packs pods onto the fullest node.
#include <cstdint>
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "MostRequestedPriority": per resource (r * 10) / c, 0 if c == 0 or r > c (no clamp, as before
// PR #102925); the node score is (cpu + memory) / 2. r counts non-zero requests. No reduce.
// shown_as: the name it is shown under (AliasedScore); empty = its own.
std::unique_ptr<ScorePlugin> make_most_requested_score(std::string_view shown_as = {});

// One resource on a 0..max_score scale: (r * max_score) / c, 0 if c == 0. Over capacity (r > c) the
// legacy priority scores 0; most_allocated.go mostRequestedScore (clamp_over_capacity) takes r = c,
// because pods without requests count the non-zero defaults and can push r past c.
int64_t most_requested_score(int64_t requested, int64_t capacity, int64_t max_score,
                             bool clamp_over_capacity);

}  // namespace kext
