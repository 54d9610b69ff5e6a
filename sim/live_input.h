#pragma once
// extender-sim --kubeconfig: the cluster read once from a live API server, with the extender's own
// kubeconfig loading (kube/client/api_config.h) and paginated list (kube/client/lister.h), GET
// only, then decoded exactly as a --cluster file is (decode_cluster): a live cluster and its
// `kubectl get -o json` snapshot give the same simulation.
#include <cstddef>
#include <string>

#include "sim/inputs.h"
#include "sim/sim_options.h"

namespace kext::simtool {

// What is listed, in this order. PriorityClasses only resolve the workload's priorityClassName (the
// cluster's pods carry spec.priority already), so a server that does not serve them or does not let
// us list them (404, 403) just has none; the other three are required.
struct LiveResource {
  const char* kind;  // of the typed List: "Node" -> NodeList
  const char* path;
  bool optional;
};
inline constexpr LiveResource kLiveResources[] = {
    {"Node", "/api/v1/nodes", false},
    {"Pod", "/api/v1/pods", false},
    {"PodDisruptionBudget", "/apis/policy/v1/poddisruptionbudgets", false},
    {"PriorityClass", "/apis/scheduling.k8s.io/v1/priorityclasses", true},
};

// The kubeconfig's context (its current-context when `context` is empty), then each kLiveResources
// listed in pages of `page_size`: a List of typed Lists (NodeList, PodList, ...), as `kubectl get
// nodes,pods,pdb,priorityclasses -A -o json` prints them. Throws InputError "--kubeconfig FILE:
// ..." for a kubeconfig that does not load and "--kubeconfig FILE (server URL): list ...: HTTP 403:
// ..." for a server that cannot be reached or refuses.
std::string list_live_cluster(const std::string& kubeconfig, const std::string& context,
                              size_t page_size = 500);

// The kubeconfig's server's GET /version gitVersion ("v1.36.3"): which kube-scheduler minor the run
// reproduces when nothing else says (policy/version_choice.h). Throws InputError naming the kubeconfig
// and what failed.
std::string live_git_version(const std::string& kubeconfig, const std::string& context);

// Where the cluster comes from, for messages: "--cluster FILE" or "--kubeconfig FILE".
std::string cluster_source(const SimCommand& command);

// The cluster of --cluster or --kubeconfig, decoded by decode_cluster. Throws InputError naming
// cluster_source().
ClusterInput read_cluster(const SimCommand& command, size_t page_size = 500);

}  // namespace kext::simtool
