#pragma once
// LeastRequestedPriority: the pre-v1.17 0..10 formula that favours the emptiest node.
#include <cstdint>
#include <memory>

#include "algorithms/plugin.h"

namespace kext {

// "LeastRequestedPriority": per resource ((c - r) * 10) / c, 0 if c == 0 or r > c; the node score
// is (cpu + memory) / 2. r counts non-zero requests (100m / 200Mi defaults). No reduce.
// shown_as: the name it is shown under (AliasedScore); empty = its own.
std::unique_ptr<ScorePlugin> make_least_requested_score(std::string_view shown_as = {});

// One resource on a 0..max_score scale: ((c - r) * max_score) / c, 0 if c == 0 or r > c. Both the
// legacy priority (max 10) and least_allocated.go leastRequestedScore (max 100).
int64_t least_requested_score(int64_t requested, int64_t capacity, int64_t max_score);

}  // namespace kext
