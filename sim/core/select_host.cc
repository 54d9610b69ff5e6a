#include "sim/core/select_host.h"

#include <limits>

namespace kext::sim {

uint64_t uniform_below(Rng& rng, uint64_t n) {
  // The largest multiple of n that fits in 2^64: values at or above it would make the low residues
  // more likely, so they are drawn again (at most half of all values, usually a vanishing share).
  const uint64_t limit = std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % n;
  for (;;) {
    const uint64_t v = rng();
    if (v < limit) return v % n;
  }
}

std::optional<size_t> select_host(std::span<const int64_t> scores, Rng& rng) {
  if (scores.empty()) return std::nullopt;
  int64_t max_score = scores[0];
  size_t selected = 0;
  uint64_t count_of_max = 1;
  for (size_t i = 1; i < scores.size(); ++i) {
    if (scores[i] > max_score) {
      max_score = scores[i];
      selected = i;
      count_of_max = 1;
    } else if (scores[i] == max_score) {
      ++count_of_max;
      // Replace the candidate with probability 1/count_of_max.
      if (uniform_below(rng, count_of_max) == 0) selected = i;
    }
  }
  return selected;
}

}  // namespace kext::sim
