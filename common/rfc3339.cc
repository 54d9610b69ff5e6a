#include "common/rfc3339.h"

namespace kext {

namespace {

int parse_digits(std::string_view s, size_t pos, size_t n, bool& ok) {
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (i >= s.size() || s[i] < '0' || s[i] > '9') {
      ok = false;
      return 0;
    }
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

}  // namespace

std::optional<int64_t> parse_rfc3339(std::string_view s) {
  bool ok = true;
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' ||
      s[16] != ':') {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = parse_digits(s, 0, 4, ok) - 1900;
  tm.tm_mon = parse_digits(s, 5, 2, ok) - 1;
  tm.tm_mday = parse_digits(s, 8, 2, ok);
  tm.tm_hour = parse_digits(s, 11, 2, ok);
  tm.tm_min = parse_digits(s, 14, 2, ok);
  tm.tm_sec = parse_digits(s, 17, 2, ok);
  if (!ok || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60) {
    return std::nullopt;
  }
  size_t pos = 19;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos;
    if (pos == start) return std::nullopt;
  }
  int64_t offset = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos + 6 == s.size() && (s[pos] == '+' || s[pos] == '-') && s[pos + 3] == ':') {
    int h = parse_digits(s, pos + 1, 2, ok);
    int m = parse_digits(s, pos + 4, 2, ok);
    if (!ok) return std::nullopt;
    offset = (h * 3600 + m * 60) * (s[pos] == '+' ? 1 : -1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  return static_cast<int64_t>(timegm(&tm)) - offset;
}

}  // namespace kext
