// extender-sim --kubeconfig (sim/live_input.h) against the in-repo API server: the cluster read
// once through the extender's own list gives the same simulation as its `kubectl get -o json` file.
#include "sim/live_input.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/run.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/temp_dir.h"

namespace kext::simtool {
namespace live_input_test {
namespace {

using kext::testing::FakeApiServer;
using kext::testing::TempDir;

std::string node(const std::string& name) {
  return R"({"metadata":{"name":")" + name +
         R"("},"status":{"allocatable":{"cpu":"1","memory":"4Gi","pods":"110"}}})";
}

// Without TypeMeta, as the API server's list items are (kubectl adds it to what it prints).
std::string pod(const std::string& name, const std::string& node_name, const std::string& cpu, int priority,
                const std::string& start = "") {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"batch","uid":"u-)" + name +
         R"(","labels":{"app":")" + name.substr(0, 1) + R"("}},"spec":{)" +
         (node_name.empty() ? "" : R"("nodeName":")" + node_name + R"(",)") + R"("priority":)" +
         std::to_string(priority) +
         R"(,"terminationGracePeriodSeconds":10,"containers":[{"name":"c","resources":{"requests":{"cpu":")" +
         cpu + R"("}}}]},"status":{"phase":")" + (node_name.empty() ? "Pending" : "Running") + "\"" +
         (start.empty() ? "" : R"(,"startTime":")" + start + "\"") + "}}";
}

std::string pdb(const std::string& name, const std::string& app) {
  return R"({"metadata":{"name":")" + name +
         R"(","namespace":"batch"},"spec":{"selector":{"matchLabels":{"app":")" + app +
         R"("}}},"status":{"disruptionsAllowed":0}})";
}

std::string with_kind(const std::string& kind, const std::string& object) {
  return R"({"kind":")" + kind + R"(",)" + object.substr(1);
}

// Three full 1-CPU nodes (n2's pods the youngest, n1's under a PDB), a priority-1000 pod that must
// preempt and a small one that waits for room.
struct Cluster {
  std::vector<std::pair<std::string, std::string>> objects = {
      {"nodes", node("n1")},
      {"nodes", node("n2")},
      {"nodes", node("n3")},
      {"pods", pod("a1", "n1", "500m", 0, "2026-11-24T10:00:00Z")},
      {"pods", pod("a2", "n1", "500m", 0, "2026-11-24T10:00:00Z")},
      {"pods", pod("b1", "n2", "500m", 0, "2026-11-24T10:30:00Z")},
      {"pods", pod("b2", "n2", "500m", 0, "2026-11-24T10:30:00Z")},
      {"pods", pod("c1", "n3", "500m", 0, "2026-11-24T10:10:00Z")},
      {"pods", pod("c2", "n3", "500m", 0, "2026-11-24T10:10:00Z")},
      {"pods", pod("vip", "", "800m", 1000)},
      {"pods", pod("small", "", "300m", 0)},
      {"poddisruptionbudgets", pdb("a-pdb", "a")},
      {"namespaces", R"({"metadata":{"name":"batch","labels":{"team":"t"}}})"},
      {"services", R"({"metadata":{"name":"a","namespace":"batch"},"spec":{"selector":{"app":"a"}}})"},
      {"statefulsets",
       R"({"metadata":{"name":"c","namespace":"batch"},"spec":{"selector":{"matchLabels":{"app":"c"}}}})"},
  };
  void put_into(FakeApiServer& api) const {
    for (const auto& [resource, json] : objects) api.put(resource, json);
  }
  // What `kubectl get nodes,pods,pdb -A -o json` prints of the server's objects, in its list order.
  std::string kubectl_json(const FakeApiServer& api) const {
    std::string items;
    for (const auto& [resource, kind] :
         std::vector<std::pair<std::string, std::string>>{{"nodes", "Node"},
                                                          {"pods", "Pod"},
                                                          {"poddisruptionbudgets", "PodDisruptionBudget"},
                                                          {"namespaces", "Namespace"},
                                                          {"services", "Service"},
                                                          {"statefulsets", "StatefulSet"}}) {
      for (const auto& [key, json] : api.objects(resource))
        items += (items.empty() ? "" : ",") + with_kind(kind, json);
    }
    return R"({"kind":"List","apiVersion":"v1","items":[)" + items + "]}";
  }
};

