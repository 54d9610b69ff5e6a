#pragma once
// Deterministic synthetic clusters and request bodies for the benchmarks: nodes shaped like real ones
// (labels, a taint on some, images, conditions), a few pods per node.
#include <cstdint>
#include <random>
#include <string>

#include "extender/state/cluster_state.h"
#include "extender/state/snapshot_loader.h"

namespace kext::bench {

inline std::string node_object(size_t i, std::mt19937& rng) {
  std::string name = "node-" + std::to_string(i);
  std::string s = R"({"metadata":{"name":")" + name + R"(","uid":"00000000-0000-0000-0000-)" + std::to_string(100000000000 + i) +
                  R"(","resourceVersion":"12345","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"beta.kubernetes.io/arch":"amd64","beta.kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","kubernetes.io/hostname":")" +
                  name + R"(","kubernetes.io/os":"linux","node.kubernetes.io/instance-type":"m5.2xlarge","topology.kubernetes.io/region":"eu-west-1","topology.kubernetes.io/zone":"eu-west-1)" +
                  std::string(1, static_cast<char>('a' + i % 3)) + R"(","disk":")" + (i % 2 ? "ssd" : "hdd") + R"("}},"spec":{"podCIDR":"10.244.0.0/24")";
  if (i % 10 == 0) s += R"(,"taints":[{"key":"dedicated","value":"batch","effect":"PreferNoSchedule"}])";
  s += R"(},"status":{"capacity":{"cpu":"8","ephemeral-storage":"100Gi","memory":"32Gi","pods":"110"},"allocatable":{"cpu":")" +
       std::to_string(4 + rng() % 5) + R"(","ephemeral-storage":"95Gi","memory":")" + std::to_string(16 + rng() % 17) +
       R"(Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"KubeletReady","message":"kubelet is posting ready status"},{"type":"MemoryPressure","status":"False","lastHeartbeatTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"KubeletHasSufficientMemory","message":"kubelet has sufficient memory available"}],"images":[)";
  for (int k = 0; k < 10; ++k) {
    if (k) s += ",";
    s += R"({"names":["registry.example.com/app-)" + std::to_string((i + k) % 40) + R"(:1.0"],"sizeBytes":)" +
         std::to_string(50000000 + k * 1000000) + "}";
  }
  s += R"(],"nodeInfo":{"kubeletVersion":"v1.30.0","osImage":"Debian GNU/Linux 12","architecture":"amd64"}}})";
  return s;
}

inline std::string pod_object(const std::string& name, const std::string& node, int cpu_milli, int mem_mi,
                              int priority) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-)" + name +
         R"(","labels":{"app":"web"}},"spec":{)" + (node.empty() ? std::string() : R"("nodeName":")" + node + R"(",)") +
         R"("priority":)" + std::to_string(priority) +
         R"(,"containers":[{"name":"c","image":"registry.example.com/app-1:1.0","resources":{"requests":{"cpu":")" +
         std::to_string(cpu_milli) + R"(m","memory":")" + std::to_string(mem_mi) +
         R"(Mi"}}}]},"status":{"phase":"Running","startTime":"2026-01-01T00:00:00Z"}})";
}

struct Workload {
  std::string snapshot;        // kubectl List of nodes and pods
  std::string names_request;   // ExtenderArgs with NodeNames
  std::string full_request;    // ExtenderArgs with Nodes
};

inline Workload make_workload(size_t nodes, size_t pods_per_node, uint32_t seed = 42) {
  std::mt19937 rng(seed);
  Workload w;
  std::string items;
  std::string node_items;
  std::string names;
  for (size_t i = 0; i < nodes; ++i) {
    std::string n = node_object(i, rng);
    if (i) {
      node_items += ",";
      names += ",";
      items += ",";
    }
    items += R"({"kind":"Node",)" + n.substr(1);
    node_items += n;
    names += "\"node-" + std::to_string(i) + "\"";
    for (size_t p = 0; p < pods_per_node; ++p) {
      items += R"(,{"kind":"Pod",)" +
               pod_object("p-" + std::to_string(i) + "-" + std::to_string(p), "node-" + std::to_string(i),
                          100 + static_cast<int>(rng() % 900), 128 + static_cast<int>(rng() % 1024),
                          static_cast<int>(rng() % 3) * 100)
                   .substr(1);
    }
  }
  w.snapshot = R"({"kind":"List","apiVersion":"v1","items":[)" + items + "]}";
  std::string pod = pod_object("incoming", "", 500, 512, 1000);
  w.names_request = R"({"Pod":)" + pod + R"(,"Nodes":null,"NodeNames":[)" + names + "]}";
  w.full_request = R"({"Pod":)" + pod + R"(,"Nodes":{"metadata":{},"items":[)" + node_items + R"(]},"NodeNames":null})";
  return w;
}

// The workload's cluster, published as the current state of `store` (what --snapshot does).
inline void publish_snapshot(const Workload& w, StateStore& store) {
  ClusterStateBuilder b;
  load_snapshot_json(w.snapshot, b);
  store.publish(std::move(b).build());
}

}  // namespace kext::bench
