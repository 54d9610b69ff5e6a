#include "algorithms/gang/pod_group.h"

#include <tuple>

namespace kext::gang {

std::string group_key(GroupApi api, std::string_view namespace_, std::string_view name) {
  std::string key;
  key.reserve(namespace_.size() + name.size() + 21);
  key.append(namespace_).append("/").append(name);
  if (api == GroupApi::kWorkload) key.append(" (scheduling.k8s.io)");
  return key;
}

std::optional<std::string> pod_group_key(const PodMeta& pod) {
  if (!pod.scheduling_group.empty())
    return group_key(GroupApi::kWorkload, pod.namespace_, pod.scheduling_group);
  auto it = pod.labels.find(kPodGroupLabel);
  if (it == pod.labels.end() || it->second.empty()) return std::nullopt;
  return group_key(GroupApi::kCoscheduling, pod.namespace_, it->second);
}

bool admitted_before(const PodGroupSpec& a, int32_t a_priority, const PodGroupSpec& b, int32_t b_priority) {
  if (a_priority != b_priority) return a_priority > b_priority;
  return std::tie(a.creation_unix_seconds, a.namespace_, a.name, a.api) <
         std::tie(b.creation_unix_seconds, b.namespace_, b.name, b.api);
}

}  // namespace kext::gang
