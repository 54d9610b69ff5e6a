#pragma once
// ResourceSinks that decode the watched resources (nodes, pods, PodDisruptionBudgets, namespaces and the
// objects that select pods) into the StateCache, and the one list of those resources.
#include <memory>
#include <span>
#include <string_view>

#include "kube/client/resource_sink.h"
#include "kube/state/state_cache.h"

namespace kext::kube {

std::unique_ptr<ResourceSink> make_node_sink(StateCache& cache);
std::unique_ptr<ResourceSink> make_pod_sink(StateCache& cache);
std::unique_ptr<ResourceSink> make_pdb_sink(StateCache& cache);
std::unique_ptr<ResourceSink> make_namespace_sink(StateCache& cache);
std::unique_ptr<ResourceSink> make_workload_sink(WorkloadKind kind, StateCache& cache);
std::unique_ptr<ResourceSink> make_gang_sink(gang::GroupApi api, StateCache& cache);
std::unique_ptr<ResourceSink> make_device_class_sink(StateCache& cache);

// A resource the extender lists and watches, cluster-wide, into its StateCache.
struct WatchedResource {
  // "poddisruptionbudgets": what metrics, reflector status and logs call it, one per entry (the path's
  // last segment, and "podgroups.scheduling.k8s.io" for the second API serving PodGroups).
  std::string_view name;
  std::string_view group;  // the API group: "" (core), "policy", "apps" (RBAC's apiGroups)
  std::string_view path;   // of the list and the watch
  std::string_view kind;   // of its objects ("PodDisruptionBudget"); the list's is kind + "List"
  std::unique_ptr<ResourceSink> (*make_sink)(StateCache&);
  // Watched only where the API server serves it and lets us list it (a CRD that may not be
  // installed): one probe at start, a 404 or 403 leaves it out, and readiness does not wait on it.
  bool optional = false;

  std::string_view resource() const;     // the path's last segment: RBAC's resources entry
  std::string_view api_version() const;  // of its objects: "v1", "policy/v1"
};

// Every watched resource, in the order LiveState starts them. Readiness waits on all of them.
std::span<const WatchedResource> watched_resources();
// The entry named `name`, or nullptr.
const WatchedResource* find_watched_resource(std::string_view name);
// The name of the entry watching the PodGroups of `api`.
std::string_view pod_group_resource(gang::GroupApi api);

}  // namespace kext::kube
