#pragma once
// Loads what `kubectl get nodes,pods,poddisruptionbudgets,namespaces,services,replicationcontrollers,
// replicasets,statefulsets -A -o json` (or -o yaml) prints (a List, or one object).
#include <string>
#include <vector>

#include "kube/state/state_cache.h"

namespace kext {

// Adds the objects of one JSON document to the builder. Throws DecodeError naming the item on bad input;
// kinds other than Node, Pod, PodDisruptionBudget, Namespace, Service, ReplicationController,
// ReplicaSet, StatefulSet, PodGroup and DeviceClass are skipped, as are Services and controllers whose
// selector is nil or empty.
void load_snapshot_json(std::string_view text, ClusterStateBuilder& builder);

// The same from JSON or YAML (`kubectl get … -o yaml`; several `---` documents add up). YAML errors are
// DecodeErrors with the line and column.
void load_snapshot(std::string_view text, ClusterStateBuilder& builder);

// Reads each file (JSON or YAML) and builds one state, its pods' requests as `version` counts them.
// Throws std::runtime_error naming the file on any problem.
std::shared_ptr<const ClusterState> load_snapshot_files(const std::vector<std::string>& paths,
                                                        KubeVersion version = KubeVersion::newest());

}  // namespace kext
