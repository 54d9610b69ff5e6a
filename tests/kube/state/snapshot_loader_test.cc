#include "kube/state/snapshot_loader.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <set>

#include "json/json.h"
#include "kube/state/cluster_view.h"
#include "tests/support/temp_dir.h"

namespace kext {
namespace snapshot_loader_test {
namespace {

TEST(SnapshotLoader, FixtureClusterLoadsNodesPodsAndPdbs) {
  auto s = load_snapshot_files(
      {std::string(KEXT_SOURCE_DIR) + "/tests/fixtures/kube-scheduler-1.26/cluster.json"});
  EXPECT_EQ(s->node_object_count(), 5u);
  EXPECT_EQ(s->pods_by_uid.size(), 9u);
  ASSERT_EQ(s->pdbs->size(), 1u);
  EXPECT_EQ((*s->pdbs)[0].name, "low-pdb");
  ASSERT_TRUE((*s->pdbs)[0].selector.has_value());
  EXPECT_EQ((*s->pdbs)[0].selector->match_labels.at("pdb"), "protected");
  const NodeInfo* a = s->find_node("node-a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->pods.size(), 2u);
  EXPECT_EQ(a->requested.milli_cpu, 2000);
  EXPECT_EQ(a->requested.memory, 512LL << 20);
  EXPECT_EQ(a->node->allocatable.pods, 10);
  const NodeInfo* e = s->find_node("node-eeeee");
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->node->taints.size(), 1u);
  EXPECT_EQ(e->node->taints[0].effect, "NoSchedule");
}

// `kubectl get nodes,pods,poddisruptionbudgets,namespaces,services,replicationcontrollers,replicasets,
// statefulsets -A -o json`: the objects that select pods and the namespaces' labels load too, from a
// List with kinds and from typed Lists whose items omit theirs.
TEST(SnapshotLoader, NamespacesServicesAndControllersLoad) {
  ClusterStateBuilder b;
  load_snapshot_json(R"({"kind":"List","items":[
    {"kind":"Namespace","apiVersion":"v1","metadata":{"name":"shop","labels":{"team":"a"}}},
    {"kind":"Service","apiVersion":"v1","metadata":{"name":"web","namespace":"shop"},"spec":{"selector":{"app":"web"}}},
    {"kind":"Service","apiVersion":"v1","metadata":{"name":"kubernetes","namespace":"default"},"spec":{}},
    {"kind":"ReplicationController","apiVersion":"v1","metadata":{"name":"old","namespace":"shop"},"spec":{"selector":{"app":"old"}}},
    {"kind":"ReplicationController","apiVersion":"v1","metadata":{"name":"none","namespace":"shop"},"spec":{"selector":{}}},
    {"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"web-1","namespace":"shop"},
     "spec":{"selector":{"matchExpressions":[{"key":"app","operator":"In","values":["web"]}]}}},
    {"kind":"StatefulSetList","items":[{"metadata":{"name":"db","namespace":"shop"},"spec":{"selector":{"matchLabels":{"app":"db"}}}}]},
    {"kind":"NamespaceList","items":[{"metadata":{"name":"default"}}]}]})",
                     b);
  auto s = std::move(b).build();
  EXPECT_EQ(*s->namespace_labels,
            (std::map<std::string, Labels, std::less<>>{{"default", {}}, {"shop", {{"team", "a"}}}}));
  ASSERT_EQ(s->services->size(), 1u) << "a Service without selector selects nothing";
  EXPECT_EQ((*s->services)[0].name, "web");
  EXPECT_EQ((*s->services)[0].selector.match_labels, (Labels{{"app", "web"}}));
  ASSERT_EQ(s->replication_controllers->size(), 1u);
  EXPECT_EQ((*s->replication_controllers)[0].name, "old");
  ASSERT_EQ(s->replica_sets->size(), 1u);
  EXPECT_EQ((*s->replica_sets)[0].selector.match_expressions.size(), 1u);
  ASSERT_EQ(s->stateful_sets->size(), 1u);
  EXPECT_EQ((*s->stateful_sets)[0].namespace_, "shop");
  EXPECT_EQ((*s->stateful_sets)[0].selector.match_labels, (Labels{{"app", "db"}}));

