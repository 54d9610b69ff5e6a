#include "extender/state/cluster_state.h"

namespace kext {

const NodeInfo* ClusterState::find_node(const std::string& name) const {
  auto it = nodes.find(name);
  return it == nodes.end() ? nullptr : it->second.get();
}

const PodInfo* ClusterState::find_pod(const std::string& uid) const {
  auto it = pods_by_uid.find(uid);
  return it == pods_by_uid.end() ? nullptr : it->second.get();
}

size_t ClusterState::node_object_count() const {
  size_t n = 0;
  for (const auto& [_, info] : nodes) n += info->node != nullptr;
  return n;
}

void ClusterStateBuilder::add_node(Node node) { nodes_.push_back(std::move(node)); }

void ClusterStateBuilder::add_pod(Pod pod) {
  if (pod.is_terminal()) return;
  pods_.push_back(std::move(pod));
}

void ClusterStateBuilder::add_pdb(PodDisruptionBudget pdb) { pdbs_.push_back(std::move(pdb)); }

std::shared_ptr<const ClusterState> ClusterStateBuilder::build() && {
  std::unordered_map<std::string, NodeInfo> infos;
  for (auto& n : nodes_) {
    std::string name = n.name;
    infos[name].node = std::make_shared<const Node>(std::move(n));
  }
  auto state = std::make_shared<ClusterState>();
  for (auto& p : pods_) {
    auto info = std::make_shared<const PodInfo>(make_pod_info(std::make_shared<const Pod>(std::move(p))));
    if (!info->pod->uid.empty()) state->pods_by_uid[info->pod->uid] = info;
    if (!info->pod->node_name.empty()) infos[info->pod->node_name].add_pod(info);
  }
  for (auto& [name, info] : infos) state->nodes.emplace(name, std::make_shared<const NodeInfo>(std::move(info)));
  state->pdbs = std::move(pdbs_);
  return state;
}

}  // namespace kext
