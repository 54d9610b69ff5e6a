#include "kube/codec/k8s_decode.h"

#include <gtest/gtest.h>

#include "common/rfc3339.h"
#include "kubeobjects/model_json.h"

namespace kext {
namespace k8s_decode_test {
namespace {

rapidjson::Document doc(const char* text) {
  rapidjson::Document d;
  d.Parse(text);
  return d;
}

TEST(Rfc3339, ParsesKubernetesTimes) {
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_rfc3339("2026-11-22T09:04:39Z"), 1795338279);
  EXPECT_EQ(parse_rfc3339("2026-11-22T09:04:39.123456Z"), 1795338279);
  EXPECT_EQ(parse_rfc3339("2026-11-22T10:04:39+01:00"), 1795338279);
  EXPECT_EQ(parse_rfc3339("2026-11-22T08:04:39-01:00"), 1795338279);
  EXPECT_FALSE(parse_rfc3339("2026-11-22"));
  EXPECT_FALSE(parse_rfc3339("2026-13-22T09:04:39Z"));
  EXPECT_FALSE(parse_rfc3339("2026-11-22T09:04:39"));
  EXPECT_FALSE(parse_rfc3339("2026-11-22T09:04:39Zjunk"));
  EXPECT_FALSE(parse_rfc3339("yesterday at noon!!"));
}

TEST(DecodePod, ContainersInitContainersSidecarsOverheadAndScheduling) {
  auto d = doc(R"({"metadata":{"name":"p","namespace":"ns","uid":"u","labels":{"a":"b"},
      "deletionTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{"priority":-5,"preemptionPolicy":"Never","nodeName":"n1","schedulingGroup":{"podGroupName":"bert"},
        "containers":[{"name":"a","image":"img:1","resources":{"requests":{"cpu":"250m","memory":"1Gi","example.com/gpu":"2"}}},
                      {"name":"b","resources":{"requests":{"cpu":0.5}}}],
        "initContainers":[{"name":"i","restartPolicy":"Always","resources":{"requests":{"cpu":"1"}}}],
        "overhead":{"cpu":"10m"},
        "nodeSelector":{"disk":"ssd"},
        "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}],
        "affinity":{"nodeAffinity":{
          "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["z1","z2"]}],
             "matchFields":[{"key":"metadata.name","operator":"NotIn","values":["bad"]}]}]},
          "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":7,"preference":{"matchExpressions":[{"key":"disk","operator":"Exists"}]}}]}}},
      "status":{"phase":"Running","startTime":"1970-01-01T00:01:00Z","nominatedNodeName":"n2"}})");
  Pod p = decode_pod(d, "Pod");
  EXPECT_EQ(p.name, "p");
  EXPECT_EQ(p.namespace_, "ns");
  EXPECT_TRUE(p.terminating);
  EXPECT_EQ(p.effective_priority(), -5);
  EXPECT_EQ(p.preemption_policy, "Never");
  EXPECT_EQ(p.scheduling_group, "bert");
  ASSERT_EQ(p.containers.size(), 2u);
  EXPECT_EQ(p.containers[0].requests.milli_cpu, 250);
  EXPECT_EQ(p.containers[0].requests.memory, 1LL << 30);
  EXPECT_EQ(p.containers[0].requests.scalar("example.com/gpu"), 2);
  EXPECT_TRUE(p.containers[0].has_memory_request);
  EXPECT_EQ(p.containers[1].requests.milli_cpu, 500);  // a bare JSON number is a quantity too
  EXPECT_FALSE(p.containers[1].has_memory_request);
  ASSERT_EQ(p.init_containers.size(), 1u);
  EXPECT_TRUE(p.init_containers[0].restartable);
  EXPECT_EQ(p.overhead.milli_cpu, 10);
  EXPECT_EQ(p.node_selector.at("disk"), "ssd");
  ASSERT_EQ(p.tolerations.size(), 1u);
  EXPECT_EQ(p.tolerations[0].op, "Exists");
  ASSERT_TRUE(p.node_affinity && p.node_affinity->required);
  ASSERT_EQ(p.node_affinity->required->size(), 1u);
  EXPECT_EQ((*p.node_affinity->required)[0].match_expressions[0].values.size(), 2u);
  EXPECT_EQ((*p.node_affinity->required)[0].match_fields[0].key, "metadata.name");
  ASSERT_EQ(p.node_affinity->preferred.size(), 1u);
  EXPECT_EQ(p.node_affinity->preferred[0].weight, 7);
  EXPECT_EQ(p.start_time, 60);
  EXPECT_EQ(p.nominated_node_name, "n2");
}

