#include "extender/codec/k8s_decode.h"

#include <gtest/gtest.h>

#include "common/rfc3339.h"

namespace kext {
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
      "spec":{"priority":-5,"preemptionPolicy":"Never","nodeName":"n1",
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
}

}  // namespace
}  // namespace kext
