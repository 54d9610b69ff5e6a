#pragma once
// The API paths and patch bodies GPU sharing writes (gpu_binder.h, gpu_requeue.h).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kext {

inline std::string pod_path(const std::string& ns, const std::string& name) {
  return "/api/v1/namespaces/" + ns + "/pods/" + name;
}

inline std::string node_path(const std::string& node) { return "/api/v1/nodes/" + node; }

// A JSON merge patch {"metadata":{"annotations":{...},"resourceVersion":rv}} (no resourceVersion when `rv`
// is empty); a nullopt value removes the annotation.
std::string annotations_patch(const std::vector<std::pair<std::string_view, std::optional<std::string>>>& set,
                              const std::string& rv);

}  // namespace kext