// preemption.go podTerminatingByPreemption: the first DisruptionTarget condition, True, reason
// PreemptionByScheduler.
TEST(DecodePod, DisruptionTargetConditionMarksAPreemptionVictim) {
  struct Case {
    const char* conditions;
    bool victim;
  };
  const Case cases[] = {
      {R"([{"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"}])", true},
      {R"([{"type":"Ready","status":"True"},
           {"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"}])",
       true},
      {R"([{"type":"DisruptionTarget","status":"False","reason":"PreemptionByScheduler"}])", false},
      {R"([{"type":"DisruptionTarget","status":"True","reason":"EvictionByEvictionAPI"}])", false},
      {R"([{"type":"DisruptionTarget","status":"True","reason":"EvictionByEvictionAPI"},
           {"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"}])",
       false},
      {R"([])", false},
  };
  for (const Case& c : cases) {
    const std::string text =
        std::string(R"({"metadata":{"name":"p"},"status":{"conditions":)") + c.conditions + "}}";
    auto d = doc(text.c_str());
    EXPECT_EQ(decode_pod(d, "Pod").preemption_victim, c.victim) << c.conditions;
  }
  auto none = doc(R"({"metadata":{"name":"p"}})");
  EXPECT_FALSE(decode_pod(none, "Pod").preemption_victim);
}

// What algorithms/pod_requests.h reads by minor: spec.resources.requests (1.34), each container's
// status resources and allocatedResources (1.33, only with `resources`), PodResizePending's reason.
TEST(DecodePod, PodLevelRequestsContainerStatusesAndResizeCondition) {
  auto d = doc(R"({"metadata":{"name":"p"},
      "spec":{"resources":{"requests":{"cpu":"2","hugepages-2Mi":"4Mi"},"limits":{"memory":"1Gi"}},
        "containers":[{"name":"a","resources":{"requests":{"cpu":"500m"}}},{"name":"b"},{"name":"c"}],
        "initContainers":[{"name":"s","restartPolicy":"Always"}]},
      "status":{
        "conditions":[{"type":"Ready","reason":"Infeasible"},{"type":"PodResizePending","status":"True","reason":"Infeasible"},
                      {"type":"PodResizePending","reason":"Deferred"}],
        "containerStatuses":[
          {"name":"a","allocatedResources":{"cpu":"800m","memory":"1Gi"},"resources":{"requests":{"cpu":"700m"}}},
          {"name":"b","allocatedResources":{"cpu":"1"}},
          {"name":"c","resources":{}}],
        "initContainerStatuses":[{"name":"s","resources":{"requests":{"memory":"64Mi"}}}]}})");
  const Pod p = decode_pod(d, "Pod");
  ASSERT_TRUE(p.pod_level_requests);
  EXPECT_EQ(p.pod_level_requests->amounts.milli_cpu, 2000);
  EXPECT_EQ(p.pod_level_requests->amounts.scalar("hugepages-2Mi"), 4LL << 20);
  EXPECT_TRUE(p.pod_level_requests->names_cpu);
  EXPECT_FALSE(p.pod_level_requests->names_memory);  // limits are not requests
  ASSERT_TRUE(p.containers[0].status);
  EXPECT_EQ(p.containers[0].status->requests.milli_cpu, 700);
  EXPECT_EQ(p.containers[0].status->allocated.milli_cpu, 800);
  EXPECT_TRUE(p.containers[0].status->names_cpu);
  EXPECT_TRUE(p.containers[0].status->names_memory);  // allocatedResources names memory
  EXPECT_FALSE(p.containers[1].status);               // allocatedResources alone: the spec is read
  ASSERT_TRUE(p.containers[2].status);                // resources: {} is a status with nothing in it
  EXPECT_FALSE(p.containers[2].status->names_cpu);
  ASSERT_TRUE(p.init_containers[0].status);
  EXPECT_EQ(p.init_containers[0].status->requests.memory, 64LL << 20);
  EXPECT_TRUE(p.resize_infeasible);  // the first PodResizePending decides

  auto plain = doc(R"({"spec":{"resources":{"limits":{"cpu":"1"}},"containers":[{"name":"a"}]},
      "status":{"conditions":[{"type":"PodResizePending","reason":"Deferred"}]}})");
  const Pod q = decode_pod(plain, "Pod");
  EXPECT_FALSE(q.pod_level_requests);
  EXPECT_FALSE(q.resize_infeasible);
  EXPECT_FALSE(q.containers[0].status);
}

