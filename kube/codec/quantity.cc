#include "kube/codec/quantity.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <vector>

#include "algorithms/saturating.h"

namespace kext {

namespace {

constexpr __int128 kInt128Max = static_cast<__int128>((~static_cast<unsigned __int128>(0)) >> 1);
constexpr __int128 kNanosPerUnit = 1'000'000'000;
// apimachinery caps BinarySI quantities at MaxInt64 units instead of failing.
constexpr __int128 kBinaryCapNanos =
    static_cast<__int128>(std::numeric_limits<int64_t>::max()) * kNanosPerUnit;
// A longer string is not a quantity anyone sends; the cap keeps the digit arithmetic below trivially
// cheap whatever the input.
constexpr size_t kMaxLength = 256;
// Exponents beyond this are equivalent for every accepted length: the value is either far above
// int128 or far below one nano-unit.
constexpr int64_t kExponentClamp = 100'000;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool fail(std::string* error, std::string reason) {
  if (error) *error = std::move(reason);
  return false;
}

struct Suffix {
  int64_t exponent10 = 0;  // power of ten
  int binary_kilos = 0;    // power of 1024
  bool binary = false;
};

// suffix.go: the decimal and binary SI tables, then "e<int>" / "E<int>" (only when longer than
// one character, so a lone "E" is exa).
bool interpret_suffix(std::string_view s, Suffix& out, std::string* error) {
  static constexpr std::pair<std::string_view, int> kDecimal[] = {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0},
                                                                  {"k", 3},  {"M", 6},  {"G", 9},  {"T", 12},
                                                                  {"P", 15}, {"E", 18}};
  static constexpr std::pair<std::string_view, int> kBinary[] = {{"Ki", 1}, {"Mi", 2}, {"Gi", 3},
                                                                 {"Ti", 4}, {"Pi", 5}, {"Ei", 6}};
  for (const auto& [name, exp] : kDecimal) {
    if (s == name) {
      out.exponent10 = exp;
      return true;
    }
  }
  for (const auto& [name, kilos] : kBinary) {
    if (s == name) {
      out.binary = true;
      out.binary_kilos = kilos;
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    // strconv.ParseInt semantics: optional sign, at least one digit, must fit int64.
    std::string_view rest = s.substr(1);
    bool negative = false;
    if (rest[0] == '+' || rest[0] == '-') {
      negative = rest[0] == '-';
      rest.remove_prefix(1);
    }
    if (rest.empty() || !std::all_of(rest.begin(), rest.end(), is_digit)) {
      return fail(error, "invalid exponent \"" + std::string(s) + "\"");
    }
    unsigned __int128 magnitude = 0;
    for (char c : rest) {
      magnitude = magnitude * 10 + static_cast<unsigned>(c - '0');
      if (magnitude > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()) + 1) {
        return fail(error, "exponent out of range");
      }
    }
    if (!negative && magnitude > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max())) {
      return fail(error, "exponent out of range");
    }
    int64_t clamped = static_cast<int64_t>(std::min<unsigned __int128>(magnitude, kExponentClamp));
    out.exponent10 = negative ? -clamped : clamped;
    return true;
  }
  return fail(error, "unknown suffix \"" + std::string(s) + "\"");
}

// Multiplies a big-endian decimal digit string by a small factor in place.
void multiply_digits(std::vector<uint8_t>& digits, uint32_t factor) {
  uint64_t carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    uint64_t v = static_cast<uint64_t>(*it) * factor + carry;
    *it = static_cast<uint8_t>(v % 10);
    carry = v / 10;
  }
  while (carry > 0) {
    digits.insert(digits.begin(), static_cast<uint8_t>(carry % 10));
    carry /= 10;
  }
}

