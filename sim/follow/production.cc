#include "sim/follow/production.h"

#include <vector>

namespace kext::simtool::follow {

void ProductionMirror::add_bound(const Pod& pod) {
  try {
    cluster_.add_pod(pod);
    bound_.insert(pod.uid);
  } catch (const sim::ClusterError&) {
    // On a node the watch has not shown yet, or deleted already: not part of what production saw.
  }
}

void ProductionMirror::remove(const std::string& uid) {
  pending_.erase(uid);
  if (bound_.erase(uid) != 0) cluster_.delete_pod(uid);
}

void ProductionMirror::bind(const Binding& b) {
  pending_.erase(b.pod.uid);
  Pod bound = b.pod;
  bound.node_name = b.node;
  add_bound(bound);
}

std::optional<ProductionMirror::Binding> ProductionMirror::apply(const LiveEvent& e) {
  using Kind = LiveEvent::Kind;
  if (objects_.apply(e)) return std::nullopt;  // handed to the cluster when a binding is judged
  switch (e.kind) {
    case Kind::kNodeUpsert:
      if (cluster_.node(e.node.name) == nullptr) {
        cluster_.add_node(e.node);
      } else {
        cluster_.replace_node(e.node);
      }
      break;
    case Kind::kNodeDelete:
      // The node's pods go with it (pod GC); they stay known until their own deletion.
      for (const std::string& uid : cluster_.remove_node(e.node.name)) bound_.erase(uid);
      break;
    case Kind::kPodDelete:
      remove(e.pod.pod.uid);
      break;
    case Kind::kPodUpsert: {
      const Pod& pod = e.pod.pod;
      if (pod.is_terminal() || (pod.node_name.empty() && pod.terminating)) {
        remove(pod.uid);
        break;
      }
      if (bound_.contains(pod.uid)) break;  // updates of a bound pod: its node does not change
      if (pod.node_name.empty()) {
        pending_.insert(pod.uid);
        break;
      }
      if (pending_.contains(pod.uid)) {
        Binding b{pod, pod.node_name};
        b.pod.node_name.clear();
        objects_.publish(cluster_);
        return b;
      }
      add_bound(pod);  // first seen bound: a DaemonSet's pod, or one bound before the follow
      break;
    }
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace kext::simtool::follow
