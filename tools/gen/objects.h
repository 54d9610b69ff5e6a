#pragma once
// The Kubernetes objects extender-gen writes, as Go's encoding/json prints them (field order, sorted
// map keys, canonical quantities), so the extender parses what a real scheduler would send.
#include <cstdint>
#include <string>
#include <vector>

namespace kext::gen {

struct Image {
  std::string repo;    // registry.example.com/team-03/service-117
  std::string tag;     // v1.4.17
  std::string digest;  // 64 hex digits
  int64_t size_bytes = 0;
};

struct NodeSpec {
  std::string name;
  std::string json;  // the object as the scheduler sends it in a NodeList (no kind/apiVersion)
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
  std::string node;  // "" = pending
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

// RFC 3339 UTC, second precision, as metav1.Time marshals.
std::string rfc3339(int64_t unix_seconds);

std::string pod_json(const PodSpec& p);
std::string pdb_json(const PdbSpec& p);
// `with_kind` adds the TypeMeta kubectl prints (for cluster.json); the scheduler's objects lack it.
std::string with_type_meta(const std::string& object_json, const char* kind, const char* api_version);

// The priority class names the generator uses, by value.
const char* priority_class_name(int32_t priority);

}  // namespace kext::gen