// Accumulates digits into an int128; false on overflow.
bool digits_to_int128(const std::vector<uint8_t>& digits, size_t count, __int128& out) {
  __int128 v = 0;
  for (size_t i = 0; i < count; ++i) {
    int d = i < digits.size() ? digits[i] : 0;  // positions past the digits are appended zeros
    if (v > (kInt128Max - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

__int128 ceil_div(__int128 n, __int128 d) {
  __int128 q = n / d;  // truncates toward zero, which is already the ceiling for negative n
  if (n % d != 0 && n > 0) ++q;
  return q;
}

// quantity.go parseQuantityString's pieces of <sign?><digits>[.<digits>]<suffix>, uninterpreted.
struct QuantityParts {
  bool negative = false;
  std::string_view num;     // the digits before the point
  std::string_view denom;   // the digits after it
  std::string_view suffix;  // "", "Mi", "m", "e3", ...
};

// The checks before any parsing (a bound on the length, no whitespace), then parseQuantityString.
bool split_quantity(std::string_view text, QuantityParts& out, std::string* error) {
  if (text.empty()) return fail(error, "empty quantity");
  if (text.size() > kMaxLength) return fail(error, "quantity too long");
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
    return fail(error, "whitespace in quantity");

  size_t pos = 0;
  if (text[pos] == '+' || text[pos] == '-') {
    out.negative = text[pos] == '-';
    ++pos;
  }
  size_t num_begin = pos;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  out.num = text.substr(num_begin, pos - num_begin);
  if (pos < text.size() && text[pos] == '.') {
    size_t denom_begin = ++pos;
    while (pos < text.size() && is_digit(text[pos])) ++pos;
    out.denom = text.substr(denom_begin, pos - denom_begin);
  }
  // apimachinery reads "-", "." or "m" as zero; a number without any digit is a typo we refuse.
  if (out.num.empty() && out.denom.empty()) return fail(error, "missing digits");

  // The suffix is a run of suffix letters, then an optional signed integer for the exponent form,
  // and nothing after it ("1.2.3", "1e3m" are malformed).
  size_t suffix_begin = pos;
  while (pos < text.size() && std::string_view("eEinumkKMGTP").find(text[pos]) != std::string_view::npos)
    ++pos;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  if (pos != text.size()) return fail(error, "invalid format at \"" + std::string(text.substr(pos)) + "\"");
  out.suffix = text.substr(suffix_begin);
  return true;
}

// The quantity's exact value in nano-units, as ParseQuantity's inf.Dec arithmetic keeps it:
// digits * 1024^kilos * 10^(exponent10 - |denom|), rounded up below a nano-unit; BinarySI capped.
bool exact_nanos(const QuantityParts& parts, const Suffix& suffix, __int128& out, std::string* error) {
  std::vector<uint8_t> digits;
  for (char c : parts.num) digits.push_back(static_cast<uint8_t>(c - '0'));
  for (char c : parts.denom) digits.push_back(static_cast<uint8_t>(c - '0'));
  for (int i = 0; i < suffix.binary_kilos; ++i) multiply_digits(digits, 1024);
  auto first = std::find_if(digits.begin(), digits.end(), [](uint8_t d) { return d != 0; });
  digits.erase(digits.begin(), first);
  if (digits.empty()) {
    out = 0;
    return true;
  }

  // In nano-units add 9 to the power.
  int64_t power = suffix.exponent10 - static_cast<int64_t>(parts.denom.size()) + 9;
  int64_t int_digits = static_cast<int64_t>(digits.size()) + power;
  __int128 nanos = 0;
  bool in_range = true;
  if (int_digits > 39) {  // int128 max has 39 digits; bound-checked before any multiplication
    in_range = false;
  } else if (int_digits > 0) {
    in_range = digits_to_int128(digits, static_cast<size_t>(int_digits), nanos);
  }
  if (in_range && int_digits < static_cast<int64_t>(digits.size())) {
    // Digits finer than a nano-unit: apimachinery rounds the magnitude up (inf.RoundUp).
    size_t from = static_cast<size_t>(std::max<int64_t>(int_digits, 0));
    if (std::any_of(digits.begin() + static_cast<std::ptrdiff_t>(from), digits.end(),
                    [](uint8_t d) { return d != 0; })) {
      if (nanos == kInt128Max) {
        in_range = false;
      } else {
        ++nanos;
      }
    }
  }
  if (suffix.binary && (!in_range || nanos > kBinaryCapNanos)) {
    nanos = kBinaryCapNanos;
    in_range = true;
  }
  if (!in_range) return fail(error, "value out of range");
  out = parts.negative ? -nanos : nanos;
  return true;
}

}  // namespace

int64_t Quantity::milli_value() const { return saturate(ceil_div(nanos, 1'000'000)); }

int64_t Quantity::value() const { return saturate(ceil_div(nanos, kNanosPerUnit)); }

std::optional<Quantity> parse_quantity(std::string_view text, std::string* error) {
  QuantityParts parts;
  if (!split_quantity(text, parts, error)) return std::nullopt;
  Suffix suffix;
  if (!interpret_suffix(parts.suffix, suffix, error)) return std::nullopt;
  Quantity q;
  if (!exact_nanos(parts, suffix, q.nanos, error)) return std::nullopt;
  return q;
}

}  // namespace kext
