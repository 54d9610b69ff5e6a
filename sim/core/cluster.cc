#include "sim/core/cluster.h"

#include <cstddef>

#include "algorithms/gpu/device_fit.h"
#include "algorithms/namespaced_key.h"

namespace kext::sim {

SimCluster::SimCluster(const SimCluster& other)
    : version_(other.version_),
      gpu_sharing_(other.gpu_sharing_),
      dra_extended_resources_(other.dra_extended_resources_),
      node_index_(other.node_index_),
      pods_(other.pods_),
      pdbs_(other.pdbs_),
      namespace_labels_(other.namespace_labels_),
      services_(other.services_),
      replication_controllers_(other.replication_controllers_),
      replica_sets_(other.replica_sets_),
      stateful_sets_(other.stateful_sets_),
      usage_(other.usage_) {
  nodes_.reserve(other.nodes_.size());
  node_ptrs_.reserve(other.nodes_.size());
  for (const auto& n : other.nodes_) {
    nodes_.push_back(std::make_unique<NodeInfo>(*n));
    node_ptrs_.push_back(nodes_.back().get());
  }
  groups_.index = other.groups_.index;
}

void SimCluster::add_node(Node node) {
  std::string name = node.name;
  if (name.empty()) throw ClusterError("node: metadata.name is empty");
  if (node_index_.count(name) != 0) throw ClusterError("node " + name + ": added twice");
  auto info = std::make_unique<NodeInfo>();
  info->node = std::make_shared<const Node>(std::move(node));
  node_index_.emplace(std::move(name), nodes_.size());
  node_ptrs_.push_back(info.get());
  nodes_.push_back(std::move(info));
}

void SimCluster::replace_node(Node node) {
  NodeInfo* info = this->node(node.name);
  if (info == nullptr) throw ClusterError("node " + node.name + ": not a node of the cluster");
  info->node = std::make_shared<const Node>(std::move(node));
}

std::vector<std::string> SimCluster::remove_node(std::string_view name) {
  auto it = node_index_.find(std::string(name));
  if (it == node_index_.end()) return {};
  const size_t at = it->second;
  std::vector<std::string> uids;
  for (const auto& info : nodes_[at]->pods) {
    uids.push_back(info->pod->uid);
    groups_.index.remove(info.get());
  }
  for (const std::string& uid : uids) pods_.erase(uid);
  node_index_.erase(it);
  nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(at));
  node_ptrs_.erase(node_ptrs_.begin() + static_cast<std::ptrdiff_t>(at));
  for (size_t i = at; i < nodes_.size(); ++i) node_index_[nodes_[i]->node->name] = i;
  return uids;
}

void SimCluster::place(NodeInfo& node, const std::shared_ptr<const PodInfo>& info) {
  node.add_pod(info);
  groups_.index.add(info);
}

void SimCluster::unplace(NodeInfo& node, const PodInfo* info) {
  groups_.index.remove(info);
  node.remove_pod(info);
}

void SimCluster::add_pod(Pod pod) {
  if (pod.uid.empty())
    throw ClusterError("pod " + namespaced_key(pod.namespace_, pod.name) + ": metadata.uid is empty");
  if (pods_.count(pod.uid) != 0) throw ClusterError("pod " + pod.uid + ": added twice");
  if (pod.is_terminal()) return;
  NodeInfo* target = nullptr;
  if (!pod.node_name.empty()) {
    target = node(pod.node_name);
    if (target == nullptr) {
      throw ClusterError("pod " + namespaced_key(pod.namespace_, pod.name) + ": spec.nodeName " +
                         pod.node_name + " is not a node of the cluster");
    }
  }
  auto shared = std::make_shared<const Pod>(std::move(pod));
  auto info = std::make_shared<const PodInfo>(make_pod_info(shared, version_));
  if (target != nullptr) place(*target, info);
  pods_.emplace(shared->uid, Entry{shared, info});
}

void SimCluster::add_running(std::shared_ptr<const PodInfo> info, std::string_view node_name) {
  const PodMeta& meta = *info->pod;
  if (meta.uid.empty())
    throw ClusterError("pod " + namespaced_key(meta.namespace_, meta.name) + ": metadata.uid is empty");
  if (pods_.count(meta.uid) != 0) throw ClusterError("pod " + meta.uid + ": added twice");
  NodeInfo* target = node(node_name);
  if (target == nullptr) {
    throw ClusterError("pod " + namespaced_key(meta.namespace_, meta.name) + ": node " +
                       std::string(node_name) + " is not a node of the cluster");
  }
  auto pod = std::make_shared<Pod>();
  static_cast<PodMeta&>(*pod) = meta;
  pod->node_name = std::string(node_name);
  place(*target, info);
  pods_.emplace(meta.uid, Entry{std::move(pod), std::move(info)});
}

