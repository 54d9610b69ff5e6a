#include "extender/gpu/api_objects.h"

#include "json/json.h"

namespace kext {

std::string annotations_patch(const std::vector<std::pair<std::string_view, std::optional<std::string>>>& set,
                              const std::string& rv) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  w.StartObject();
  w.Key("metadata");
  w.StartObject();
  w.Key("annotations");
  w.StartObject();
  for (const auto& [key, value] : set) {
    json::write_string(w, key);
    if (value)
      json::write_string(w, *value);
    else
      w.Null();
  }
  w.EndObject();
  if (!rv.empty()) json::write_member(w, "resourceVersion", rv);
  w.EndObject();
  w.EndObject();
  return {sb.GetString(), sb.GetSize()};
}

}  // namespace kext
