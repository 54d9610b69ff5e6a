#pragma once
// Namespaces and the objects that select pods (Services, ReplicationControllers, ReplicaSets,
// StatefulSets), camelCase API JSON -> what PodTopologySpread's system default constraints and
// InterPodAffinity's namespaceSelector read (ClusterView, algorithms/plugin.h). Throws DecodeError
// naming the field on malformed input.
#include <string>
#include <string_view>

#include "algorithms/model.h"
#include "algorithms/plugin.h"
#include "json/json.h"

namespace kext {

struct NamespaceObject {
  std::string name;
  Labels labels;
};

// core/v1 Namespace: metadata.name (required) and metadata.labels.
NamespaceObject decode_namespace(const json::Value& v, std::string_view path);

// metadata.namespace, metadata.name (required) and spec.selector, which may be missing or empty: such
// an object is still decoded (a delete event or an update that drops the selector names it), and
// whoever keeps it checks selects_no_pods.
// core/v1 Service and ReplicationController: spec.selector, a map of labels.
WorkloadSelector decode_service(const json::Value& v, std::string_view path);
WorkloadSelector decode_replication_controller(const json::Value& v, std::string_view path);
// apps/v1 ReplicaSet and StatefulSet: spec.selector, a metav1.LabelSelector.
WorkloadSelector decode_replica_set(const json::Value& v, std::string_view path);
WorkloadSelector decode_stateful_set(const json::Value& v, std::string_view path);

// True for a nil or empty selector: the object selects no pod and is not kept. client-go's listers
// (GetPodServices, GetPodControllers, GetPodReplicaSets, GetPodStatefulSets in
// k8s.io/client-go/listers/{core,apps}/v1/*_expansion.go), which the scheduler's DefaultSelector
// (pkg/scheduler/framework/plugins/helper/spread.go) calls, skip such objects: "services with nil
// selectors match nothing, not everything".
inline bool selects_no_pods(const WorkloadSelector& w) {
  return w.selector.match_labels.empty() && w.selector.match_expressions.empty();
}

}  // namespace kext