TEST(DecodePod, MalformedResourceStatusNamesItsPath) {
  for (const char* text : {
           R"({"spec":{"resources":{"requests":{"cpu":"x"}}}})",
           R"({"status":{"containerStatuses":[{"name":"a","resources":{"requests":{"cpu":"-1"}}}]}})",
           R"({"status":{"containerStatuses":[{"name":"a","resources":{},"allocatedResources":[]}]}})",
           R"({"status":{"conditions":[{"type":"PodResizePending","reason":7}]}})",
       }) {
    SCOPED_TRACE(text);
    auto d = doc(text);
    EXPECT_THROW(decode_pod(d, "Pod"), DecodeError);
  }
  try {
    auto d = doc(R"({"status":{"containerStatuses":[{"name":"a","resources":{"requests":{"cpu":"-1"}}}]}})");
    decode_pod(d, "Pod");
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("Pod.status.containerStatuses[0].resources.requests.cpu"),
              std::string::npos)
        << e.what();
  }
}

TEST(DecodePod, PodAffinityAndAntiAffinityTerms) {
  auto d = doc(R"({"metadata":{"name":"p"},"spec":{"affinity":{
      "podAffinity":{
        "requiredDuringSchedulingIgnoredDuringExecution":[{
          "labelSelector":{"matchLabels":{"app":"db"},"matchExpressions":[{"key":"tier","operator":"NotIn","values":["x"]}]},
          "namespaces":["a","b"],"namespaceSelector":{},"topologyKey":"zone",
          "matchLabelKeys":["pod-template-hash"],"mismatchLabelKeys":["tenant"]}],
        "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":30,
          "podAffinityTerm":{"labelSelector":{},"topologyKey":"kubernetes.io/hostname"}}]},
      "podAntiAffinity":{
        "requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"kubernetes.io/hostname"}],
        "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,
          "podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"zone"}}]}}}})");
  const Pod p = decode_pod(d, "Pod");
  ASSERT_TRUE(p.affinity);
  const PodAffinityRules& a = *p.affinity;
  ASSERT_EQ(a.required_affinity.size(), 1u);
  const PodAffinityTerm& t = a.required_affinity[0];
  ASSERT_TRUE(t.label_selector);
  EXPECT_EQ(t.label_selector->match_labels, (Labels{{"app", "db"}}));
  EXPECT_EQ(t.label_selector->match_expressions,
            (std::vector<SelectorRequirement>{{"tier", "NotIn", {"x"}}}));
  EXPECT_EQ(t.namespaces, (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(t.namespace_selector) << "{} is an empty selector (every namespace), not a nil one";
  EXPECT_EQ(*t.namespace_selector, LabelSelector{});
  EXPECT_EQ(t.topology_key, "zone");
  EXPECT_EQ(t.match_label_keys, (std::vector<std::string>{"pod-template-hash"}));
  EXPECT_EQ(t.mismatch_label_keys, (std::vector<std::string>{"tenant"}));
  ASSERT_EQ(a.preferred_affinity.size(), 1u);
  EXPECT_EQ(a.preferred_affinity[0].weight, 30);
  ASSERT_TRUE(a.preferred_affinity[0].term.label_selector);
  EXPECT_EQ(*a.preferred_affinity[0].term.label_selector, LabelSelector{});
  EXPECT_FALSE(a.preferred_affinity[0].term.namespace_selector) << "absent: nil";
  ASSERT_EQ(a.required_anti_affinity.size(), 1u);
  EXPECT_FALSE(a.required_anti_affinity[0].label_selector) << "absent: nil, which matches no pod";
  EXPECT_EQ(a.required_anti_affinity[0].topology_key, "kubernetes.io/hostname");
  ASSERT_EQ(a.preferred_anti_affinity.size(), 1u);
  EXPECT_EQ(a.preferred_anti_affinity[0].weight, 100);
  EXPECT_EQ(a.preferred_anti_affinity[0].term.label_selector->match_labels.at("app"), "web");
  EXPECT_FALSE(p.node_affinity);

  // null is absent too (Go decodes null into the nil pointer).
  auto null_sel =
      doc(R"({"spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
      {"labelSelector":null,"namespaceSelector":null,"topologyKey":"z"}]}}}})");
  const Pod n = decode_pod(null_sel, "Pod");
  ASSERT_TRUE(n.affinity);
  EXPECT_FALSE(n.affinity->required_anti_affinity[0].label_selector);
  EXPECT_FALSE(n.affinity->required_anti_affinity[0].namespace_selector);
}

