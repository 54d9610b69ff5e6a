#pragma once
// RFC 3339 UTC timestamps, as Kubernetes and its logs print them: "2026-01-28T10:51:37Z", or with
// 3 (milliseconds) or 6 (microseconds) fractional digits.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

namespace kext {

inline int64_t unix_micros_now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline std::string rfc3339(int64_t unix_micros, int fraction_digits = 0) {
  const int64_t secs = unix_micros >= 0 ? unix_micros / 1'000'000 : (unix_micros - 999'999) / 1'000'000;
  const int64_t micros = unix_micros - secs * 1'000'000;
  const time_t t = static_cast<time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  if (fraction_digits == 3) {
    n += static_cast<size_t>(
        std::snprintf(buf + n, sizeof buf - n, ".%03lld", static_cast<long long>(micros / 1000)));
  } else if (fraction_digits == 6) {
    n += static_cast<size_t>(
        std::snprintf(buf + n, sizeof buf - n, ".%06lld", static_cast<long long>(micros)));
  }
  buf[n++] = 'Z';
  return std::string(buf, n);
}

}  // namespace kext
