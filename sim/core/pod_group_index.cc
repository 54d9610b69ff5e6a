#include "sim/core/pod_group_index.h"

#include <algorithm>
#include <cstdint>

namespace kext::sim {

std::string PodGroupIndex::key_of(const PodMeta& pod) {
  std::string key = pod.namespace_;
  for (const auto& [k, v] : pod.labels) {
    key.push_back('\0');
    key += k;
    key.push_back('=');
    key += v;
  }
  if (pod.affinity) {
    const auto address = reinterpret_cast<uintptr_t>(pod.affinity.get());
    key.push_back('\1');
    key.append(reinterpret_cast<const char*>(&address), sizeof address);
  }
  return key;
}

void PodGroupIndex::add(const std::shared_ptr<const PodInfo>& pod) {
  auto [it, inserted] = groups_.try_emplace(key_of(*pod->pod));
  if (inserted) it->second.first = *pod->pod;
  it->second.pods.push_back(pod);
}

void PodGroupIndex::remove(const PodInfo* pod) {
  auto it = groups_.find(key_of(*pod->pod));
  if (it == groups_.end()) return;
  auto& pods = it->second.pods;
  auto at = std::find_if(pods.begin(), pods.end(), [&](const auto& p) { return p.get() == pod; });
  if (at == pods.end()) return;
  if (pods.size() == 1) {
    groups_.erase(it);
    return;
  }
  *at = std::move(pods.back());
  pods.pop_back();
}

void PodGroupIndex::replace(const PodInfo* old, const std::shared_ptr<const PodInfo>& next) {
  auto it = groups_.find(key_of(*old->pod));
  if (it == groups_.end()) return;
  for (auto& p : it->second.pods) {
    if (p.get() == old) p = next;
  }
}

}  // namespace kext::sim