// Most pods: no pointer at all, whatever empty shells the object carries.
TEST(DecodePod, NoPodAffinityTermsLeaveTheRulesNull) {
  for (const char* text : {
           R"({"spec":{}})",
           R"({"spec":{"affinity":{}}})",
           R"({"spec":{"affinity":null}})",
           R"({"spec":{"affinity":{"podAffinity":{},"podAntiAffinity":null}}})",
           R"({"spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[],
               "preferredDuringSchedulingIgnoredDuringExecution":null}}}})",
           R"({"spec":{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
               {"weight":1,"preference":{}}]}}}})",
       }) {
    SCOPED_TRACE(text);
    auto d = doc(text);
    const Pod p = decode_pod(d, "Pod");
    EXPECT_EQ(p.affinity, nullptr);
  }
}

TEST(DecodePod, TopologySpreadConstraints) {
  auto d = doc(R"({"spec":{"topologySpreadConstraints":[
      {"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway",
       "labelSelector":{"matchLabels":{"app":"web"}},"minDomains":3,"nodeAffinityPolicy":"Ignore",
       "nodeTaintsPolicy":"Honor","matchLabelKeys":["pod-template-hash"]},
      {"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"DoNotSchedule","labelSelector":{}},
      {"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}})");
  const Pod p = decode_pod(d, "Pod");
  ASSERT_EQ(p.topology_spread_constraints.size(), 3u);
  const TopologySpreadConstraint& c = p.topology_spread_constraints[0];
  EXPECT_EQ(c.max_skew, 2);
  EXPECT_EQ(c.topology_key, "zone");
  EXPECT_EQ(c.when_unsatisfiable, "ScheduleAnyway");
  ASSERT_TRUE(c.label_selector);
  EXPECT_EQ(c.label_selector->match_labels.at("app"), "web");
  EXPECT_EQ(c.min_domains, 3);
  EXPECT_EQ(c.node_affinity_policy, "Ignore");
  EXPECT_EQ(c.node_taints_policy, "Honor");
  EXPECT_EQ(c.match_label_keys, (std::vector<std::string>{"pod-template-hash"}));
  const TopologySpreadConstraint& empty = p.topology_spread_constraints[1];
  ASSERT_TRUE(empty.label_selector) << "{}: an empty selector";
  EXPECT_EQ(*empty.label_selector, LabelSelector{});
  EXPECT_FALSE(empty.min_domains);
  EXPECT_EQ(empty.node_affinity_policy, "");
  EXPECT_FALSE(p.topology_spread_constraints[2].label_selector) << "absent: nil";
}

// pkg/scheduler/util/utils.go GetHostPorts: every container's ports with hostPort > 0, and those of
// init containers with restartPolicy: Always (sidecars); a plain init container's are not held.
TEST(DecodePod, HostPortsOfContainersAndSidecars) {
  auto d = doc(R"({"spec":{
      "containers":[
        {"name":"a","ports":[{"containerPort":80,"hostPort":8080},
                             {"containerPort":81},
                             {"containerPort":82,"hostPort":0},
                             {"containerPort":53,"hostPort":53,"protocol":"UDP","hostIP":"10.0.0.1"}]},
        {"name":"b","ports":[{"containerPort":443,"hostPort":443,"protocol":"SCTP"}]},
        {"name":"c"}],
      "initContainers":[
        {"name":"init","ports":[{"containerPort":9000,"hostPort":9000}]},
        {"name":"side","restartPolicy":"Always","ports":[{"containerPort":9001,"hostPort":9001,"hostIP":"0.0.0.0"}]}]}})");
  const Pod p = decode_pod(d, "Pod");
  EXPECT_EQ(p.host_ports,
            (std::vector<HostPort>{
                {8080, "TCP", ""}, {53, "UDP", "10.0.0.1"}, {443, "SCTP", ""}, {9001, "TCP", "0.0.0.0"}}));
  EXPECT_EQ(p.containers.size(), 3u);
  EXPECT_EQ(p.init_containers.size(), 2u);
  auto none = doc(R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}})");
  EXPECT_TRUE(decode_pod(none, "Pod").host_ports.empty());
}

