#include "algorithms/saturating.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "algorithms/resources.h"
#include "tests/support/test_builders.h"

namespace kext {
namespace saturating_test {
namespace {

using testing::GiB;
using testing::k8Ei;

constexpr int64_t kMax = kInt64Max;
constexpr int64_t kMin = kInt64Min;

TEST(Saturating, AddSubMul) {
  struct Case {
    std::string name;
    int64_t a, b;
    int64_t add, sub, mul;
  };
  const std::vector<Case> cases = {
      {"small", 6, 3, 9, 3, 18},
      {"two 8Ei", k8Ei, k8Ei, kMax, 0, kMax},
      {"8Ei and 1", k8Ei, 1, kMax, kMax - 1, kMax},
      {"8Ei and -1", k8Ei, -1, kMax - 1, kMax, -kMax},
      {"min and -1", kMin, -1, kMin, kMin + 1, kMax},
      {"min and 1", kMin, 1, kMin + 1, kMin, kMin},
      {"max and min", kMax, kMin, -1, kMax, kMin},
      {"min and min", kMin, kMin, kMin, 0, kMax},
      {"0 and min", 0, kMin, kMin, kMax, 0},
      {"8Ei times 10", k8Ei, 10, kMax, k8Ei - 10, kMax},
      {"-8Ei times 10", -k8Ei, 10, -k8Ei + 10, kMin, kMin},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(sat_add(c.a, c.b), c.add);
    EXPECT_EQ(sat_sub(c.a, c.b), c.sub);
    EXPECT_EQ(sat_mul(c.a, c.b), c.mul);
  }
}

// The 64-bit shortcut must answer exactly as 128-bit division, on both sides of the int64 range and at
// the one quotient (INT64_MIN / -1) that overflows 64 bits.
TEST(Saturating, Div128AgreesWithTheWideDivision) {
  const __int128 wide = static_cast<__int128>(kMax) * 1000;
  struct Case {
    std::string name;
    __int128 n, d;
  };
  const std::vector<Case> cases = {
      {"small", 7, 2},
      {"negative toward zero", -7, 2},
      {"negative divisor", 7, -2},
      {"min over -1", kMin, -1},
      {"min over 1", kMin, 1},
      {"max over -1", kMax, -1},
      {"numerator past int64", wide, 3},
      {"negative numerator past int64", -wide, 7},
      {"divisor past int64", wide, wide / 2 + 1},
      {"8Ei times 100 over 8Ei", static_cast<__int128>(k8Ei) * 100, k8Ei},
      {"memory score", (static_cast<__int128>(64) * GiB - 3 * GiB) * 100, 64 * GiB},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(div128(c.n, c.d) == c.n / c.d);
  }
}

TEST(Saturating, Narrowing) {
  EXPECT_EQ(saturate(static_cast<__int128>(kMax) + 1), kMax);
  EXPECT_EQ(saturate(static_cast<__int128>(kMin) - 1), kMin);
  EXPECT_EQ(saturate(-5), -5);
  EXPECT_EQ(saturating_cast(9223372036854775808.0), kMax);  // 2^63: the double k8Ei rounds to
  EXPECT_EQ(saturating_cast(1e300), kMax);
  EXPECT_EQ(saturating_cast(-1e300), kMin);
  EXPECT_EQ(saturating_cast(-9223372036854775808.0), kMin);
  EXPECT_EQ(saturating_cast(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(saturating_cast(-2.9), -2);  // toward zero, like Go's int64()
  EXPECT_EQ(saturating_cast(4611686018427387904.0), int64_t{1} << 62);
}

Resources amounts(int64_t cpu, int64_t mem, int64_t gpu) {
  Resources r;
  r.milli_cpu = cpu;
  r.memory = mem;
  r.ephemeral_storage = mem;
  if (gpu != 0) r.set_scalar("example.com/gpu", gpu);
  return r;
}

TEST(Resources, AddSaturates) {
  struct Case {
    std::string name;
    Resources a, b;
    Resources sum;
  };
  const std::vector<Case> cases = {
      {"ordinary amounts", amounts(100, GiB, 1), amounts(50, GiB, 2), amounts(150, 2 * GiB, 3)},
      // The wrap the fuzzer found: 8Ei + 8Ei was -2.
      {"two 8Ei", amounts(k8Ei, k8Ei, k8Ei), amounts(k8Ei, k8Ei, k8Ei), amounts(k8Ei, k8Ei, k8Ei)},
      {"8Ei and a negative", amounts(k8Ei, k8Ei, k8Ei), amounts(-1, -1, -1),
       amounts(k8Ei - 1, k8Ei - 1, k8Ei - 1)},
      {"most negative", amounts(kMin, kMin, kMin), amounts(-1, -1, -1), amounts(kMin, kMin, kMin)},
      {"a scalar only one side has", amounts(1, 1, 0), amounts(1, 1, k8Ei), amounts(2, 2, k8Ei)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Resources sum = c.a;
    sum.add(c.b);
    EXPECT_EQ(sum, c.sum);
  }
}

TEST(ResourceTotals, RemovingFromASaturatedTotalRestoresTheTrueSum) {
  ResourceTotals t;
  t.add(amounts(k8Ei, k8Ei, k8Ei));
  t.add(amounts(k8Ei, k8Ei, k8Ei));
  t.add(amounts(100, GiB, 1));
  EXPECT_EQ(t.saturated(), amounts(k8Ei, k8Ei, k8Ei));
  // A saturating int64 total would now read 8Ei - 8Ei = 0 although 8Ei + 1Gi is still there.
  t.subtract(amounts(k8Ei, k8Ei, k8Ei));
  EXPECT_EQ(t.saturated(), amounts(k8Ei, k8Ei, k8Ei));
  t.subtract(amounts(k8Ei, k8Ei, k8Ei));
  EXPECT_EQ(t.saturated(), amounts(100, GiB, 1));
  t.subtract(amounts(100, GiB, 1));
  Resources empty;
  empty.set_scalar("example.com/gpu", 0);  // a scalar once seen stays listed, at 0
  EXPECT_EQ(t.saturated(), empty);
}

TEST(ResourceTotals, NegativeAmountsSaturateAtTheMinimum) {
  ResourceTotals t;
  t.add(amounts(kMin, kMin, kMin));
  t.add(amounts(kMin, kMin, kMin));
  EXPECT_EQ(t.saturated(), amounts(kMin, kMin, kMin));
  t.subtract(amounts(kMin, kMin, kMin));
  EXPECT_EQ(t.saturated(), amounts(kMin, kMin, kMin));
}

}  // namespace
}  // namespace saturating_test
}  // namespace kext
