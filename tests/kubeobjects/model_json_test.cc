// kubeobjects/model_json: the scheduling model's pods as the API serves them. The decoder reading them
// back is tested in tests/kube/codec/k8s_decode_test.cc (DecodePod.NewFieldsRoundTripThroughModelJson).
#include "kubeobjects/model_json.h"

#include <gtest/gtest.h>

namespace kext::model_json {
namespace model_json_test {
namespace {

Pod minimal_pod() {
  Pod p;
  p.name = "p";
  p.namespace_ = "ns";
  p.uid = "u";
  p.containers.emplace_back();
  p.containers[0].name = "c";
  return p;
}

TEST(ModelJson, APodWithoutTheNewFieldsWritesNoneOfThem) {
  EXPECT_EQ(pod_json(minimal_pod()),
            R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","uid":"u"},)"
            R"("spec":{"containers":[{"name":"c","resources":{}}]},"status":{}})");
}

// Host ports on the first container, the controller as an owner reference, pod (anti-)affinity beside
// the node affinity, spread constraints; a nil selector is left out and an empty one written as {}.
TEST(ModelJson, HostPortsOwnerPodAffinityAndSpread) {
  Pod p = minimal_pod();
  p.containers.emplace_back();
  p.containers[1].name = "d";
  p.host_ports = {{8080, "TCP", ""}, {53, "UDP", "10.0.0.1"}};
  p.controller_kind = "ReplicaSet";
  p.controller_name = "rs";
  PodAffinityRules rules;
  PodAffinityTerm term;
  term.label_selector = LabelSelector{{{"app", "db"}}, {}};
  term.namespace_selector = LabelSelector{};
  term.topology_key = "zone";
  term.match_label_keys = {"h"};
  rules.required_affinity = {term};
  WeightedPodAffinityTerm weighted;
  weighted.weight = 5;
  weighted.term.topology_key = "host";
  weighted.term.namespaces = {"a"};
  rules.preferred_anti_affinity = {weighted};
  p.affinity = std::make_shared<const PodAffinityRules>(rules);
  TopologySpreadConstraint c;
  c.topology_key = "zone";
  c.label_selector = LabelSelector{};
  c.min_domains = 2;
  p.topology_spread_constraints = {c};
  EXPECT_EQ(
      pod_json(p),
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","uid":"u",)"
      R"("ownerReferences":[{"kind":"ReplicaSet","name":"rs","controller":true}]},)"
      R"("spec":{"containers":[{"name":"c","ports":[{"hostPort":8080,"containerPort":8080,"protocol":"TCP"},)"
      R"({"hostPort":53,"containerPort":53,"protocol":"UDP","hostIP":"10.0.0.1"}],"resources":{}},)"
      R"({"name":"d","resources":{}}],)"
      R"("affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
      R"({"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"zone","namespaceSelector":{},)"
      R"("matchLabelKeys":["h"]}]},)"
      R"("podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,)"
      R"("podAffinityTerm":{"namespaces":["a"],"topologyKey":"host"}}]}},)"
      R"("topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule",)"
      R"("labelSelector":{},"minDomains":2}]},"status":{}})");
}

// Node affinity and pod affinity share the one affinity object.
TEST(ModelJson, NodeAndPodAffinityShareOneObject) {
  Pod p = minimal_pod();
  NodeAffinity na;
  na.preferred = {{3, {}}};
  p.node_affinity = na;
  PodAffinityRules rules;
  rules.required_anti_affinity.emplace_back();
  rules.required_anti_affinity[0].topology_key = "host";
  p.affinity = std::make_shared<const PodAffinityRules>(rules);
  const std::string text = pod_json(p);
  EXPECT_NE(text.find(R"("affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[)"
                      R"({"weight":3,"preference":{}}]},"podAntiAffinity":{)"
                      R"("requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"host"}]}})"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace model_json_test
}  // namespace kext::model_json