// metav1.GetControllerOf: the first owner reference with controller: true.
TEST(DecodePod, ControllerOwnerReference) {
  auto d = doc(R"({"metadata":{"name":"web-1","ownerReferences":[
      {"apiVersion":"v1","kind":"ConfigMap","name":"not-a-controller","uid":"1"},
      {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-5d4f","uid":"2","controller":true,"blockOwnerDeletion":true},
      {"apiVersion":"apps/v1","kind":"StatefulSet","name":"second","uid":"3","controller":true}]}})");
  const Pod p = decode_pod(d, "Pod");
  EXPECT_EQ(p.controller_kind, "ReplicaSet");
  EXPECT_EQ(p.controller_name, "web-5d4f");
  auto orphan =
      doc(R"({"metadata":{"name":"p","ownerReferences":[{"kind":"Job","name":"j","controller":false}]}})");
  const Pod o = decode_pod(orphan, "Pod");
  EXPECT_EQ(o.controller_kind, "");
  EXPECT_EQ(o.controller_name, "");
}

// Keys match case-insensitively when no exact key is there, as Go's encoding/json does (json::find).
TEST(DecodePod, NewFieldsFoldKeyCaseAsGoDoes) {
  auto d = doc(
      R"({"spec":{"containers":[{"name":"a","ports":[{"HOSTPORT":80,"Protocol":"UDP","hostip":"1.2.3.4"}]}],
      "TopologySpreadConstraints":[{"MaxSkew":4,"topologykey":"zone"}],
      "affinity":{"PodAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"TopologyKey":"zone"}]}}},
      "metadata":{"OwnerReferences":[{"Kind":"Job","NAME":"j","Controller":true}]}})");
  const Pod p = decode_pod(d, "Pod");
  EXPECT_EQ(p.host_ports, (std::vector<HostPort>{{80, "UDP", "1.2.3.4"}}));
  ASSERT_EQ(p.topology_spread_constraints.size(), 1u);
  EXPECT_EQ(p.topology_spread_constraints[0].max_skew, 4);
  EXPECT_EQ(p.topology_spread_constraints[0].topology_key, "zone");
  ASSERT_TRUE(p.affinity);
  EXPECT_EQ(p.affinity->required_affinity[0].topology_key, "zone");
  EXPECT_EQ(p.controller_kind, "Job");
  EXPECT_EQ(p.controller_name, "j");
}

