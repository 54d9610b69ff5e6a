#include "sim/core/select_host.h"

#include <limits>
#include <utility>
#include <vector>

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

size_t select_host_by_randomizer(std::span<const int64_t> scores, bool extender_scored, Rng& rng) {
  struct Entry {
    int64_t total;
    uint64_t randomizer;
    size_t index;
  };
  if (!extender_scored) return *select_host(scores, rng);
  std::vector<Entry> h;
  h.reserve(scores.size());
  // rand.Int: a non-negative 63-bit integer, drawn in node order.
  for (size_t i = 0; i < scores.size(); ++i) h.push_back({scores[i], rng() >> 1, i});
  const auto less = [&](size_t i, size_t j) {
    return h[i].total > h[j].total || (h[i].total == h[j].total && h[i].randomizer > h[j].randomizer);
  };
  // container/heap Init: down() from the last parent to the root; Pop then returns the root.
  const size_t n = h.size();
  for (size_t i0 = n / 2; i0-- > 0;) {
    for (size_t i = i0;;) {
      const size_t j1 = 2 * i + 1;
      if (j1 >= n) break;
      const size_t j = (j1 + 1 < n && less(j1 + 1, j1)) ? j1 + 1 : j1;
      if (!less(j, i)) break;
      std::swap(h[i], h[j]);
      i = j;
    }
  }
  return h[0].index;
}

}  // namespace kext::sim
