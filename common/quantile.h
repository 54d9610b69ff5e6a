#pragma once
// Nearest-rank quantiles: the smallest value with at least a fraction q of all values at or below it
// (rank ceil(q * n), at least 1), so every quantile is a value that was measured. The one place the
// project computes them: extender-sim's summary latencies and pod shape, extender-load's report, the
// benchmarks' percentiles; and the median of an even count as the mean of the middle two, for figures
// over repeated runs.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace kext {

// The q-quantile (0 <= q <= 1, clamped) of `sorted`, in ascending order; T{} for none.
template <typename T>
T nearest_rank(const std::vector<T>& sorted, double q) {
  if (sorted.empty()) return T{};
  q = std::clamp(q, 0.0, 1.0);
  const auto rank =
      std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size()))));
  return sorted[std::min(rank, sorted.size()) - 1];
}

// The same of values in any order.
template <typename T>
T quantile(std::vector<T> values, double q) {
  std::sort(values.begin(), values.end());
  return nearest_rank(values, q);
}

// The median of `values` in any order, the mean of the middle two for an even count; 0 for none.
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace kext
