#pragma once
// The simulated cluster's bound pods grouped by namespace, labels and affinity terms
// (algorithms/pod_groups.h), kept as pods join and leave nodes, so that PodTopologySpread's and
// InterPodAffinity's PreFilter and PreScore ask their questions once per group rather than once per
// pod, as they do on the extender's own state (kube/state/pod_group_index.h). Pods without
// affinity group by namespace and labels (a Deployment's replicas); a pod with affinity terms is a
// group of its own, its terms being compared by address only.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "algorithms/pod_groups.h"

namespace kext::sim {

class PodGroupIndex {
 public:
  void add(const std::shared_ptr<const PodInfo>& pod);
  void remove(const PodInfo* pod);
  // `next` stands for `old` (the same pod's new object: a nomination, a deletion mark).
  void replace(const PodInfo* old, const std::shared_ptr<const PodInfo>& next);
  void clear() { groups_.clear(); }

  // Every group, in a fixed order (their sums do not depend on it).
  template <typename F>
  void for_each(F&& f) const {
    for (const auto& [key, g] : groups_) f(g);
  }

 private:
  static std::string key_of(const PodMeta& pod);
  std::map<std::string, PodGroup, std::less<>> groups_;
};

}  // namespace kext::sim
