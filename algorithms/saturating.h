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

// n / d for 128-bit intermediates, truncating toward zero like `/`. When both fit in int64 (every real node:
// its memory in bytes times a score of 100 stays far below 2^63) the hardware's 64-bit divide does it;
// libgcc's __divti3 otherwise, which showed in prioritize's CPU profile at 500 names of 5000 nodes (perf,
// three divisions per node: LeastRequested's two resources and the engine's weighted mean). d must not be 0.
constexpr __int128 div128(__int128 n, __int128 d) {
  // INT64_MIN / -1 overflows in 64 bits: that one pair takes the 128-bit path.
  if (n == static_cast<int64_t>(n) && d == static_cast<int64_t>(d) && d != -1) {
    return static_cast<int64_t>(n) / static_cast<int64_t>(d);
  }
  return n / d;
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