TEST(DecodePod, MalformedNewFieldsNameTheirPath) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"spec":{"affinity":{"podAffinity":[]}}})",
       "Pod.spec.affinity.podAffinity: expected object, got array"},
      {R"({"spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{}}}}})",
       "Pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution: expected array, "
       "got object"},
      {R"({"spec":{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
          {"labelSelector":{"matchLabels":{"app":1}}}]}}}})",
       "Pod.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector."
       "matchLabels.app:"
       " expected string, got number"},
      {R"({"spec":{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
          {"namespaceSelector":"all"}]}}}})",
       "Pod.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector: "
       "expected "
       "object, got string"},
      {R"({"spec":{"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
          {"namespaces":["a",2]}]}}}})",
       "Pod.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaces[1]: "
       "expected "
       "string, got number"},
      {R"({"spec":{"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
          {"weight":1},{"weight":4294967296}]}}}})",
       "Pod.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].weight: out of "
       "int32 "
       "range"},
      {R"({"spec":{"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
          {"weight":1,"podAffinityTerm":{"mismatchLabelKeys":"k"}}]}}}})",
       "Pod.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm."
       "mismatchLabelKeys: expected array, got string"},
      {R"({"spec":{"topologySpreadConstraints":[{"maxSkew":"1"}]}})",
       "Pod.spec.topologySpreadConstraints[0].maxSkew: expected integer, got string"},
      {R"({"spec":{"topologySpreadConstraints":[{},{"minDomains":1.5}]}})",
       "Pod.spec.topologySpreadConstraints[1].minDomains: expected integer, got number"},
      {R"({"spec":{"topologySpreadConstraints":[{"labelSelector":{"matchExpressions":[{"key":"a","operator":"In",
          "values":"x"}]}}]}})",
       "Pod.spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values: expected array, got "
       "string"},
      {R"({"spec":{"topologySpreadConstraints":{}}})",
       "Pod.spec.topologySpreadConstraints: expected array, got object"},
      {R"({"spec":{"containers":[{"name":"a","ports":[{"hostPort":"80"}]}]}})",
       "Pod.spec.containers[0].ports[0].hostPort: expected integer, got string"},
      {R"({"spec":{"containers":[{"name":"a","ports":[{"hostPort":2147483648}]}]}})",
       "Pod.spec.containers[0].ports[0].hostPort: out of int32 range"},
      {R"({"spec":{"containers":[{"name":"a","ports":[{"hostPort":80,"protocol":6}]}]}})",
       "Pod.spec.containers[0].ports[0].protocol: expected string, got number"},
      // A plain init container's ports are not kept, but they are still checked, as Go decodes them.
      {R"({"spec":{"initContainers":[{"name":"i","ports":[7]}]}})",
       "Pod.spec.initContainers[0].ports[0]: expected object, got number"},
      {R"({"metadata":{"ownerReferences":[{"kind":"ReplicaSet","controller":"yes"}]}})",
       "Pod.metadata.ownerReferences[0].controller: expected boolean, got string"},
      {R"({"metadata":{"ownerReferences":{"kind":"ReplicaSet"}}})",
       "Pod.metadata.ownerReferences: expected array, got object"},
  };
  for (const auto& [text, message] : cases) {
    SCOPED_TRACE(text);
    auto d = doc(text);
    ASSERT_FALSE(d.HasParseError());
    try {
      decode_pod(d, "Pod");
      ADD_FAILURE() << "expected an error";
    } catch (const DecodeError& e) {
      EXPECT_STREQ(e.what(), message);
    }
  }
}

