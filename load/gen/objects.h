#pragma once
// The objects of extender-gen's cluster, by what varies between them, and their Kubernetes form as a real
// API server serves them (defaults, the service-account volume, managedFields, the kubelet's status), so
// that the extender parses what a real scheduler would send. The JSON is written by kubeobjects/.
#include <cstdint>
#include <string>
#include <vector>

#include "kubeobjects/objects.h"

namespace kext::gen {

struct Image {
  std::string repo;    // registry.example.com/team-03/service-117
  std::string tag;     // v1.4.17
  std::string digest;  // 64 hex digits
  int64_t size_bytes = 0;
};

struct NodeSpec {
  std::string name;
  kubeobjects::Node object;
  std::string json;  // `object` as the scheduler sends it in a NodeList (no kind/apiVersion)
  bool unschedulable = false;
  bool dedicated = false;  // tainted dedicated=batch:NoSchedule
  int64_t cpu_milli = 0;   // allocatable
  int64_t memory_ki = 0;
};

struct PodSpec {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string app;
  std::string template_hash;
  std::string owner_uid;
  std::string node;   // "" = pending
  std::string image;  // repo:tag
  int32_t priority = 0;
  int64_t cpu_milli = 0;
  int64_t memory_mi = 0;
  int64_t created = 0;  // Unix seconds
  bool tolerates_dedicated = false;
};

struct PdbSpec {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string app;
  int32_t min_available = 0;
  int32_t disruptions_allowed = 0;
};

// A ReplicaSet's pod: pending (no node) as the scheduler receives it, or running on its node with the
// kubelet's status and the managedFields of both writers.
kubeobjects::Pod pod_object(const PodSpec& p);
kubeobjects::PodDisruptionBudget pdb_object(const PdbSpec& p);

std::string pod_json(const PodSpec& p);

// The priority class names the generator uses, by value.
const char* priority_class_name(int32_t priority);

}  // namespace kext::gen
