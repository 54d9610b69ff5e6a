#pragma once
// ExtenderBindingArgs {"PodName","PodNamespace","PodUID","Node"} and the Binding object the API takes.
#include <string>
#include <string_view>

namespace kext {

struct BindingArgs {
  std::string pod_name;
  std::string pod_namespace;
  std::string pod_uid;
  std::string node;
};

// Throws DecodeError naming the missing or mistyped field.
BindingArgs decode_binding_args(std::string_view body);

// The v1 Binding for POST /api/v1/namespaces/{ns}/pods/{name}/binding. The UID makes the API refuse
// to bind a different pod that reused the name.
std::string encode_binding(const BindingArgs& args);

}  // namespace kext