// What extender-sim --extender writes (kubeobjects/model_json.h) decodes back to the same new fields.
TEST(DecodePod, NewFieldsRoundTripThroughModelJson) {
  Pod p;
  p.name = "web-0";
  p.namespace_ = "prod";
  p.containers.emplace_back();
  p.containers[0].name = "c";
  p.host_ports = {{8080, "TCP", ""}, {53, "UDP", "10.0.0.1"}};
  p.controller_kind = "StatefulSet";
  p.controller_name = "web";
  PodAffinityRules rules;
  PodAffinityTerm term;
  term.label_selector = LabelSelector{{{"app", "db"}}, {{"tier", "In", {"a", "b"}}}};
  term.namespaces = {"prod"};
  term.namespace_selector = LabelSelector{};
  term.topology_key = "zone";
  term.match_label_keys = {"pod-template-hash"};
  term.mismatch_label_keys = {"tenant"};
  rules.required_affinity = {term};
  WeightedPodAffinityTerm preferred;
  preferred.weight = 50;
  preferred.term.topology_key = "kubernetes.io/hostname";
  rules.preferred_anti_affinity = {preferred};
  p.affinity = std::make_shared<const PodAffinityRules>(rules);
  TopologySpreadConstraint c;
  c.max_skew = 3;
  c.topology_key = "zone";
  c.when_unsatisfiable = "ScheduleAnyway";
  c.label_selector = LabelSelector{};
  c.min_domains = 2;
  c.node_affinity_policy = "Ignore";
  c.node_taints_policy = "Honor";
  c.match_label_keys = {"pod-template-hash"};
  TopologySpreadConstraint defaults;  // maxSkew 1, DoNotSchedule, nil selector
  defaults.topology_key = "host";
  p.topology_spread_constraints = {c, defaults};
  p.preemption_victim = true;

  const std::string text = model_json::pod_json(p);
  auto d = doc(text.c_str());
  const Pod back = decode_pod(d, "pod");
  EXPECT_TRUE(back.preemption_victim);
  EXPECT_EQ(back.host_ports, p.host_ports);
  EXPECT_EQ(back.controller_kind, "StatefulSet");
  EXPECT_EQ(back.controller_name, "web");
  EXPECT_EQ(back.topology_spread_constraints, p.topology_spread_constraints);
  ASSERT_TRUE(back.affinity) << text;
  ASSERT_EQ(back.affinity->required_affinity.size(), 1u);
  const PodAffinityTerm& t = back.affinity->required_affinity[0];
  EXPECT_EQ(t.label_selector, term.label_selector);
  EXPECT_EQ(t.namespaces, term.namespaces);
  EXPECT_EQ(t.namespace_selector, term.namespace_selector);
  EXPECT_EQ(t.topology_key, "zone");
  EXPECT_EQ(t.match_label_keys, term.match_label_keys);
  EXPECT_EQ(t.mismatch_label_keys, term.mismatch_label_keys);
  EXPECT_TRUE(back.affinity->preferred_affinity.empty());
  EXPECT_TRUE(back.affinity->required_anti_affinity.empty());
  ASSERT_EQ(back.affinity->preferred_anti_affinity.size(), 1u);
  EXPECT_EQ(back.affinity->preferred_anti_affinity[0].weight, 50);
  EXPECT_FALSE(back.affinity->preferred_anti_affinity[0].term.label_selector) << "nil stays nil";
  EXPECT_FALSE(back.node_affinity);

  // None of it set: nothing written, nothing decoded.
  Pod plain;
  plain.name = "p";
  const std::string plain_text = model_json::pod_json(plain);
  EXPECT_EQ(plain_text.find("affinity"), std::string::npos) << plain_text;
  EXPECT_EQ(plain_text.find("ownerReferences"), std::string::npos) << plain_text;
  auto pd = doc(plain_text.c_str());
  EXPECT_EQ(decode_pod(pd, "pod").affinity, nullptr);
}

