#include "extender/state/cluster_state.h"

namespace kext {

const NodeInfo* ClusterState::find_node(std::string_view name) const {
  auto* p = nodes.find(name);
  return p ? p->get() : nullptr;
}

const PodInfo* ClusterState::find_pod(std::string_view uid) const {
  auto* p = pods_by_uid.find(uid);
  return p ? p->get() : nullptr;
}

}  // namespace kext
