#pragma once
// Kubernetes resource.Quantity parsing (apimachinery pkg/api/resource), numeric side only.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kext {

// An exact quantity in nano-units (1e-9), as the apimachinery parser keeps it; finer digits round
// up. Values beyond the int128 range are rejected as out of range.
struct Quantity {
  __int128 nanos = 0;
  // ceil(q * 1000), saturated to int64 like MilliValue().
  int64_t milli_value() const;
  // ceil(q), saturated to int64 like Value().
  int64_t value() const;
};

// Parses "100m", "1Gi", "1e3", "0.5", "1k", "-2", ".5", "5." ... On failure returns nullopt and sets
// *error (if given) to a short reason such as "unknown suffix \"K\"".
std::optional<Quantity> parse_quantity(std::string_view text, std::string* error = nullptr);

}  // namespace kext
