// kubeobjects: Go's encoding/json on the core/v1 and policy/v1 types, for the fields the generators set.
#include "kubeobjects/objects.h"

#include <gtest/gtest.h>

namespace kext::kubeobjects {
namespace objects_test {
namespace {

TEST(KubeObjects, AMinimalNodeHasOnlyWhatIsSet) {
  Node n;
  n.metadata.name = "n1";
  n.metadata.labels = {{"kubernetes.io/hostname", "n1"}, {"disk", "ssd"}};
  n.allocatable = {{"pods", "110"}, {"cpu", "4"}, {"memory", "8Gi"}};
  EXPECT_EQ(to_json(n, TypeMeta::kWrite),
            R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1","labels":{"disk":"ssd",)"
            R"("kubernetes.io/hostname":"n1"}},"spec":{},"status":{"allocatable":{"cpu":"4","memory":"8Gi",)"
            R"("pods":"110"}}})");
}

TEST(KubeObjects, NodeFieldsInGoOrder) {
  Node n;
  n.metadata.name = "n1";
  n.metadata.uid = "u";
  n.metadata.created = 1767225600;
  n.pod_cidr = "10.244.0.0/24";
  n.pod_cidrs = {n.pod_cidr};
  n.unschedulable = true;
  n.taints = {{"node.kubernetes.io/unschedulable", "", "NoSchedule", 1767229200},
              {"dedicated", "batch", "NoSchedule", 0}};
  n.capacity = {{"cpu", "8"}};
  n.conditions = {{"Ready", "True", 1767225660, 1767225640, "KubeletReady", "ready"}};
  n.addresses = {{"InternalIP", "10.0.0.1"}};
  n.kubelet_port = 10250;
  n.images = {{{"a@sha256:00", "a:1"}, 42}};
  EXPECT_EQ(
      to_json(n),
      R"({"metadata":{"name":"n1","uid":"u","creationTimestamp":"2026-01-01T00:00:00Z"},)"
      R"("spec":{"podCIDR":"10.244.0.0/24","podCIDRs":["10.244.0.0/24"],"unschedulable":true,"taints":[)"
      R"({"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule","timeAdded":"2026-01-01T01:00:00Z"},)"
      R"({"key":"dedicated","value":"batch","effect":"NoSchedule"}]},"status":{"capacity":{"cpu":"8"},)"
      R"("conditions":[{"type":"Ready","status":"True","lastHeartbeatTime":"2026-01-01T00:01:00Z",)"
      R"("lastTransitionTime":"2026-01-01T00:00:40Z","reason":"KubeletReady","message":"ready"}],)"
      R"("addresses":[{"type":"InternalIP","address":"10.0.0.1"}],)"
      R"("daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},)"
      R"("images":[{"names":["a@sha256:00","a:1"],"sizeBytes":42}]}})");
}

TEST(KubeObjects, AMinimalPodKeepsAZeroPriority) {
  Pod p;
  p.metadata.name = "p";
  p.metadata.namespace_ = "default";
  p.metadata.uid = "uid-default-p";
  Container c;
  c.name = "c";
  c.requests = {{"memory", "64Mi"}, {"cpu", "100m"}};
  p.containers.push_back(c);
  p.node_name = "n1";
  p.priority = 0;
  p.phase = "Running";
  EXPECT_EQ(
      to_json(p, TypeMeta::kWrite),
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"default","uid":"uid-default-p"},)"
      R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}],)"
      R"("nodeName":"n1","priority":0},"status":{"phase":"Running"}})");
}

TEST(KubeObjects, ManagedFieldsAreOneTreeWithSortedKeys) {
  Pod p;
  ManagedFieldsEntry e;
  e.manager = "kubelet";
  e.operation = "Update";
  e.api_version = "v1";
  e.time = 1767225600;
  e.subresource = "status";
  e.fields = {{"f:status", "f:podIPs", R"(k:{"ip":"10.1.2.3"})", "f:ip"},
              {"f:status", "f:phase"},
              {"f:status", "f:podIPs", "."},
              {"f:status", "f:podIPs", R"(k:{"ip":"10.1.2.3"})", "."}};
  p.metadata.managed_fields.push_back(e);
  EXPECT_EQ(to_json(p),
            R"({"metadata":{"managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1",)"
            R"("time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:phase":{},)"
            R"("f:podIPs":{".":{},"k:{\"ip\":\"10.1.2.3\"}":{".":{},"f:ip":{}}}}},"subresource":"status"}]},)"
            R"("spec":{"containers":[]},"status":{}})");
}

TEST(KubeObjects, PodDisruptionBudget) {
  PodDisruptionBudget b;
  b.metadata.name = "web";
  b.metadata.namespace_ = "default";
  b.match_labels = {{"app", "web"}};
  b.disruptions_allowed = 0;
  EXPECT_EQ(
      to_json(b, TypeMeta::kWrite),
      R"({"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"web","namespace":"default"},)"
      R"("spec":{"selector":{"matchLabels":{"app":"web"}}},"status":{"disruptionsAllowed":0}})");
  b.min_available = 2;
  b.observed_generation = 1;
  b.current_healthy = 3;
  b.desired_healthy = 2;
  b.expected_pods = 3;
  EXPECT_EQ(to_json(b),
            R"({"metadata":{"name":"web","namespace":"default"},"spec":{"minAvailable":2,"selector":{)"
            R"("matchLabels":{"app":"web"}}},"status":{"observedGeneration":1,"disruptionsAllowed":0,)"
            R"("currentHealthy":3,"desiredHealthy":2,"expectedPods":3}})");
}

TEST(KubeObjects, StringsAreEscaped) {
  Node n;
  n.metadata.name = "n";
  n.metadata.annotations = {{"csi.volume.kubernetes.io/nodeid", R"({"ebs.csi.aws.com":"i-1"})"}};
  EXPECT_EQ(to_json(n), R"({"metadata":{"name":"n","annotations":{"csi.volume.kubernetes.io/nodeid":)"
                        R"("{\"ebs.csi.aws.com\":\"i-1\"}"}},"spec":{},"status":{}})");
}

TEST(KubeObjects, RawValuesGoInPlace) {
  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartArray();
  write_raw(w, R"({"a":1})");
  write_raw(w, "[2]");
  w.EndArray();
  EXPECT_EQ(std::string(buf.GetString(), buf.GetSize()), R"([{"a":1},[2]])");
}

}  // namespace
}  // namespace objects_test
}  // namespace kext::kubeobjects
