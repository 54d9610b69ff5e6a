#pragma once
// What objects.cc and model_json.cc both write: a string map (labels, selectors) and a metav1.Time.
#include <cstdint>
#include <string_view>

#include "common/rfc3339.h"
#include "json/json.h"
#include "kubeobjects/objects.h"

namespace kext::kubeobjects {

// An `omitempty` map of strings (labels, annotations, nodeSelector, matchLabels), in its order.
template <typename Map>
void map_member(JsonWriter& w, const char* key, const Map& m) {
  if (m.empty()) return;
  w.Key(key);
  w.StartObject();
  for (const auto& [k, v] : m) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
    json::write_string(w, v);
  }
  w.EndObject();
}

// An `omitempty` metav1.Time (0 = unset).
inline void time_member(JsonWriter& w, const char* key, int64_t unix_seconds) {
  if (unix_seconds != 0) json::write_member(w, key, rfc3339_seconds(unix_seconds));
}

}  // namespace kext::kubeobjects
