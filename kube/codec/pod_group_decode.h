#pragma once
// PodGroups, camelCase API JSON -> gang::PodGroupSpec, in either API algorithms/gang/pod_group.h
// reads: scheduler-plugins' (scheduling.x-k8s.io/v1alpha1, sigs.k8s.io/scheduler-plugins
// pkg/apis/scheduling/v1alpha1/types.go) and upstream's (scheduling.k8s.io/v1alpha2, k8s.io/api
// scheduling/v1alpha2 types.go). Throws DecodeError naming the field on malformed input.
#include <string_view>

#include "algorithms/gang/pod_group.h"
#include "json/json.h"

namespace kext {

// The API is the object's apiVersion's group; without one (the items of a typed list), upstream's when
// the spec has a schedulingPolicy, else `fallback`. Both: metadata.namespace, metadata.name (required),
// metadata.creationTimestamp. scheduler-plugins': spec.minMember (absent: 0, which admission reads as
// 1; negative: an error, as the CRD's validation refuses it), spec.minResources,
// spec.scheduleTimeoutSeconds. Upstream's: spec.schedulingPolicy.gang.minCount, or
// spec.schedulingPolicy.basic (not all-or-nothing); one of the two is required, as the API server's
// validation requires it. The topology constraint (PodGroupSpec::topology): the annotations
// kube-extender.io/required-topology and preferred-topology in either API, and upstream's
// spec.schedulingConstraints.topology[0].key, which wins over the required annotation; each a node
// label key, or empty for none.
gang::PodGroupSpec decode_pod_group(const json::Value& v, std::string_view path,
                                    gang::GroupApi fallback = gang::GroupApi::kCoscheduling);

}  // namespace kext
