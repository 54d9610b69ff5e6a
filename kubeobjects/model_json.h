#pragma once
// The scheduling model's objects (algorithms/model.h) as the Kubernetes API serves them (core/v1 Node
// and Pod, policy/v1 PodDisruptionBudget): extender-sim --extender's API server streams them to a running
// kube-extender and its filter / prioritize envelopes carry them, with the PodGroups of gang scheduling.
// objects.h writes extender-gen's value types; both write through kubeobjects/write.h. Written from the model
// with every field kube/codec's decoders read, so decode(encode(x)) is x, except node images: the model
// keeps only hashed image names (NodeImage), so nodes are written without status.images. A pod's host
// ports go on its first container (the model does not keep which container asked for them), so a pod
// without containers loses them.
#include <optional>
#include <string>

#include "algorithms/gang/pod_group.h"
#include "algorithms/model.h"
#include "json/json.h"
#include "kubeobjects/objects.h"

namespace kext::model_json {

using kubeobjects::JsonWriter;

// `deletion_unix_seconds`: metadata.deletionTimestamp for a pod being deleted (Pod::terminating).
void write_pod(JsonWriter& w, const Pod& pod, std::optional<int64_t> deletion_unix_seconds = std::nullopt);
// `images_json`: status.images as the input wrote it ("" for none): the model keeps only hashes of
// image names, so the text is carried beside it (ClusterInput::node_images).
void write_node(JsonWriter& w, const Node& node, std::string_view images_json = {});
void write_pdb(JsonWriter& w, const PodDisruptionBudget& pdb);
// In its own API: scheduler-plugins' scheduling.x-k8s.io/v1alpha1 (minMember, scheduleTimeoutSeconds,
// minResources) or upstream's scheduling.k8s.io/v1alpha2 (schedulingPolicy gang.minCount or basic,
// schedulingConstraints.topology); the topology annotations where the API has no field.
void write_pod_group(JsonWriter& w, const gang::PodGroupSpec& group);

std::string pod_json(const Pod& pod, std::optional<int64_t> deletion_unix_seconds = std::nullopt);
std::string node_json(const Node& node, std::string_view images_json = {});
std::string pdb_json(const PodDisruptionBudget& pdb);
std::string pod_group_json(const gang::PodGroupSpec& group);

}  // namespace kext::model_json