  ClusterStateBuilder bad;
  try {
    load_snapshot_json(
        R"({"kind":"List","items":[{"kind":"Service","metadata":{"name":"a"},"spec":{"selector":{"app":1}}}]})",
        bad);
    ADD_FAILURE() << "no error";
  } catch (const DecodeError& e) {
    EXPECT_EQ(std::string(e.what()), "items[0].spec.selector.app: expected string, got number");
  }
}

// `kubectl get deviceclasses -o json` beside the rest: the extended resources they back reach the
// cluster view NodeResourcesFit reads (1.36), and the pods' requests follow the minor the files load at.
TEST(SnapshotLoader, DeviceClassesAndTheMinorOfThePodsRequests) {
  testing::TempDir dir("snapshot-device-classes");
  const std::string path = (dir.path() / "cluster.json").string();
  testing::spit(path, R"({"kind":"List","items":[
      {"kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4","pods":"10"}}},
      {"kind":"Pod","metadata":{"name":"p","uid":"u"},
       "spec":{"nodeName":"n1","containers":[{"name":"a","resources":{"requests":{"cpu":"100m"}}},
                                             {"name":"b","resources":{"requests":{"cpu":"100m"}}}],
               "resources":{"requests":{"cpu":"1"}}}},
      {"kind":"DeviceClassList","items":[
        {"metadata":{"name":"gpu"},"spec":{"extendedResourceName":"example.com/gpu"}},
        {"metadata":{"name":"fpga"}}]}]})");
  for (int minor : {33, 34}) {
    SCOPED_TRACE(minor);
    const auto s = load_snapshot_files({path}, KubeVersion{minor});
    EXPECT_EQ(s->find_node("n1")->requested.milli_cpu, minor >= 34 ? 1000 : 200);
    EXPECT_EQ(*s->dra_extended_resources, (std::set<std::string, std::less<>>{
                                              "deviceclass.resource.kubernetes.io/fpga",
                                              "deviceclass.resource.kubernetes.io/gpu", "example.com/gpu"}));
    const auto view = cluster_view_of(s);
    ASSERT_TRUE(view);
    EXPECT_EQ(view->view.dra_extended_resources, s->dra_extended_resources.get());
  }
}

TEST(SnapshotLoader, TerminalPodsDoNotCountAndSingleObjectsLoad) {
  ClusterStateBuilder b;
  load_snapshot_json(R"({"kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"cpu":"1"}}})", b);
  load_snapshot_json(R"({"kind":"Pod","metadata":{"name":"a","uid":"a"},"spec":{"nodeName":"n","containers":[
      {"name":"c","resources":{"requests":{"cpu":"100m"}}}]},"status":{"phase":"Running"}})",
                     b);
  load_snapshot_json(R"({"kind":"Pod","metadata":{"name":"b","uid":"b"},"spec":{"nodeName":"n","containers":[
      {"name":"c","resources":{"requests":{"cpu":"500m"}}}]},"status":{"phase":"Failed"}})",
                     b);
  load_snapshot_json(R"({"kind":"PodList","items":[{"metadata":{"name":"c","uid":"c"},"spec":{"nodeName":"n",
      "containers":[{"name":"c","resources":{"requests":{"cpu":"200m"}}}]}}]})",
                     b);
  auto s = std::move(b).build();
  EXPECT_EQ(s->find_node("n")->requested.milli_cpu, 300);
  EXPECT_EQ(s->find_node("n")->nonzero_requested.memory, 2 * (200LL << 20));
  EXPECT_EQ(s->find_pod("b"), nullptr);
}

