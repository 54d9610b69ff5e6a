#pragma once
// Resource amounts in the units the scheduler compares: milli-CPU, bytes, counts.
#include <cstdint>
#include <string>
#include <string_view>
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

  void add(const Resources& other);
  void subtract(const Resources& other);
  // Element-wise maximum, as Kubernetes combines init containers with the container sum.
  void max_with(const Resources& other);
  // True when cpu, memory, ephemeral storage and every scalar are zero (pods ignored).
  bool requests_nothing() const;

  bool operator==(const Resources&) const = default;
};

// Sets a named resource ("cpu" in milli units, everything else in whole units).
void set_named_resource(Resources& r, std::string_view name, int64_t milli_or_value);

}  // namespace kext
