#pragma once
// Saturating int64 arithmetic for resource amounts and scores: a result that does not fit sticks at
// the int64 limit on the side of the exact result instead of wrapping around (two 8Ei requests must
// not add up to -2).
#include <cstdint>
#include <limits>

namespace kext {

inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

constexpr int64_t saturate(__int128 v) {
  if (v > kInt64Max) return kInt64Max;
  if (v < kInt64Min) return kInt64Min;
  return static_cast<int64_t>(v);
}

constexpr int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? kInt64Max : kInt64Min;
}

constexpr int64_t sat_sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < 0 ? kInt64Max : kInt64Min;
}

constexpr int64_t sat_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) == (b < 0) ? kInt64Max : kInt64Min;
}

// Truncates toward zero like Go's int64(f) for in-range values; out of range (where Go's result is
// unspecified and C++'s cast undefined) sticks at the limit, and NaN becomes 0.
constexpr int64_t saturating_cast(double v) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (v != v) return 0;
  if (v >= kTwoTo63) return kInt64Max;
  if (v < -kTwoTo63) return kInt64Min;
  return static_cast<int64_t>(v);
}

}  // namespace kext
