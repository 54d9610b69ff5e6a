#pragma once
// The cluster state's pods grouped by namespace, labels and affinity terms (algorithms/pod_groups.h),
// kept up to date as pods join and leave nodes: a watch event touches one group, copying its list of
// pods (a Deployment's replicas: ~100 pointers) and, once per publish, its shard of the group table.
#include <memory>
#include <string>

#include "algorithms/pod_groups.h"
#include "kube/state/sharded_map.h"

namespace kext {

// 1,500 Deployments spread over 64 shards: ~24 groups a shard, what a write after a publish copies.
inline constexpr size_t kPodGroupShards = 64;
using PodGroupMap = ShardedMap<std::shared_ptr<const PodGroup>, kPodGroupShards>;

class PodGroupIndex {
 public:
  // `pod` is now bound to its node (its PodMeta's labels and affinity interned: the key is their
  // addresses) / is no longer.
  void add(const std::shared_ptr<const PodInfo>& pod);
  void remove(const PodInfo* pod);
  PodGroupMap publish() { return groups_.publish(); }

 private:
  static std::string key_of(const PodMeta& pod);
  ShardedMapWriter<std::shared_ptr<const PodGroup>, kPodGroupShards> groups_;
};

}  // namespace kext
