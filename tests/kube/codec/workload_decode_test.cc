// Namespaces and the objects that select pods, decoded for PodTopologySpread's default constraints and
// InterPodAffinity's namespaceSelector.
#include "kube/codec/workload_decode.h"

#include <gtest/gtest.h>

namespace kext {
namespace workload_decode_test {
namespace {

rapidjson::Document doc(const char* text) {
  rapidjson::Document d;
  d.Parse(text);
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

std::string error_of(WorkloadSelector (*decode)(const json::Value&, std::string_view), const char* text) {
  try {
    decode(doc(text), "obj");
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "no error";
}

TEST(WorkloadDecode, NamespaceNameAndLabels) {
  NamespaceObject ns =
      decode_namespace(doc(R"({"metadata":{"name":"team-a","labels":{"team":"a","x":null}}})"), "ns");
  EXPECT_EQ(ns.name, "team-a");
  EXPECT_EQ(ns.labels, (Labels{{"team", "a"}}));
  EXPECT_TRUE(decode_namespace(doc(R"({"metadata":{"name":"bare"}})"), "ns").labels.empty());
  EXPECT_THROW(decode_namespace(doc(R"({"metadata":{}})"), "ns"), DecodeError);
  try {
    decode_namespace(doc(R"({"metadata":{"name":"a","labels":{"team":1}}})"), "ns");
    ADD_FAILURE() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("ns.metadata.labels.team"), std::string::npos) << e.what();
  }
}

TEST(WorkloadDecode, ServicesAndReplicationControllersSelectByAMap) {
  for (auto* decode : {decode_service, decode_replication_controller}) {
    WorkloadSelector w = decode(
        doc(R"({"metadata":{"name":"web","namespace":"shop"},"spec":{"selector":{"app":"web"}}})"), "o");
    EXPECT_EQ(w.namespace_, "shop");
    EXPECT_EQ(w.name, "web");
    EXPECT_EQ(w.selector.match_labels, (Labels{{"app", "web"}}));
    EXPECT_TRUE(w.selector.match_expressions.empty());
    EXPECT_FALSE(selects_no_pods(w));
    // No selector (an ExternalName Service, a headless one without selector) or an empty one: selects
    // nothing, so the cache skips it (client-go GetPodServices / GetPodControllers).
    EXPECT_TRUE(
        selects_no_pods(decode(doc(R"({"metadata":{"name":"ext","namespace":"shop"},"spec":{}})"), "o")));
    EXPECT_TRUE(selects_no_pods(decode(doc(R"({"metadata":{"name":"ext","namespace":"shop"}})"), "o")));
    EXPECT_TRUE(selects_no_pods(
        decode(doc(R"({"metadata":{"name":"e","namespace":"shop"},"spec":{"selector":{}}})"), "o")));
    EXPECT_TRUE(selects_no_pods(
        decode(doc(R"({"metadata":{"name":"e","namespace":"shop"},"spec":{"selector":null}})"), "o")));
  }
}

TEST(WorkloadDecode, ReplicaSetsAndStatefulSetsSelectByALabelSelector) {
  for (auto* decode : {decode_replica_set, decode_stateful_set}) {
    WorkloadSelector w = decode(
        doc(R"({"metadata":{"name":"db","namespace":"shop"},"spec":{"selector":{"matchLabels":{"app":"db"},)"
            R"("matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]}}})"),
        "o");
    EXPECT_EQ(w.name, "db");
    EXPECT_EQ(w.selector.match_labels, (Labels{{"app", "db"}}));
    ASSERT_EQ(w.selector.match_expressions.size(), 1u);
    EXPECT_EQ(w.selector.match_expressions[0],
              (SelectorRequirement{"tier", "In", std::vector<std::string>{"a", "b"}}));
    EXPECT_TRUE(selects_no_pods(
        decode(doc(R"({"metadata":{"name":"e","namespace":"shop"},"spec":{"selector":{}}})"), "o")));
  }
}

TEST(WorkloadDecode, ErrorsNameTheJsonPath) {
  EXPECT_EQ(error_of(decode_service, R"({"metadata":{"name":"a"},"spec":{"selector":{"app":3}}})"),
            "obj.spec.selector.app: expected string, got number");
  EXPECT_EQ(error_of(decode_replication_controller, R"({"metadata":{"name":"a"},"spec":{"selector":[]}})"),
            "obj.spec.selector: expected object, got array");
  EXPECT_EQ(
      error_of(
          decode_replica_set,
          R"({"metadata":{"name":"a"},"spec":{"selector":{"matchExpressions":[{"key":"k","operator":"In","values":[1]}]}}})"),
      "obj.spec.selector.matchExpressions[0].values[0]: expected string, got number");
  EXPECT_EQ(error_of(decode_stateful_set, R"({"metadata":{"name":"a"},"spec":"x"})"),
            "obj.spec: expected object, got string");
  EXPECT_EQ(error_of(decode_service, R"({"metadata":{"namespace":"a"}})"), "obj.metadata.name: missing");
  EXPECT_EQ(error_of(decode_service, R"([])"), "obj: expected object, got array");
}

}  // namespace
}  // namespace workload_decode_test
}  // namespace kext
