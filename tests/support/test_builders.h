#pragma once
// Small builders for unit tests: value-typed Pods/Nodes so a test reads like the Kubernetes fixture
// it mirrors. Header-only; shared by every algorithm test.
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "algorithms/pod_requests.h"

namespace kext::testing {

inline constexpr int64_t KiB = 1024;
inline constexpr int64_t MiB = 1024 * KiB;
inline constexpr int64_t GiB = 1024 * MiB;
// "8Ei" is 2^63 bytes, one past int64: the quantity parser caps it at int64 max (as apimachinery
// does for binary quantities), so it is the largest amount an object can carry.
inline constexpr int64_t k8Ei = std::numeric_limits<int64_t>::max();

// A container whose requests name cpu/memory only when non-zero, like a manifest that omits the
// key: such a container gets the 100m / 200Mi scoring defaults. Use explicit_container() when a
// test needs an explicit "0".
inline Container make_container(int64_t cpu_milli, int64_t mem, std::string name = "c") {
  Container c;
  c.name = std::move(name);
  c.requests.milli_cpu = cpu_milli;
  c.requests.memory = mem;
  c.has_cpu_request = cpu_milli != 0;
  c.has_memory_request = mem != 0;
  return c;
}

// A container that names both keys even when the value is 0 (explicit "0" stays 0 when scoring).
inline Container explicit_container(int64_t cpu_milli, int64_t mem, std::string name = "c") {
  Container c = make_container(cpu_milli, mem, std::move(name));
  c.has_cpu_request = true;
  c.has_memory_request = true;
  return c;
}

// A sidecar: an init container with restartPolicy: Always.
inline Container sidecar_container(int64_t cpu_milli, int64_t mem, std::string name = "sidecar") {
  Container c = make_container(cpu_milli, mem, std::move(name));
  c.restartable = true;
  return c;
}

inline Pod make_pod_with(std::string name, std::vector<Container> containers) {
  Pod p;
  p.name = name;
  p.namespace_ = "default";
  p.uid = "uid-" + name;
  p.containers = std::move(containers);
  return p;
}

// One container requesting cpu_milli / mem (0 = key absent, see make_container).
inline Pod make_pod(std::string name, int64_t cpu_milli, int64_t mem) {
  return make_pod_with(std::move(name), {make_container(cpu_milli, mem)});
}

// A pod with no containers' requests at all (BestEffort): requests nothing, scores the defaults.
inline Pod make_best_effort_pod(std::string name) { return make_pod(std::move(name), 0, 0); }

inline Node make_node(std::string name, int64_t cpu_milli, int64_t mem, int64_t pods = 110) {
  Node n;
  n.name = std::move(name);
  n.allocatable.milli_cpu = cpu_milli;
  n.allocatable.memory = mem;
  n.allocatable.pods = pods;
  return n;
}

// A NodeInfo with the given pods assigned (their node_name is set to the node).
inline NodeInfo node_info(Node node, std::vector<Pod> pods = {}) {
  NodeInfo info;
  auto shared = std::make_shared<const Node>(std::move(node));
  info.node = shared;
  for (auto& p : pods) {
    p.node_name = shared->name;
    info.add_pod(std::make_shared<const PodInfo>(make_pod_info(std::make_shared<const Pod>(std::move(p)))));
  }
  return info;
}

// A 4-CPU node with these labels (the topology plugins' tests read only labels).
inline Node make_labelled_node(std::string name, Labels labels) {
  Node n = make_node(std::move(name), 4000, 0);
  n.labels = std::move(labels);
  return n;
}

// cache.NewSnapshot: each pod on the node it names; a pod naming no listed node is in no NodeInfo.
inline std::vector<NodeInfo> snapshot(const std::vector<Node>& nodes, const std::vector<Pod>& pods) {
  std::vector<NodeInfo> out;
  for (const auto& n : nodes) {
    NodeInfo info;
    info.node = std::make_shared<const Node>(n);
    for (const auto& p : pods) {
      if (p.node_name == n.name) {
        info.add_pod(std::make_shared<const PodInfo>(make_pod_info(std::make_shared<const Pod>(p))));
      }
    }
    out.push_back(std::move(info));
  }
  return out;
}

// A label selector `key Exists`, as kube-scheduler's tests build them (st.MakeLabelSelector().Exists).
inline LabelSelector exists_selector(std::string key) {
  return LabelSelector{{}, {{std::move(key), "Exists", {}}}};
}

// Pointers in the form Engine / ScorePlugin::prepare take them.
inline std::vector<const NodeInfo*> node_ptrs(const std::vector<NodeInfo>& nodes) {
  std::vector<const NodeInfo*> out;
  out.reserve(nodes.size());
  for (const auto& n : nodes) out.push_back(&n);
  return out;
}

// How run_score maps each node: score_at, as the engine does, or score() of the node, as a caller
// outside the engine does (prepare() may have worked the scores out for score_at; both must agree).
enum class ScorePath { kEngine, kByNode };

// Runs a score plugin's prepare + map (+ reduce when it has one) over nodes.
inline std::vector<int64_t> run_score(const ScorePlugin& plugin, const Pod& pod,
                                      const std::vector<NodeInfo>& nodes,
                                      ScorePath path = ScorePath::kEngine) {
  PodContext ctx(pod);
  auto ptrs = node_ptrs(nodes);
  auto prepared = plugin.prepare(ctx, ptrs);
  std::vector<int64_t> scores;
  scores.reserve(nodes.size());
  for (size_t i = 0; i < ptrs.size(); ++i) {
    scores.push_back(path == ScorePath::kEngine ? plugin.score_at(ctx, prepared.get(), ptrs, i)
                                                : plugin.score(ctx, prepared.get(), *ptrs[i]));
  }
  if (plugin.has_reduce()) plugin.reduce(scores);
  return scores;
}

}  // namespace kext::testing
