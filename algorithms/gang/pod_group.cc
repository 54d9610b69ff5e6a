#include "algorithms/gang/pod_group.h"

#include <tuple>

#include "algorithms/namespaced_key.h"

namespace kext::gang {

namespace {
constexpr std::string_view kWorkloadSuffix = " (scheduling.k8s.io)";
}  // namespace

std::string group_key(GroupApi api, std::string_view namespace_, std::string_view name) {
  std::string key = namespaced_key(namespace_, name);
  if (api == GroupApi::kWorkload) key.append(kWorkloadSuffix);
  return key;
}

Membership membership_in(const PodMeta& pod, std::string_view group) {
  if (pod.terminating) return Membership::kNone;
  const std::string_view ns = pod.namespace_;
  if (group.size() <= ns.size() || !group.starts_with(ns) || group[ns.size()] != '/')
    return Membership::kNone;
  std::string_view name = group.substr(ns.size() + 1);
  if (!pod.scheduling_group.empty()) {
    if (!name.ends_with(kWorkloadSuffix)) return Membership::kNone;
    name.remove_suffix(kWorkloadSuffix.size());
    if (name != pod.scheduling_group) return Membership::kNone;
  } else {
    auto it = pod.labels.find(kPodGroupLabel);
    if (it == pod.labels.end() || it->second.empty() || it->second != name) return Membership::kNone;
  }
  return pod.node_name.empty() ? Membership::kPending : Membership::kBound;
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
