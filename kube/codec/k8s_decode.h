#pragma once
// Kubernetes objects (camelCase API JSON) -> the algorithms' model. Throws DecodeError naming the
// field on malformed input.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/model.h"
#include "json/json.h"

namespace kext {

Pod decode_pod(const json::Value& v, std::string_view path);
Node decode_node(const json::Value& v, std::string_view path);
PodDisruptionBudget decode_pdb(const json::Value& v, std::string_view path);

// An optional map of strings (labels, a Service's selector); empty when absent or null.
Labels decode_string_map(const json::Value& obj, std::string_view key, std::string_view path);
// An optional array of strings; empty when absent or null.
std::vector<std::string> decode_string_array(const json::Value& obj, std::string_view key,
                                             std::string_view path);
// metav1.LabelSelector, the one decoder for every selector. nullopt when the member is absent or
// null: metav1.LabelSelectorAsSelector turns nil into labels.Nothing() and {} into labels.Everything().
std::optional<LabelSelector> decode_label_selector(const json::Value& obj, std::string_view key,
                                                   std::string_view path);

// An optional RFC 3339 time (metadata.creationTimestamp, metadata.deletionTimestamp, status.startTime)
// as Unix seconds; a DecodeError naming `path`.`key` for anything else. The one decoder of them.
std::optional<int64_t> decode_time(const json::Value& obj, std::string_view key, std::string_view path);

// A map of name -> quantity string (requests, allocatable, overhead) into Resources.
Resources decode_resource_list(const json::Value& v, std::string_view path);

}  // namespace kext
