#pragma once
// resource.k8s.io DeviceClasses, camelCase API JSON -> the extended resource names they back with DRA
// devices (DRAExtendedResource: ClusterView::dra_extended_resources, read by NodeResourcesFit). Throws
// DecodeError naming the field on malformed input.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.h"

namespace kext {

// The prefix of the name every class backs implicitly (resource.k8s.io/v1 ResourceDeviceClassPrefix).
inline constexpr std::string_view kDeviceClassResourcePrefix = "deviceclass.resource.kubernetes.io/";

struct DeviceClass {
  std::string name;                                   // metadata.name
  std::optional<std::string> extended_resource_name;  // spec.extendedResourceName
  bool operator==(const DeviceClass&) const = default;
};

// metadata.name (required) and spec.extendedResourceName; the same in v1, v1beta2 and v1beta1.
DeviceClass decode_device_class(const json::Value& v, std::string_view path);

// The names the class backs, as the scheduler's DeviceClassResolver maps them
// (pkg/scheduler/framework/plugins/dynamicresources/extended cache): "deviceclass.resource.kubernetes.io/"
// + its name always, and its spec.extendedResourceName when set.
std::vector<std::string> dra_resource_names(const DeviceClass& c);

}  // namespace kext
