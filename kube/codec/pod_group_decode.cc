#include "kube/codec/pod_group_decode.h"

#include <limits>
#include <string>

#include "kube/codec/k8s_decode.h"

namespace kext {

using json::expect_object;
using json::find_non_null;
using json::get_int;
using json::get_string;
using json::join_path;

namespace {

// The group of "group/version"; "" for a core "v1" or none.
std::string_view api_group(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

}  // namespace

gang::PodGroupSpec decode_pod_group(const json::Value& v, std::string_view path, gang::GroupApi fallback) {
  expect_object(v, path);
  gang::PodGroupSpec g;
  const std::string api_version = get_string(v, "apiVersion", path);
  const json::Value* spec = find_non_null(v, "spec");
  if (!api_version.empty()) {
    g.api = api_group(api_version) == "scheduling.k8s.io" ? gang::GroupApi::kWorkload
                                                          : gang::GroupApi::kCoscheduling;
  } else {
    g.api = spec && spec->IsObject() && find_non_null(*spec, "schedulingPolicy") ? gang::GroupApi::kWorkload
                                                                                 : fallback;
  }
  g.min_member = 0;  // Go's zero value when spec.minMember is absent
  if (const json::Value* md = find_non_null(v, "metadata")) {
    const std::string mp = join_path(path, "metadata");
    expect_object(*md, mp);
    g.name = get_string(*md, "name", mp);
    g.namespace_ = get_string(*md, "namespace", mp);
    g.creation_unix_seconds = decode_time(*md, "creationTimestamp", mp).value_or(0);
  }
  if (g.name.empty()) throw DecodeError(join_path(path, "metadata.name") + ": missing");
  const std::string sp = join_path(path, "spec");
  // int32 fields: a value outside its range is refused as the API server's decoding refuses it.
  auto int32_at = [](const json::Value& o, std::string_view key,
                     const std::string& at) -> std::optional<int32_t> {
    const std::optional<int64_t> n = get_int(o, key, at);
    if (!n) return std::nullopt;
    if (*n < 0 || *n > std::numeric_limits<int32_t>::max())
      throw DecodeError(join_path(at, key) + ": " + std::to_string(*n) + " is not a count (0 to 2147483647)");
    return static_cast<int32_t>(*n);
  };
  if (g.api == gang::GroupApi::kWorkload) {
    const std::string pp = join_path(sp, "schedulingPolicy");
    if (spec) expect_object(*spec, sp);
    const json::Value* policy = spec ? find_non_null(*spec, "schedulingPolicy") : nullptr;
    if (policy == nullptr) throw DecodeError(pp + ": missing (gang or basic)");
    expect_object(*policy, pp);
    if (const json::Value* gang = find_non_null(*policy, "gang")) {
      const std::string gp = join_path(pp, "gang");
      expect_object(*gang, gp);
      g.min_member = int32_at(*gang, "minCount", gp).value_or(0);
    } else if (find_non_null(*policy, "basic") != nullptr) {
      g.all_or_nothing = false;
      g.min_member = 1;
    } else {
      throw DecodeError(pp + ": neither gang nor basic");
    }
    return g;
  }
  if (spec == nullptr) return g;
  expect_object(*spec, sp);
  auto int32_at_spec = [&](std::string_view key) { return int32_at(*spec, key, sp); };
  g.min_member = int32_at_spec("minMember").value_or(0);
  g.schedule_timeout_seconds = int32_at_spec("scheduleTimeoutSeconds");
  if (const json::Value* r = find_non_null(*spec, "minResources"))
    g.min_resources = decode_resource_list(*r, join_path(sp, "minResources"));
  return g;
}

}  // namespace kext