TEST(DecodeNode, TaintsImagesUnschedulableAllocatable) {
  auto d = doc(R"({"metadata":{"name":"n","labels":{"zone":"z1"}},
      "spec":{"unschedulable":true,"taints":[{"key":"k","value":"v","effect":"NoExecute"}]},
      "status":{"allocatable":{"cpu":"3920m","memory":"16264Mi","pods":"110","hugepages-2Mi":"1Gi"},
        "images":[{"names":["a:1","a@sha256:x"],"sizeBytes":12345}]}})");
  Node n = decode_node(d, "Node");
  EXPECT_TRUE(n.unschedulable);
  ASSERT_EQ(n.taints.size(), 1u);
  EXPECT_EQ(n.taints[0].effect, "NoExecute");
  EXPECT_EQ(n.allocatable.milli_cpu, 3920);
  EXPECT_EQ(n.allocatable.memory, 16264LL << 20);
  EXPECT_EQ(n.allocatable.pods, 110);
  EXPECT_EQ(n.allocatable.scalar("hugepages-2Mi"), 1LL << 30);
  ASSERT_EQ(n.images.size(), 2u);  // one entry per name, sorted by key for ImageLocality's lookup
  EXPECT_LT(n.images[0].key, n.images[1].key);
  EXPECT_EQ(image_size(n.images, image_key("a:1")), 12345);
  EXPECT_EQ(image_size(n.images, image_key("a@sha256:x")), 12345);
}

// Found by tests/fuzz (prioritize): allocatable cpu "-1m" made BalancedResourceAllocation's fraction
// -1e18 and its score int64(-1e19), undefined behaviour. The API server never holds negative quantities.
TEST(DecodeResources, NegativeQuantitiesAreRejected) {
  auto node = doc(R"({"metadata":{"name":"n"},"status":{"allocatable":{"cpu":"-1m","memory":"1Gi"}}})");
  try {
    decode_node(node, "Nodes.items[0]");
    FAIL() << "expected an error";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "Nodes.items[0].status.allocatable.cpu: must not be negative");
  }
  auto pod = doc(R"({"spec":{"containers":[{"name":"c","resources":{"requests":{"example.com/gpu":-2}}}]}})");
  EXPECT_THROW(decode_pod(pod, "Pod"), DecodeError);
  auto overhead = doc(R"({"spec":{"overhead":{"memory":"-1Gi"}}})");
  EXPECT_THROW(decode_pod(overhead, "Pod"), DecodeError);
  auto zero = doc(R"({"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"-0"}}}]}})");
  EXPECT_EQ(decode_pod(zero, "Pod").containers[0].requests.milli_cpu, 0);  // "-0" is zero, not negative
}

TEST(DecodePdb, SelectorAndStatus) {
  auto d = doc(R"({"metadata":{"name":"b","namespace":"ns"},"spec":{"selector":{"matchLabels":{"a":"1"},
      "matchExpressions":[{"key":"t","operator":"In","values":["x"]}]}},
      "status":{"disruptionsAllowed":2,"disruptedPods":{"p1":"2026-01-01T00:00:00Z"}}})");
  PodDisruptionBudget b = decode_pdb(d, "pdb");
  ASSERT_TRUE(b.selector);
  EXPECT_EQ(b.selector->match_labels.at("a"), "1");
  EXPECT_EQ(b.selector->match_expressions.size(), 1u);
  EXPECT_EQ(b.disruptions_allowed, 2);
  ASSERT_EQ(b.disrupted_pods.size(), 1u);
  EXPECT_EQ(b.disrupted_pods[0], "p1");
  auto nil = doc(R"({"metadata":{"name":"b"},"spec":{}})");
  EXPECT_FALSE(decode_pdb(nil, "pdb").selector.has_value());
  auto empty = doc(R"({"metadata":{"name":"b"},"spec":{"selector":{}}})");
  EXPECT_EQ(decode_pdb(empty, "pdb").selector, LabelSelector{});
  auto bad = doc(R"({"spec":{"selector":{"matchExpressions":{}}}})");
  try {
    decode_pdb(bad, "pdb");
    FAIL() << "expected an error";
  } catch (const DecodeError& e) {
    EXPECT_STREQ(e.what(), "pdb.spec.selector.matchExpressions: expected array, got object");
  }
}

}  // namespace
}  // namespace k8s_decode_test
}  // namespace kext
