#pragma once
// The benchmarks' clusters and request bodies: extender-gen's (load/gen), so that a benchmark at N nodes
// and P pods per node measures the cluster `extender-gen --nodes N --pods-per-node P --seed S` writes.
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "kube/state/cluster_state.h"
#include "kube/state/snapshot_loader.h"
#include "load/gen/cluster.h"
#include "load/gen/requests.h"

namespace kext::bench {

// The pod the capacity benchmarks ask about: 1 CPU and 1Gi, in no group.
inline constexpr const char* kCapacityPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"bench"},)"
    R"("spec":{"containers":[{"name":"c","image":"nginx:1.25","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}})";

struct Workload {
  std::string snapshot;                 // extender-gen's cluster.json: a List of nodes, pods and PDBs
  std::vector<std::string> node_names;  // every node, in the cluster's order
  gen::PodSpec pod;                     // the pod the requests ask about
  std::string names_request;            // ExtenderArgs with NodeNames: every node
  std::string full_request;             // ExtenderArgs with Nodes: every node's object
};

// The pod: one of the cluster's apps, pending, requesting 500m and 512Mi at priority 1000 whatever the
// seed, so that results compare across node counts.
inline Workload make_workload(size_t nodes, size_t pods_per_node, uint64_t seed = gen::GenOptions{}.seed,
                              bool cloud_names = false) {
  gen::GenOptions o;
  o.nodes = nodes;
  o.cloud_names = cloud_names;
  o.pods_per_node = pods_per_node;
  o.seed = seed;
  const gen::Cluster c = gen::make_cluster(o);
  Workload w;
  w.snapshot = gen::cluster_list_json(c);
  for (const auto& n : c.nodes) w.node_names.push_back(n.name);
  gen::Prng rng(seed ^ 0x62656e6368ULL);  // a stream of its own, as extender-gen's traffic has
  w.pod = gen::pending_pod(c, rng, 0, 1000);
  w.pod.cpu_milli = 500;
  w.pod.memory_mi = 512;
  w.pod.tolerates_dedicated = false;
  const std::string pod = gen::pod_json(w.pod);
  std::vector<size_t> all(c.nodes.size());
  std::iota(all.begin(), all.end(), size_t{0});
  w.names_request = gen::extender_args(c, pod, all, false);
  w.full_request = gen::extender_args(c, pod, all, true);
  return w;
}

// The workload's cluster, published as the current state of `store` (what --snapshot does).
inline void publish_snapshot(const Workload& w, StateStore& store) {
  ClusterStateBuilder b;
  load_snapshot_json(w.snapshot, b);
  store.publish(std::move(b).build());
}

}  // namespace kext::bench
