#include "kube/codec/quantity.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kext {
namespace quantity_test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

struct ValidCase {
  std::string text;
  int64_t milli;
  int64_t value;
};

// Expected values follow apimachinery: exact nano fixed point, finer digits rounded up at parse,
// MilliValue()/Value() rounded up.
const std::vector<ValidCase> kValid = {
    // plain and fractional numbers
    {"0", 0, 0},
    {"000", 0, 0},
    {"0.0", 0, 0},
    {"-0", 0, 0},
    {"1", 1000, 1},
    {"+1", 1000, 1},
    {"-1", -1000, -1},
    {"0.5", 500, 1},
    {".5", 500, 1},
    {"5.", 5000, 5},
    {"1.5", 1500, 2},
    {"007", 7000, 7},
    {"1.000000001", 1001, 2},  // 1n above 1 still needs another milli and a second whole unit
    // decimal SI
    {"1n", 1, 1},  // cpu "1n" counts as 1m
    {"999n", 1, 1},
    {"1000000n", 1, 1},
    {"1000001n", 2, 1},
    {"1u", 1, 1},
    {"100m", 100, 1},
    {"1500m", 1500, 2},  // memory "1500m" is 2 bytes
    {"1000m", 1000, 1},
    {"0.5m", 1, 1},
    {"1k", 1'000'000, 1000},
    {"1.5k", 1'500'000, 1500},
    {"1.G", 1'000'000'000'000, 1'000'000'000},  // apimachinery allows an empty fraction before a suffix
    {"1M", 1'000'000'000, 1'000'000},
    {"1G", 1'000'000'000'000, 1'000'000'000},
    {"1T", 1'000'000'000'000'000, 1'000'000'000'000},
    {"1P", 1'000'000'000'000'000'000, 1'000'000'000'000'000},
    {"1E", kMax, 1'000'000'000'000'000'000},  // lone "E" is exa; milli saturates
    // binary SI
    {"1Ki", 1'024'000, 1024},
    {"1Mi", 1'048'576'000, 1'048'576},
    {"200Mi", 209'715'200'000, 209'715'200},
    {"1Gi", 1'073'741'824'000, 1'073'741'824},
    {"1.5Gi", 1'610'612'736'000, 1'610'612'736},
    {"8Gi", 8'589'934'592'000, 8'589'934'592},
    {"1Ti", 1'099'511'627'776'000, 1'099'511'627'776},
    {"1Pi", 1'125'899'906'842'624'000, 1'125'899'906'842'624},
    {"1Ei", kMax, 1'152'921'504'606'846'976},
    {"0.5Ki", 512'000, 512},
    {"0.0000000001Ki", 1, 1},  // 102.4n rounds up to 103n
    {"8Ei", kMax, kMax},       // 2^63 is capped at MaxInt64 for binary quantities
    {"100000Ei", kMax, kMax},
    // exponent form
    {"1e3", 1'000'000, 1000},
    {"1E3", 1'000'000, 1000},
    {"1e+3", 1'000'000, 1000},
    {"129E6", 129'000'000'000, 129'000'000},
    {"5e-3", 5, 1},
    {"1.5e3", 1'500'000, 1500},
    {"1e0", 1000, 1},
    {"1e-9", 1, 1},
    {"1e-10", 1, 1},  // below 1n rounds up to 1n
    {"1e-1000000", 1, 1},
    {"0e999999", 0, 0},
    {"1e18", kMax, 1'000'000'000'000'000'000},
    {"1e20", kMax, kMax},  // Value() saturates
    {"1e29", kMax, kMax},  // 1e38 nanos still fits in int128
    // saturation at the int64 edges
    {"9223372036854775807", kMax, kMax},
    {"9223372036854775808", kMax, kMax},
    {"-9223372036854775808", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min()},
    // negatives: magnitude rounded up at parse, then ceil
    {"-1500m", -1500, -1},
    {"-0.5", -500, 0},
    {"-1Gi", -1'073'741'824'000, -1'073'741'824},
    {"-0.1n", 0, 0},
    {"-1e-9223372036854775808", 0, 0},  // the most negative int64 exponent is still an exponent
};

TEST(ParseQuantity, ValidQuantities) {
  for (const auto& c : kValid) {
    SCOPED_TRACE(c.text);
    std::string error;
    auto q = parse_quantity(c.text, &error);
    ASSERT_TRUE(q.has_value()) << error;
    EXPECT_EQ(q->milli_value(), c.milli);
    EXPECT_EQ(q->value(), c.value);
  }
}

TEST(ParseQuantity, KeepsExactNanoPrecision) {
  struct Case {
    std::string text;
    __int128 nanos;
  };
  const __int128 giga = 1'000'000'000;
  const std::vector<Case> cases = {
      {"0.1n", 1},  // rounded up, never down to zero
      {"1.1n", 2},
      {"-0.1n", -1},  // apimachinery rounds the magnitude up
      {"1n", 1},
      {"1.5", 1'500'000'000},
      {"0.0000000001Ki", 103},
      {"1Ei", static_cast<__int128>(1'152'921'504'606'846'976) * giga},
      {"8Ei", static_cast<__int128>(kMax) * giga},
      {"1e29", static_cast<__int128>(100) * 1'000'000'000'000'000'000 * 1'000'000'000'000'000'000},
      {"12345.6789", static_cast<__int128>(12'345'678'900'000)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto q = parse_quantity(c.text);
    ASSERT_TRUE(q.has_value());
    EXPECT_TRUE(q->nanos == c.nanos) << static_cast<long long>(q->nanos);
  }
}

struct InvalidCase {
  std::string text;
  std::string reason_contains;
};

const std::vector<InvalidCase> kInvalid = {
    {"", "empty"},
    {" 1", "whitespace"},
    {"1 ", "whitespace"},
    {"1 Gi", "whitespace"},
    {"1\t", "whitespace"},
    {"1K", "\"K\""},  // only lower-case k is kilo
    {"1ki", "\"ki\""},
    {"1KB", "B"},
    {"1MB", "B"},
    {"1Kii", "\"Kii\""},
    {"1i", "\"i\""},
    {"1Mi3", "Mi3"},
    {"-", "digits"},
    {"+", "digits"},
    {".", "digits"},
    {"m", "digits"},
    {"Gi", "digits"},
    {"--1", "digits"},
    {"1.2.3", "\".3\""},
    {"1e", "\"e\""},
    {"1e+", "exponent"},
    {"1ee3", "exponent"},
    {"1e3m", "m"},
    {"1e1.5", ".5"},
    {"0x10", "x10"},
    {"1,5", ",5"},
    {"abc", "digits"},
    {"1e30", "out of range"},  // 1e39 nanos exceeds int128
    {"2e29", "out of range"},
    {"1e100000", "out of range"},
    {"1e9223372036854775807", "out of range"},
    {"1e9223372036854775808", "exponent out of range"},  // does not even fit int64
    {"1e99999999999999999999999", "exponent out of range"},
    {"-1e30", "out of range"},
    {std::string(300, '1'), "too long"},
};

TEST(ParseQuantity, RejectsMalformedAndOutOfRange) {
  for (const auto& c : kInvalid) {
    SCOPED_TRACE(c.text);
    std::string error;
    EXPECT_FALSE(parse_quantity(c.text, &error).has_value());
    EXPECT_NE(error.find(c.reason_contains), std::string::npos) << error;
  }
}

TEST(ParseQuantity, ErrorPointerIsOptional) {
  EXPECT_FALSE(parse_quantity("1K").has_value());
  EXPECT_TRUE(parse_quantity("1k").has_value());
}

}  // namespace
}  // namespace quantity_test
}  // namespace kext