// Each List inside a List recursed: Lists nested 3000 deep overflowed the stack (ASan in the snapshot
// fuzz harness; tests/fuzz/regressions/snapshot/).
TEST(SnapshotLoader, DeeplyNestedListsAreAnErrorNotAStackOverflow) {
  auto nested = [](size_t levels) {
    std::string open, close;
    for (size_t i = 0; i < levels; ++i) {
      open += R"({"kind":"List","items":[)";
      close += "]}";
    }
    return open + R"({"kind":"Node","metadata":{"name":"n"}})" + close;
  };
  ClusterStateBuilder b;
  load_snapshot_json(nested(8), b);
  EXPECT_EQ(std::move(b).build()->node_object_count(), 1u);
  ClusterStateBuilder deep;
  EXPECT_THROW(load_snapshot_json(nested(9), deep), DecodeError);
  EXPECT_THROW(load_snapshot_json(nested(300000), deep), DecodeError);
}

TEST(SnapshotLoader, ErrorsNameTheFileAndItem) {
  ClusterStateBuilder b;
  try {
    load_snapshot_json(
        R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"cpu":"x"}}}]})",
        b);
    FAIL() << "expected an error";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("items[0].status.allocatable.cpu"), std::string::npos) << e.what();
  }
  try {
    load_snapshot_files({"/nonexistent/file.json"});
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/file.json"), std::string::npos);
  }
}

// --snapshot: two 8Ei pods on one node (8Ei is capped at int64 max by the parser) fill it; their sum
// wrapped to -2 bytes and the node looked empty.
TEST(SnapshotLoader, EightExbibytePodsSaturateTheNodeSum) {
  ClusterStateBuilder b;
  load_snapshot_json(R"({"kind":"List","items":[
      {"kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"110"}}},
      {"kind":"Pod","metadata":{"name":"a","uid":"a"},"spec":{"nodeName":"n","containers":[
        {"name":"c","resources":{"requests":{"cpu":"100m","memory":"8Ei"}}}]}},
      {"kind":"Pod","metadata":{"name":"b","uid":"b"},"spec":{"nodeName":"n","containers":[
        {"name":"c","resources":{"requests":{"cpu":"100m","memory":"8Ei"}}}]}}]})",
                     b);
  auto s = std::move(b).build();
  EXPECT_EQ(s->find_node("n")->requested.memory, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(s->find_node("n")->nonzero_requested.memory, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(s->find_node("n")->requested.milli_cpu, 200);
}

// --snapshot takes what `kubectl get nodes,pods -A -o yaml` prints as well as its JSON: it used to fail
// with "invalid JSON at offset 0".
TEST(SnapshotLoader, YamlSnapshotsLoadAsTheirJsonDoes) {
  const std::string yaml = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n
  status:
    allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: a, uid: a}
  spec:
    nodeName: n
    containers:
    - name: c
      resources:
        requests: {cpu: 100m, memory: 1Gi}
metadata:
  resourceVersion: ""
)";
  testing::TempDir dir("snapshot-yaml");
  auto write = [&](const std::string& name, const std::string& text) {
    testing::spit(dir.path() / name, text);
    return (dir.path() / name).string();
  };
  // A second document (`---`) adds to the first, as kubectl apply reads a stream.
  const std::string file =
      write("cluster.yaml", yaml + "---\nkind: Pod\nmetadata: {name: b, uid: b}\nspec: {nodeName: n}\n");
  auto s = load_snapshot_files({file});
  ASSERT_NE(s->find_node("n"), nullptr);
  EXPECT_EQ(s->find_node("n")->pods.size(), 2u);
  EXPECT_EQ(s->find_node("n")->requested.milli_cpu, 100);
  EXPECT_EQ(s->find_node("n")->requested.memory, 1LL << 30);

  // Bad YAML: the file, the line and the column.
  const std::string bad = write("bad.yaml", "kind: List\nitems: [\n");
  try {
    load_snapshot_files({bad});
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--snapshot " + bad + ": line "), std::string::npos) << e.what();
  }
  // And JSON is still JSON, with its own errors.
  const std::string bad_json = write("bad.json", "{\"kind\": ");
  try {
    load_snapshot_files({bad_json});
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("invalid JSON at offset"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace snapshot_loader_test
}  // namespace kext
