#pragma once
// The API paths and patch bodies GPU sharing writes (gpu_binder.h, gpu_requeue.h).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kext {

inline std::string pod_path(std::string_view ns, std::string_view name) {
  return std::string("/api/v1/namespaces/").append(ns).append("/pods/").append(name);
}

inline std::string node_path(std::string_view node) { return std::string("/api/v1/nodes/").append(node); }

// A JSON merge patch {"metadata":{"annotations":{...},"resourceVersion":rv}} (no resourceVersion when `rv`
// is empty); a nullopt value removes the annotation.
std::string annotations_patch(const std::vector<std::pair<std::string_view, std::optional<std::string>>>& set,
                              const std::string& rv);

}  // namespace kext
