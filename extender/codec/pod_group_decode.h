#pragma once
// scheduler-plugins' PodGroup (scheduling.x-k8s.io/v1alpha1, sigs.k8s.io/scheduler-plugins
// pkg/apis/scheduling/v1alpha1/types.go), camelCase API JSON -> gang::PodGroupSpec. Throws
// DecodeError naming the field on malformed input.
#include <string_view>

#include "algorithms/gang/pod_group.h"
#include "json/json.h"

namespace kext {

// metadata.namespace, metadata.name (required), metadata.creationTimestamp; spec.minMember (absent:
// 0, which admission reads as 1; negative: an error, as the CRD's validation refuses it),
// spec.minResources, spec.scheduleTimeoutSeconds.
gang::PodGroupSpec decode_pod_group(const json::Value& v, std::string_view path);

}  // namespace kext
