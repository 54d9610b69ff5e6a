#pragma once
// RFC 3339 timestamps, as Kubernetes writes and reads them (metav1.Time, metav1.MicroTime): written in
// UTC, "2026-01-28T10:51:37Z", or with 3 (milliseconds) or 6 (microseconds) fractional digits; read
// with any fraction and a Z or numeric offset. The one place the project formats or parses them.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

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

// Whole seconds, as metav1.Time marshals them.
inline std::string rfc3339_seconds(int64_t unix_seconds) { return rfc3339(unix_seconds * 1'000'000); }

// Seconds since the epoch (any fraction dropped), or nullopt for anything that is not an RFC 3339 time.
std::optional<int64_t> parse_rfc3339(std::string_view text);

}  // namespace kext
