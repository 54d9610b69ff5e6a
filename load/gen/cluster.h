#pragma once
// A synthetic cluster from a seed: nodes shaped like real cloud nodes (their labels, images, conditions
// and taints), pods of
// several priorities spread over them, PodDisruptionBudgets over some of the apps.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "load/gen/objects.h"

namespace kext::gen {

struct GenOptions {
  size_t nodes = 100;
  size_t pods_per_node = 10;
  uint64_t seed = 1;
  size_t cycles = 50;            // scheduling cycles: a filter + prioritize each
  size_t preempt_every = 5;      // a preempt request every that many cycles (0 = none)
  size_t nodes_per_request = 0;  // 0 = what kube-scheduler sends (numFeasibleNodesToFind)
  bool bind = false;             // a bind of each cycle's pod to the first node sent, after prioritize
  bool names = true;             // write DIR/names/ (NodeNames requests)
  bool full = true;              // write DIR/full/ (full Nodes requests)
  // node-00042 (10 bytes), or the cloud's ip-10-0-0-42.eu-west-1.compute.internal (38-43 bytes, past
  // std::string's 15-byte small buffer, as EKS and GKE names are).
  bool cloud_names = false;
};

struct Cluster {
  std::vector<Image> images;
  std::vector<NodeSpec> nodes;
  std::vector<PodSpec> pods;
  std::vector<std::vector<size_t>> pods_on;  // indices into pods, per node
  std::vector<PdbSpec> pdbs;
};

Cluster make_cluster(const GenOptions& o);

// The cluster as `kubectl get nodes,pods,poddisruptionbudgets -A -o json` prints it (a v1 List, each item
// with its kind and apiVersion), what --snapshot loads. `out` receives it in pieces of about one object.
void write_cluster_list(const Cluster& c, const std::function<void(std::string_view)>& out);
std::string cluster_list_json(const Cluster& c);

// kube-scheduler's numFeasibleNodesToFind with the default adaptive percentageOfNodesToScore: all nodes
// below 100, else max(100, n * max(5, 50 - n/125) / 100).
size_t feasible_nodes_to_find(size_t nodes);
// The preemption dry run's candidate count: max(100, n/10), at most n.
size_t preemption_candidates(size_t nodes);

}  // namespace kext::gen
