#include "algorithms/resources.h"

#include <algorithm>

#include "algorithms/saturating.h"

namespace kext {

namespace {
auto find_scalar(std::vector<ScalarResource>& v, std::string_view name) {
  return std::lower_bound(v.begin(), v.end(), name,
                          [](const ScalarResource& s, std::string_view n) { return s.name < n; });
}
}  // namespace

int64_t Resources::scalar(std::string_view name) const {
  auto it = std::lower_bound(scalars.begin(), scalars.end(), name,
                             [](const ScalarResource& s, std::string_view n) { return s.name < n; });
  return (it != scalars.end() && it->name == name) ? it->value : 0;
}

void Resources::set_scalar(std::string_view name, int64_t value) {
  auto it = find_scalar(scalars, name);
  if (it != scalars.end() && it->name == name) {
    it->value = value;
  } else {
    scalars.insert(it, ScalarResource{std::string(name), value});
  }
}

void Resources::add_scalar(std::string_view name, int64_t value) {
  auto it = find_scalar(scalars, name);
  if (it != scalars.end() && it->name == name) {
    it->value = sat_add(it->value, value);
  } else {
    scalars.insert(it, ScalarResource{std::string(name), value});
  }
}

void Resources::add(const Resources& o) {
  milli_cpu = sat_add(milli_cpu, o.milli_cpu);
  memory = sat_add(memory, o.memory);
  ephemeral_storage = sat_add(ephemeral_storage, o.ephemeral_storage);
  pods = sat_add(pods, o.pods);
  for (const auto& s : o.scalars) add_scalar(s.name, s.value);
}

void Resources::max_with(const Resources& o) {
  milli_cpu = std::max(milli_cpu, o.milli_cpu);
  memory = std::max(memory, o.memory);
  ephemeral_storage = std::max(ephemeral_storage, o.ephemeral_storage);
  pods = std::max(pods, o.pods);
  for (const auto& s : o.scalars) {
    if (s.value > scalar(s.name)) set_scalar(s.name, s.value);
  }
}

bool Resources::requests_nothing() const {
  if (milli_cpu != 0 || memory != 0 || ephemeral_storage != 0) return false;
  return std::all_of(scalars.begin(), scalars.end(), [](const ScalarResource& s) { return s.value == 0; });
}

void ResourceTotals::accumulate(const Resources& r, int sign) {
  milli_cpu_ += sign * static_cast<__int128>(r.milli_cpu);
  memory_ += sign * static_cast<__int128>(r.memory);
  ephemeral_storage_ += sign * static_cast<__int128>(r.ephemeral_storage);
  pods_ += sign * static_cast<__int128>(r.pods);
  for (const auto& s : r.scalars) {
    auto it = std::lower_bound(scalars_.begin(), scalars_.end(), s.name,
                               [](const auto& e, const std::string& n) { return e.first < n; });
    if (it == scalars_.end() || it->first != s.name) it = scalars_.insert(it, {s.name, 0});
    it->second += sign * static_cast<__int128>(s.value);
  }
}

Resources ResourceTotals::saturated() const {
  Resources r;
  r.milli_cpu = saturate(milli_cpu_);
  r.memory = saturate(memory_);
  r.ephemeral_storage = saturate(ephemeral_storage_);
  r.pods = saturate(pods_);
  r.scalars.reserve(scalars_.size());
  for (const auto& [name, value] : scalars_) r.scalars.push_back(ScalarResource{name, saturate(value)});
  return r;
}

void set_named_resource(Resources& r, std::string_view name, int64_t v) {
  if (name == "cpu") {
    r.milli_cpu = v;
  } else if (name == "memory") {
    r.memory = v;
  } else if (name == "ephemeral-storage") {
    r.ephemeral_storage = v;
  } else if (name == "pods") {
    r.pods = v;
  } else {
    r.set_scalar(name, v);
  }
}

}  // namespace kext
