#pragma once
// Resource amounts in the units the scheduler compares: milli-CPU, bytes, counts.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kext {

struct ScalarResource {
  std::string name;  // e.g. "example.com/gpu", "hugepages-2Mi"
  int64_t value = 0;
  bool operator==(const ScalarResource&) const = default;
};

struct Resources {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t pods = 0;  // only meaningful for allocatable
  // Extended resources and hugepages, kept sorted by name (few entries, so a vector beats a map).
  std::vector<ScalarResource> scalars;

  int64_t scalar(std::string_view name) const;
  void set_scalar(std::string_view name, int64_t value);
  void add_scalar(std::string_view name, int64_t value);

  // Element-wise, saturating at the int64 limits (algorithms/saturating.h) rather than wrapping. There
  // is no subtract: a saturated sum cannot be undone, aggregates that shrink use ResourceTotals.
  void add(const Resources& other);
  // Element-wise maximum, as Kubernetes combines init containers with the container sum.
  void max_with(const Resources& other);
  // True when cpu, memory, ephemeral storage and every scalar are zero (pods ignored).
  bool requests_nothing() const;

  bool operator==(const Resources&) const = default;
};

// The exact sum of any number of Resources, for aggregates that must also shrink (a node's requests
// as pods come and go). A saturating int64 sum cannot be undone: once two 8Ei pods pinned it at
// the limit, subtracting one would leave 0 and make the node look empty while the other still fills
// it. An __int128 holds the sum of up to 2^64 int64 terms exactly, so subtract() undoes add() and
// the int64 view (saturated()) is always the true total clamped to the int64 range.
class ResourceTotals {
 public:
  void add(const Resources& r) { accumulate(r, 1); }
  void subtract(const Resources& r) { accumulate(r, -1); }
  Resources saturated() const;

 private:
  void accumulate(const Resources& r, int sign);

  __int128 milli_cpu_ = 0;
  __int128 memory_ = 0;
  __int128 ephemeral_storage_ = 0;
  __int128 pods_ = 0;
  std::vector<std::pair<std::string, __int128>> scalars_;  // sorted by name, like Resources::scalars
};

// Sets a named resource ("cpu" in milli units, everything else in whole units).
void set_named_resource(Resources& r, std::string_view name, int64_t milli_or_value);

}  // namespace kext