std::string run_log(const SimCommand& c, SimResult* result = nullptr) {
  std::ostringstream log;
  SimResult r = run_sim(c, &log);
  if (result != nullptr) *result = std::move(r);
  return log.str();
}

TEST(SimLive, TheLiveClusterGivesTheSameRunAsItsSnapshotFile) {
  FakeApiServer api;
  Cluster cluster;
  cluster.put_into(api);
  TempDir dir("sim-live-same");
  SimCommand file;
  file.cluster_file = (dir.path() / "cluster.json").string();
  kext::testing::spit(file.cluster_file, cluster.kubectl_json(api));
  file.max_time_seconds = 3600;
  SimCommand live = file;
  live.cluster_file.clear();
  live.kubeconfig = (dir.path() / "kubeconfig").string();
  kext::testing::spit(live.kubeconfig, api.kubeconfig());

  const uint64_t rv = api.resource_version();
  SimResult from_file, from_live;
  const std::string file_log = run_log(file, &from_file);
  const std::string live_log = run_log(live, &from_live);
  EXPECT_EQ(live_log, file_log);
  // The run is not trivial: vip preempts n2's pods (n1's are under the PDB), binds after their 10 s;
  // small waits, then takes what is left on n2.
  EXPECT_NE(
      live_log.find(
          R"("name":"vip","uid":"u-vip","priority":1000,"attempts":1,"outcome":"preempted","node":"n2")"),
      std::string::npos)
      << live_log;
  EXPECT_EQ(from_live.summary.preemptions, 1u);
  EXPECT_EQ(from_live.summary.scheduled, from_file.summary.scheduled);
  EXPECT_EQ(from_live.use.milli_cpu_requested, from_file.use.milli_cpu_requested);
  EXPECT_EQ(from_live.placements, from_file.placements);
  // Read-only: nothing written, nothing bound.
  EXPECT_EQ(api.resource_version(), rv);
  EXPECT_TRUE(api.bindings().empty());

  // The kubeconfig's certificates inline, and its context named.
  kext::testing::spit(live.kubeconfig, api.kubeconfig(true));
  live.kube_context = "fake";
  EXPECT_EQ(run_log(live), file_log);
}

TEST(SimLive, ListsPageByPage) {
  FakeApiServer api;
  Cluster cluster;
  cluster.put_into(api);
  TempDir dir("sim-live-pages");
  SimCommand live;
  live.kubeconfig = (dir.path() / "kubeconfig").string();
  kext::testing::spit(live.kubeconfig, api.kubeconfig());

  int lists = api.lists_served();
  const ClusterInput whole = read_cluster(live);
  EXPECT_EQ(api.lists_served() - lists, 11)
      << "nodes, pods, PDBs, namespaces, services, replicationcontrollers, replicasets, statefulsets, "
         "podgroups in both APIs, deviceclasses in one page each (no PriorityClasses here: 404)";
  lists = api.lists_served();
  const ClusterInput paged = read_cluster(live, 2);
  EXPECT_EQ(api.lists_served() - lists, 2 + 4 + 1 + 8)
      << "3 nodes, 8 pods, 1 PDB two at a time, then one each";

  for (const ClusterInput* in : {&whole, &paged}) {
    EXPECT_EQ(in->cluster.nodes().size(), 3u);
    EXPECT_EQ(in->cluster.pdbs().size(), 1u);
    EXPECT_EQ(in->namespace_labels.size(), 1u);
    EXPECT_EQ(in->services.size(), 1u);
    EXPECT_EQ(in->stateful_sets.size(), 1u);
    EXPECT_TRUE(in->replica_sets.empty());
    std::set<std::string> running, pending;
    for (const auto& [uid, traits] : in->running) running.insert(uid);
    for (const auto& p : in->pending) pending.insert(p.pod.uid);
    EXPECT_EQ(running, (std::set<std::string>{"u-a1", "u-a2", "u-b1", "u-b2", "u-c1", "u-c2"}));
    EXPECT_EQ(pending, (std::set<std::string>{"u-vip", "u-small"}));
    EXPECT_EQ(in->epoch_unix_seconds, 1795516200) << "b's start, 2026-11-24T10:30:00Z";
  }
}

