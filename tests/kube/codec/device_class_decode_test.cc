#include "kube/codec/device_class_decode.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kext {
namespace device_class_decode_test {
namespace {

rapidjson::Document doc(const char* text) {
  rapidjson::Document d;
  d.Parse(text);
  return d;
}

// resource.k8s.io/v1 DeviceClass: the names the scheduler's DeviceClassResolver maps to it.
TEST(DecodeDeviceClass, NamesAndTheResourcesTheyBack) {
  auto explicit_name = doc(R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
      "metadata":{"name":"gpu.example.com"},
      "spec":{"selectors":[{"cel":{"expression":"true"}}],"extendedResourceName":"example.com/gpu"}})");
  const DeviceClass c = decode_device_class(explicit_name, "DeviceClass");
  EXPECT_EQ(c.name, "gpu.example.com");
  EXPECT_EQ(c.extended_resource_name, "example.com/gpu");
  EXPECT_EQ(
      dra_resource_names(c),
      (std::vector<std::string>{"deviceclass.resource.kubernetes.io/gpu.example.com", "example.com/gpu"}));

  auto implicit_only = doc(R"({"metadata":{"name":"fpga"},"spec":{"extendedResourceName":null}})");
  const DeviceClass f = decode_device_class(implicit_only, "DeviceClass");
  EXPECT_FALSE(f.extended_resource_name);
  EXPECT_EQ(dra_resource_names(f), std::vector<std::string>{"deviceclass.resource.kubernetes.io/fpga"});
}

TEST(DecodeDeviceClass, MalformedNamesItsPath) {
  for (const auto& [text, path] : std::vector<std::pair<const char*, const char*>>{
           {R"({"spec":{}})", "DeviceClass.metadata.name"},
           {R"({"metadata":{"name":"a"},"spec":{"extendedResourceName":3}})",
            "DeviceClass.spec.extendedResourceName"},
           {R"({"metadata":{"name":"a"},"spec":[]})", "DeviceClass.spec"},
           {R"([])", "DeviceClass"},
       }) {
    SCOPED_TRACE(text);
    auto d = doc(text);
    try {
      decode_device_class(d, "DeviceClass");
      ADD_FAILURE() << "decoded";
    } catch (const DecodeError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace device_class_decode_test
}  // namespace kext
