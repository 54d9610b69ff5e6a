#include "algorithms/gang/pod_group.h"

#include <tuple>

namespace kext::gang {

std::optional<std::string> pod_group_key(const PodMeta& pod) {
  auto it = pod.labels.find(kPodGroupLabel);
  if (it == pod.labels.end() || it->second.empty()) return std::nullopt;
  return pod.namespace_ + "/" + it->second;
}

bool admitted_before(const PodGroupSpec& a, int32_t a_priority, const PodGroupSpec& b, int32_t b_priority) {
  if (a_priority != b_priority) return a_priority > b_priority;
  return std::tie(a.creation_unix_seconds, a.namespace_, a.name) <
         std::tie(b.creation_unix_seconds, b.namespace_, b.name);
}

}  // namespace kext::gang