std::shared_ptr<const Pod> SimCluster::pod(std::string_view uid) const {
  auto it = pods_.find(std::string(uid));
  return it == pods_.end() ? nullptr : it->second.pod;
}

std::shared_ptr<const PodInfo> SimCluster::pod_info(std::string_view uid) const {
  auto it = pods_.find(std::string(uid));
  return it == pods_.end() ? nullptr : it->second.info;
}

NodeInfo* SimCluster::node(std::string_view name) {
  auto it = node_index_.find(std::string(name));
  return it == node_index_.end() ? nullptr : nodes_[it->second].get();
}

const NodeInfo* SimCluster::node(std::string_view name) const {
  auto it = node_index_.find(std::string(name));
  return it == node_index_.end() ? nullptr : nodes_[it->second].get();
}

std::optional<size_t> SimCluster::node_position(std::string_view name) const {
  auto it = node_index_.find(std::string(name));
  if (it == node_index_.end()) return std::nullopt;
  return it->second;
}

void SimCluster::replace_pod(Entry& e, std::shared_ptr<const Pod> next) {
  auto info = std::make_shared<PodInfo>(*e.info);
  info->pod = next;
  if (!e.pod->node_name.empty()) {
    NodeInfo* n = node(e.pod->node_name);
    // Same requests, so the node's totals do not change; only the object the node points to does.
    for (auto& p : n->pods) {
      if (p == e.info) p = info;
    }
    groups_.index.replace(e.info.get(), info);
  }
  e.pod = std::move(next);
  e.info = std::move(info);
}

void SimCluster::bind(std::string_view uid, std::string_view node_name, int64_t now_unix_seconds) {
  auto it = pods_.find(std::string(uid));
  if (it == pods_.end()) throw ClusterError("bind: unknown pod " + std::string(uid));
  if (!it->second.pod->node_name.empty()) {
    throw ClusterError("bind: pod " + std::string(uid) + " is already bound to " + it->second.pod->node_name);
  }
  NodeInfo* n = node(node_name);
  if (n == nullptr) throw ClusterError("bind: unknown node " + std::string(node_name));
  auto next = std::make_shared<Pod>(*it->second.pod);
  next->node_name = std::string(node_name);
  next->nominated_node_name.clear();
  next->start_time = now_unix_seconds;
  next->phase = "Running";
  // The cards as the extender's GpuBinder::reserve chooses them; none when they no longer fit.
  if (gpu_sharing_) next->gpu_shares = gpu::shares_on_node(*next, *n, *gpu_sharing_);
  auto info = std::make_shared<PodInfo>(*it->second.info);
  info->pod = next;
  place(*n, info);
  it->second = Entry{std::move(next), std::move(info)};
}

void SimCluster::unbind(std::string_view uid) {
  auto it = pods_.find(std::string(uid));
  if (it == pods_.end() || it->second.pod->node_name.empty())
    throw ClusterError("unbind: pod " + std::string(uid) + " is not bound");
  if (NodeInfo* n = node(it->second.pod->node_name)) unplace(*n, it->second.info.get());
  auto next = std::make_shared<Pod>(*it->second.pod);
  next->node_name.clear();
  next->start_time.reset();
  next->phase = "Pending";
  next->gpu_shares.reset();
  auto info = std::make_shared<PodInfo>(*it->second.info);
  info->pod = next;
  it->second = Entry{std::move(next), std::move(info)};
}

void SimCluster::set_nominated_node(std::string_view uid, const std::string& node_name) {
  auto it = pods_.find(std::string(uid));
  if (it == pods_.end()) throw ClusterError("nominate: unknown pod " + std::string(uid));
  auto next = std::make_shared<Pod>(*it->second.pod);
  next->nominated_node_name = node_name;
  replace_pod(it->second, std::move(next));
}

void SimCluster::mark_terminating(std::string_view uid) {
  auto it = pods_.find(std::string(uid));
  if (it == pods_.end()) throw ClusterError("terminate: unknown pod " + std::string(uid));
  auto next = std::make_shared<Pod>(*it->second.pod);
  next->terminating = true;
  next->preemption_victim = true;  // the DisruptionTarget condition preemption sets before deleting
  replace_pod(it->second, std::move(next));
}

std::optional<std::string> SimCluster::delete_pod(std::string_view uid) {
  auto it = pods_.find(std::string(uid));
  if (it == pods_.end()) return std::nullopt;
  std::string on = it->second.pod->node_name;
  if (!on.empty()) unplace(*node(on), it->second.info.get());
  pods_.erase(it);
  return on;
}

}  // namespace kext::sim
