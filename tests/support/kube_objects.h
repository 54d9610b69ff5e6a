#pragma once
// Minimal Kubernetes objects for tests and benchmarks that talk to FakeApiServer: the fields the
// extender reads, with their TypeMeta, written by kubeobjects/.
#include <string>
#include <vector>

#include "kubeobjects/objects.h"

namespace kext::testing {

inline std::string node_json(const std::string& name, const std::string& cpu = "4",
                             const std::string& memory = "8Gi",
                             const kubeobjects::StringMap& extra_labels = {},
                             const std::vector<kubeobjects::Taint>& taints = {}) {
  kubeobjects::Node n;
  n.metadata.name = name;
  n.metadata.labels = extra_labels;
  n.taints = taints;
  n.metadata.labels["kubernetes.io/hostname"] = name;
  n.allocatable = {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}};
  return kubeobjects::to_json(n, kubeobjects::TypeMeta::kWrite);
}

// A Pod with UID "uid-<ns>-<name>" and one container requesting `cpu` and 64Mi.
inline kubeobjects::Pod pod_object(const std::string& ns, const std::string& name, const std::string& node,
                                   const std::string& cpu, const std::string& container,
                                   const std::string& image) {
  kubeobjects::Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = ns;
  p.metadata.uid = "uid-" + ns + "-" + name;
  kubeobjects::Container c;
  c.name = container;
  c.image = image;
  c.requests = {{"cpu", cpu}, {"memory", "64Mi"}};
  p.containers.push_back(std::move(c));
  p.node_name = node;
  return p;
}

// One container "c" (nginx), label app=<app>.
inline std::string pod_json(const std::string& ns, const std::string& name, const std::string& node,
                            const std::string& cpu = "100m", const std::string& phase = "Running",
                            int priority = 0, const std::string& app = "web") {
  kubeobjects::Pod p = pod_object(ns, name, node, cpu, "c", "nginx");
  p.metadata.labels = {{"app", app}};
  p.priority = priority;
  p.phase = phase;
  return kubeobjects::to_json(p, kubeobjects::TypeMeta::kWrite);
}

// A member of pod group `group` (label scheduling.x-k8s.io/pod-group), pending unless `node` is set.
inline std::string gang_pod_json(const std::string& ns, const std::string& name, const std::string& group,
                                 const std::string& cpu, const std::string& node = "", int priority = 0) {
  kubeobjects::Pod p = pod_object(ns, name, node, cpu, "worker", "trainer");
  p.metadata.labels = {{"app", group}, {"scheduling.x-k8s.io/pod-group", group}};
  p.phase = node.empty() ? "Pending" : "Running";
  p.priority = priority;
  return kubeobjects::to_json(p, kubeobjects::TypeMeta::kWrite);
}

// A member of upstream's PodGroup `group` (spec.schedulingGroup.podGroupName), pending.
inline std::string upstream_gang_pod_json(const std::string& ns, const std::string& name,
                                          const std::string& group, const std::string& cpu) {
  kubeobjects::Pod p = pod_object(ns, name, "", cpu, "worker", "trainer");
  p.metadata.labels = {{"app", group}};
  p.phase = "Pending";
  std::string json = kubeobjects::to_json(p, kubeobjects::TypeMeta::kWrite);
  const std::string spec = R"("spec":{)";
  return json.insert(json.find(spec) + spec.size(),
                     R"("schedulingGroup":{"podGroupName":")" + group + R"("},)");
}

// Upstream's PodGroup (scheduling.k8s.io/v1alpha2): a gang of min_count, or with min_count 0 the basic
// policy.
inline std::string upstream_pod_group_json(const std::string& ns, const std::string& name, int min_count) {
  const std::string policy =
      min_count > 0 ? R"({"gang":{"minCount":)" + std::to_string(min_count) + "}}" : R"({"basic":{}})";
  return R"({"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup","metadata":{"name":")" + name +
         R"(","namespace":")" + ns +
         R"(","creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"schedulingPolicy":)" + policy + "}}";
}

// scheduler-plugins' PodGroup (scheduling.x-k8s.io/v1alpha1); created at `created` (RFC 3339).
inline std::string pod_group_json(const std::string& ns, const std::string& name, int min_member,
                                  int timeout_seconds = 0,
                                  const std::string& created = "2026-01-01T00:00:00Z") {
  return R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":")" + name +
         R"(","namespace":")" + ns + R"(","creationTimestamp":")" + created + R"("},"spec":{"minMember":)" +
         std::to_string(min_member) +
         (timeout_seconds ? R"(,"scheduleTimeoutSeconds":)" + std::to_string(timeout_seconds) : "") + "}}";
}

inline std::string pdb_json(const std::string& ns, const std::string& name, const std::string& app,
                            int allowed) {
  kubeobjects::PodDisruptionBudget b;
  b.metadata.name = name;
  b.metadata.namespace_ = ns;
  b.match_labels = {{"app", app}};
  b.disruptions_allowed = allowed;
  return kubeobjects::to_json(b, kubeobjects::TypeMeta::kWrite);
}

// A Namespace with the label team=<team> ("" for none).
inline std::string namespace_json(const std::string& name, const std::string& team) {
  return R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":")" + name + R"(")" +
         (team.empty() ? "" : R"(,"labels":{"team":")" + team + R"("})") + "}}";
}

// A Service or ReplicationController (kind) selecting app=<app> by spec.selector's map; "" for none.
inline std::string map_selector_json(const std::string& kind, const std::string& ns, const std::string& name,
                                     const std::string& app) {
  return R"({"kind":")" + kind + R"(","apiVersion":"v1","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"("},"spec":{)" + (app.empty() ? "" : R"("selector":{"app":")" + app + R"("})") + "}}";
}

// A ReplicaSet or StatefulSet (kind) selecting app=<app> by spec.selector.matchLabels.
inline std::string label_selector_json(const std::string& kind, const std::string& ns,
                                       const std::string& name, const std::string& app) {
  return R"({"kind":")" + kind + R"(","apiVersion":"apps/v1","metadata":{"name":")" + name +
         R"(","namespace":")" + ns + R"("},"spec":{"selector":{"matchLabels":{"app":")" + app + R"("}}}})";
}

}  // namespace kext::testing
