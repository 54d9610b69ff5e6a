#include "extender/codec/pod_group_decode.h"

#include <limits>
#include <string>

#include "extender/codec/k8s_decode.h"

namespace kext {

using json::expect_object;
using json::find_non_null;
using json::get_int;
using json::get_string;
using json::join_path;

gang::PodGroupSpec decode_pod_group(const json::Value& v, std::string_view path) {
  expect_object(v, path);
  gang::PodGroupSpec g;
  g.min_member = 0;  // Go's zero value when spec.minMember is absent
  if (const json::Value* md = find_non_null(v, "metadata")) {
    const std::string mp = join_path(path, "metadata");
    expect_object(*md, mp);
    g.name = get_string(*md, "name", mp);
    g.namespace_ = get_string(*md, "namespace", mp);
    g.creation_unix_seconds = decode_time(*md, "creationTimestamp", mp).value_or(0);
  }
  if (g.name.empty()) throw DecodeError(join_path(path, "metadata.name") + ": missing");
  const json::Value* spec = find_non_null(v, "spec");
  if (spec == nullptr) return g;
  const std::string sp = join_path(path, "spec");
  expect_object(*spec, sp);
  // int32 fields: a value outside its range is refused as the API server's decoding refuses it.
  auto int32_at = [&](std::string_view key) -> std::optional<int32_t> {
    const std::optional<int64_t> n = get_int(*spec, key, sp);
    if (!n) return std::nullopt;
    if (*n < 0 || *n > std::numeric_limits<int32_t>::max())
      throw DecodeError(join_path(sp, key) + ": " + std::to_string(*n) + " is not a count (0 to 2147483647)");
    return static_cast<int32_t>(*n);
  };
  g.min_member = int32_at("minMember").value_or(0);
  g.schedule_timeout_seconds = int32_at("scheduleTimeoutSeconds");
  if (const json::Value* r = find_non_null(*spec, "minResources"))
    g.min_resources = decode_resource_list(*r, join_path(sp, "minResources"));
  return g;
}

}  // namespace kext