// Namespaces, Services and the controllers are optional, as PriorityClasses are: a role without them
// (manifests/sim-follow before they were added) still simulates, without them.
TEST(SimLive, ForbiddenSelectorsAndNamespacesAreLeftOut) {
  FakeApiServer api;
  Cluster cluster;
  cluster.put_into(api);
  api.forbid("namespaces");
  api.forbid("services");
  TempDir dir("sim-live-forbidden");
  SimCommand live;
  live.kubeconfig = (dir.path() / "kubeconfig").string();
  kext::testing::spit(live.kubeconfig, api.kubeconfig());
  const ClusterInput in = read_cluster(live);
  EXPECT_EQ(in.cluster.nodes().size(), 3u);
  EXPECT_TRUE(in.namespace_labels.empty());
  EXPECT_TRUE(in.services.empty());
  EXPECT_EQ(in.stateful_sets.size(), 1u);
  // The required ones are not optional.
  api.forbid("pods");
  EXPECT_THROW(read_cluster(live), InputError);
}

void expect_error(const SimCommand& c, const std::string& prefix, const std::string& contains = "") {
  try {
    run_sim(c, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(contains), std::string::npos) << what;
  }
}

TEST(SimLive, ErrorsNameTheKubeconfigAndTheServer) {
  TempDir dir("sim-live-errors");
  SimCommand c;
  c.kubeconfig = (dir.path() / "kubeconfig").string();
  const std::string at = "--kubeconfig " + c.kubeconfig;
  {
    FakeApiServer api;
    Cluster{}.put_into(api);
    kext::testing::spit(c.kubeconfig, api.kubeconfig());
    const std::string where = at + " (server " + api.url() + "): ";

    api.fail_requests(1, 403);
    expect_error(c, where + "list /api/v1/nodes: HTTP 403");

    // Without the client certificate the server asks for, the TLS handshake fails.
    std::string no_cert = api.kubeconfig();
    no_cert = no_cert.substr(0, no_cert.find("users:")) + "users:\n- name: tester\n  user: {}\n";
    kext::testing::spit(c.kubeconfig, no_cert);
    expect_error(c, where + "list /api/v1/nodes: ");

    // A certificate that does not parse.
    std::string bad_pem = api.kubeconfig(true);
    const size_t data = bad_pem.find("client-certificate-data: ");
    ASSERT_NE(data, std::string::npos);
    bad_pem = bad_pem.substr(0, data) + "client-certificate-data: bm90IGEgY2VydA==\n" +
              bad_pem.substr(bad_pem.find('\n', data) + 1);
    kext::testing::spit(c.kubeconfig, bad_pem);
    expect_error(c, at);

    kext::testing::spit(c.kubeconfig, api.kubeconfig());
    c.kube_context = "other";  // its cluster "elsewhere" is not in the file
    expect_error(c, at + ": context \"other\"");
    c.kube_context.clear();
  }
  {
    FakeApiServer::Options o;
    o.token = "secret";
    FakeApiServer api(o);
    std::string wrong = api.kubeconfig();
    wrong.replace(wrong.find("token: secret"), 13, "token: wrong!");
    kext::testing::spit(c.kubeconfig, wrong);
    expect_error(c, at + " (server " + api.url() + "): list /api/v1/nodes: HTTP 401");
  }
  // The server gone: nothing listens on its port any more.
  expect_error(c, at + " (server https://127.0.0.1:", "list /api/v1/nodes: ");

  c.kubeconfig = (dir.path() / "missing").string();
  expect_error(c, "--kubeconfig " + c.kubeconfig + ": ");
}

}  // namespace
}  // namespace live_input_test
}  // namespace kext::simtool
