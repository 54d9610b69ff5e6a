#include "kube/codec/pod_group_decode.h"

#include <limits>
#include <string>

#include "common/k8s_names.h"
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

// The node label key at `obj`.`key`, "" when absent or empty (no constraint); anything but a label key
// is refused, as the API server's validation refuses it in a node's labels (validation.go
// IsQualifiedName): a key no node can have would leave the group pending for good.
std::string topology_key(const json::Value& obj, std::string_view key, std::string_view path) {
  std::string value = get_string(obj, key, path);
  if (value.empty()) return value;
  if (const std::string why = qualified_name_error(value); !why.empty())
    throw DecodeError(join_path(path, key) + ": \"" + value + "\" is not a node label key: " + why);
  return value;
}

// Upstream's spec.schedulingConstraints.topology[].key (k8s.io/api scheduling/v1alpha2 types.go
// PodGroupSchedulingConstraints): one entry at most, with its key, as the API server's validation
// requires; "" without one.
std::string upstream_topology(const json::Value& spec, std::string_view spec_path) {
  const json::Value* constraints = find_non_null(spec, "schedulingConstraints");
  if (constraints == nullptr) return "";
  const std::string cp = join_path(spec_path, "schedulingConstraints");
  expect_object(*constraints, cp);
  const json::Value* list = find_non_null(*constraints, "topology");
  if (list == nullptr) return "";
  const std::string tp = join_path(cp, "topology");
  if (!list->IsArray()) throw DecodeError(tp + ": expected array, got " + json::type_name(*list));
  if (list->Empty()) return "";
  if (list->Size() > 1) throw DecodeError(tp + ": at most one entry, got " + std::to_string(list->Size()));
  const std::string ep = tp + "[0]";
  expect_object((*list)[0], ep);
  std::string key = topology_key((*list)[0], "key", ep);
  if (key.empty()) throw DecodeError(join_path(ep, "key") + ": required");
  return key;
}

// The group's topology constraint: the annotations of either API (pod_group.h), and upstream's own
// field, which wins over the required annotation.
gang::TopologyConstraint decode_topology(const json::Value* md, const json::Value* spec, gang::GroupApi api,
                                         std::string_view path) {
  gang::TopologyConstraint t;
  if (md != nullptr) {
    if (const json::Value* annotations = find_non_null(*md, "annotations")) {
      const std::string ap = join_path(path, "metadata.annotations");
      expect_object(*annotations, ap);
      // An annotation is free text to the API server: a bad value is the group's problem, said to its
      // members (gang::TopologyConstraint::invalid), not a reason to drop the PodGroup.
      for (auto [annotation, field] : {std::pair{gang::kRequiredTopologyAnnotation, &t.required},
                                       std::pair{gang::kPreferredTopologyAnnotation, &t.preferred}}) {
        try {
          *field = topology_key(*annotations, annotation, ap);
        } catch (const DecodeError& e) {
          if (qualified_name_error(get_string(*annotations, annotation, ap)).empty()) throw;
          t.invalid = e.what();
        }
      }
    }
  }
  if (api == gang::GroupApi::kWorkload && spec != nullptr && spec->IsObject()) {
    if (std::string key = upstream_topology(*spec, join_path(path, "spec")); !key.empty())
      t.required = std::move(key);
  }
  return t;
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
  const json::Value* md = find_non_null(v, "metadata");
  if (md != nullptr) {
    const std::string mp = join_path(path, "metadata");
    expect_object(*md, mp);
    g.name = get_string(*md, "name", mp);
    g.namespace_ = get_string(*md, "namespace", mp);
    g.creation_unix_seconds = decode_time(*md, "creationTimestamp", mp).value_or(0);
  }
  if (g.name.empty()) throw DecodeError(join_path(path, "metadata.name") + ": missing");
  g.topology = decode_topology(md, spec, g.api, path);
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
