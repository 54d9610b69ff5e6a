// extender-sim with PodTopologySpread and InterPodAffinity (kube-scheduler's default profile, what it
// runs without --config): workload pods from Deployments and StatefulSets carry their controller and
// template labels, so the system default spreading and the template's affinity apply as in a cluster.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "sim/inputs.h"
#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::simtool {
namespace topology_run_test {
namespace {

using kext::sim::testing::SimFiles;

std::string zoned_node(const std::string& name, const std::string& zone) {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" +
         name + R"(","topology.kubernetes.io/zone":")" + zone +
         R"("}},"status":{"allocatable":{"cpu":"8","memory":"32Gi","pods":"110"}}})";
}

// `kind` with `replicas` pods of app=web; `spec` adds to the template's spec.
std::string web(const std::string& kind, int replicas, const std::string& spec = "") {
  return R"({"kind":")" + kind + R"(","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":)" +
         std::to_string(replicas) +
         R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{)" +
         spec + R"("containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]}}}})";
}

// Node -> how many of the run's pods it got.
std::map<std::string, int> per_node(const SimResult& r) {
  std::map<std::string, int> out;
  for (const auto& [pod, node] : r.placements)
    if (!node.empty()) ++out[node];
  return out;
}

TEST(SimTopology, TemplateAntiAffinityPlacesOneReplicaPerNode) {
  SimFiles f("topology-anti");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", R"({"kind":"List","items":[)" + zoned_node("n1", "a") + "," +
                                               zoned_node("n2", "a") + "," + zoned_node("n3", "b") + "]}");
  c.workload_file = f.write(
      "workload.json",
      "[" +
          web("StatefulSet", 4,
              R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
              R"({"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}},)") +
          "]");
  const SimResult r = run_sim(c, nullptr);
  EXPECT_EQ(per_node(r), (std::map<std::string, int>{{"n1", 1}, {"n2", 1}, {"n3", 1}}));
  EXPECT_EQ(r.pending_by_reason,
            (std::map<std::string, size_t>{{"node(s) didn't match pod anti-affinity rules", 1}}));
}

TEST(SimTopology, TemplateSpreadConstraintBalancesZones) {
  SimFiles f("topology-spread");
  SimCommand c;
  // Zone a has two nodes, zone b one: spreading by zone puts as many pods on n3 as on n1 and n2 together.
  c.cluster_file = f.write("cluster.json", R"({"kind":"List","items":[)" + zoned_node("n1", "a") + "," +
                                               zoned_node("n2", "a") + "," + zoned_node("n3", "b") + "]}");
  c.workload_file = f.write(
      "workload.json",
      "[" +
          web("Deployment", 6,
              R"("topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",)"
              R"("whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"web"}}}],)") +
          "]");
  const auto placed = per_node(run_sim(c, nullptr));
  EXPECT_EQ(placed.at("n3"), 3);
  EXPECT_EQ(placed.at("n1") + placed.at("n2"), 3);
}

TEST(SimTopology, DeploymentPodsAreSpreadByDefault) {
  SimFiles f("topology-default");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", R"({"kind":"List","items":[)" + zoned_node("n1", "a") + "," +
                                               zoned_node("n2", "b") + "]}");
  c.workload_file = f.write("workload.json", "[" + web("Deployment", 10) + "]");
  // A scheduler profile where only PodTopologySpread scores: every other plugin ties, so the balance
  // is the system default constraints' doing (the ReplicaSet's selector found through the pods' owner).
  c.config_file =
      f.write("config.json",
              R"({"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration",
    "profiles":[{"plugins":{"score":{"disabled":[{"name":"*"}],"enabled":[{"name":"PodTopologySpread"}]}}}]})");
  EXPECT_EQ(per_node(run_sim(c, nullptr)), (std::map<std::string, int>{{"n1", 5}, {"n2", 5}}));
}

TEST(SimTopology, WorkloadControllersBecomeOwnersAndSelectors) {
  const WorkloadInput in = decode_workload(
      "[" + web("Deployment", 2) + "," + web("StatefulSet", 1) + "," +
      R"({"kind":"Service","metadata":{"name":"web","namespace":"shop"},"spec":{"selector":{"app":"web"}}},)"
      R"({"kind":"Service","metadata":{"name":"headless"},"spec":{}}])");
  ASSERT_EQ(in.pods.size(), 3u);
  const Pod& deployed = in.pods[0].pod;
  EXPECT_EQ(deployed.controller_kind, "ReplicaSet");
  const std::string hash = deployed.labels.at("pod-template-hash");
  EXPECT_EQ(hash.size(), 10u);
  EXPECT_EQ(deployed.controller_name, "web-" + hash);
  EXPECT_EQ(in.pods[1].pod.labels.at("pod-template-hash"), hash) << "one template, one hash";
  EXPECT_EQ(in.pods[2].pod.controller_kind, "StatefulSet");
  EXPECT_EQ(in.pods[2].pod.controller_name, "web");
  ASSERT_EQ(in.replica_sets.size(), 1u);
  EXPECT_EQ(in.replica_sets[0].name, "web-" + hash);
  EXPECT_EQ(in.replica_sets[0].namespace_, "shop");
  EXPECT_EQ(in.replica_sets[0].selector.match_labels, (Labels{{"app", "web"}, {"pod-template-hash", hash}}));
  ASSERT_EQ(in.stateful_sets.size(), 1u);
  EXPECT_EQ(in.stateful_sets[0].selector.match_labels, (Labels{{"app", "web"}}));
  ASSERT_EQ(in.services.size(), 1u) << "a Service without a selector selects no pod";
  EXPECT_EQ(in.services[0].namespace_, "shop");
}

}  // namespace
}  // namespace topology_run_test
}  // namespace kext::simtool
