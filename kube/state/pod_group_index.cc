#include "kube/state/pod_group_index.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace kext {

// The namespace, then the addresses of the interned label set and affinity terms: equal pointers are
// equal contents (StateCache interns both), so a map lookup by this key finds the pod's group.
std::string PodGroupIndex::key_of(const PodMeta& pod) {
  const auto labels = reinterpret_cast<uintptr_t>(pod.labels.shared().get());
  const auto affinity = reinterpret_cast<uintptr_t>(pod.affinity.get());
  std::string key = pod.namespace_;
  key.push_back('\0');
  key.append(reinterpret_cast<const char*>(&labels), sizeof labels);
  key.append(reinterpret_cast<const char*>(&affinity), sizeof affinity);
  return key;
}

void PodGroupIndex::add(const std::shared_ptr<const PodInfo>& pod) {
  const std::string key = key_of(*pod->pod);
  auto next = std::make_shared<PodGroup>();
  if (const auto* old = groups_.find(key)) {
    *next = **old;
  } else {
    next->first = *pod->pod;
  }
  next->pods.push_back(pod);
  groups_.put(key, std::move(next));
}

void PodGroupIndex::remove(const PodInfo* pod) {
  const std::string key = key_of(*pod->pod);
  const auto* old = groups_.find(key);
  if (!old) return;
  const auto& pods = (*old)->pods;
  auto it = std::find_if(pods.begin(), pods.end(), [&](const auto& p) { return p.get() == pod; });
  if (it == pods.end()) return;
  if (pods.size() == 1) {
    groups_.erase(key);
    return;
  }
  auto next = std::make_shared<PodGroup>(**old);
  next->pods.erase(next->pods.begin() + (it - pods.begin()));
  groups_.put(key, std::move(next));
}

}  // namespace kext
