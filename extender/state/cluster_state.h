#pragma once
// An immutable view of the cluster. Writers (snapshot loader, later the watch) build a new one and
// publish it; each request takes the current one once, so it never sees half an update and never
// blocks a writer.
#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "algorithms/model.h"

namespace kext {

struct ClusterState {
  // Every node name that has a node object or a bound pod. NodeInfo::node is null when only pods
  // reference the name (a full-Nodes request can still supply the object).
  std::unordered_map<std::string, std::shared_ptr<const NodeInfo>> nodes;
  std::unordered_map<std::string, std::shared_ptr<const PodInfo>> pods_by_uid;
  std::vector<PodDisruptionBudget> pdbs;

  const NodeInfo* find_node(const std::string& name) const;
  const PodInfo* find_pod(const std::string& uid) const;
  size_t node_object_count() const;
};

// Accumulates objects, then builds the aggregates once.
class ClusterStateBuilder {
 public:
  void add_node(Node node);
  // Terminal pods (Succeeded/Failed) are ignored: they hold no resources.
  void add_pod(Pod pod);
  void add_pdb(PodDisruptionBudget pdb);
  std::shared_ptr<const ClusterState> build() &&;

 private:
  std::vector<Node> nodes_;
  std::vector<Pod> pods_;
  std::vector<PodDisruptionBudget> pdbs_;
};

class StateStore {
 public:
  StateStore() : current_(std::make_shared<const ClusterState>()) {}
  std::shared_ptr<const ClusterState> current() const { return current_.load(std::memory_order_acquire); }
  void publish(std::shared_ptr<const ClusterState> s) { current_.store(std::move(s), std::memory_order_release); }

 private:
  std::atomic<std::shared_ptr<const ClusterState>> current_;
};

}  // namespace kext
