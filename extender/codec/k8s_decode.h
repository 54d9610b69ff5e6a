#pragma once
// Kubernetes objects (camelCase API JSON) -> the algorithms' model. Throws DecodeError naming the
// field on malformed input.
#include <string_view>

#include "algorithms/model.h"
#include "json/json.h"

namespace kext {

Pod decode_pod(const json::Value& v, std::string_view path);
Node decode_node(const json::Value& v, std::string_view path);
PodDisruptionBudget decode_pdb(const json::Value& v, std::string_view path);

// A map of name -> quantity string (requests, allocatable, overhead) into Resources.
Resources decode_resource_list(const json::Value& v, std::string_view path);

}  // namespace kext
