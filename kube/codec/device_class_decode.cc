#include "kube/codec/device_class_decode.h"

namespace kext {

DeviceClass decode_device_class(const json::Value& v, std::string_view path) {
  json::expect_object(v, path);
  DeviceClass c;
  if (const json::Value* md = json::find_non_null(v, "metadata")) {
    const std::string mp = json::join_path(path, "metadata");
    json::expect_object(*md, mp);
    c.name = json::get_string(*md, "name", mp);
  }
  if (c.name.empty()) throw DecodeError(json::join_path(path, "metadata.name") + ": missing");
  if (const json::Value* spec = json::find_non_null(v, "spec")) {
    const std::string sp = json::join_path(path, "spec");
    json::expect_object(*spec, sp);
    if (json::find_non_null(*spec, "extendedResourceName"))
      c.extended_resource_name = json::get_string(*spec, "extendedResourceName", sp);
  }
  return c;
}

std::vector<std::string> dra_resource_names(const DeviceClass& c) {
  std::vector<std::string> out{std::string(kDeviceClassResourcePrefix) + c.name};
  if (c.extended_resource_name && !c.extended_resource_name->empty())
    out.push_back(*c.extended_resource_name);
  return out;
}

}  // namespace kext
