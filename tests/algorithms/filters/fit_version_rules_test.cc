// NodeResourcesFit end to end at each minor that changed what a pod requests or what Fit checks: the
// pod, the node's pods (their PodInfo made at that minor) and the verdict, at the minor and the one
// before (algorithms/pod_requests.h, algorithms/filters/fit_version_rules.h).
#include "algorithms/filters/fit_version_rules.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "algorithms/filters/pod_fits_resources.h"
#include "tests/support/test_builders.h"

namespace kext {
namespace fit_version_rules_test {
namespace {

using testing::GiB;
using testing::make_container;
using testing::make_node;
using testing::make_pod;
using testing::make_pod_with;
using testing::sidecar_container;

// A node whose pods' requests are computed as `minor` counts them.
NodeInfo node_at(Node node, std::vector<Pod> pods, int minor) {
  NodeInfo info;
  info.node = std::make_shared<const Node>(std::move(node));
  for (auto& p : pods) {
    p.node_name = info.node->name;
    info.add_pod(std::make_shared<const PodInfo>(
        make_pod_info(std::make_shared<const Pod>(std::move(p)), KubeVersion{minor})));
  }
  return info;
}

FilterStatus fit_at(const Pod& pod, const NodeInfo& node, int minor, const ClusterView* cluster = nullptr) {
  const auto fit = make_node_resources_fit_filter({}, "NodeResourcesFit", KubeVersion{minor});
  return fit->filter(PodContext(pod, cluster, KubeVersion{minor}), node);
}

struct Verdict {
  FilterCode code;
  std::vector<std::string> reasons;
};

void expect(const FilterStatus& got, const Verdict& want) {
  EXPECT_EQ(got.code, want.code);
  EXPECT_EQ(got.reasons, want.reasons);
}

const Verdict kFits{FilterCode::kSuccess, {}};
const Verdict kNoCpu{FilterCode::kUnschedulable, {"Insufficient cpu"}};

// A pod of 500m with a 200m sidecar and a 1000m init container after it, on a node with 1100m free:
// 1.27 a plain init container (1000m fits), 1.28 rejected (the gate is off), 1.29 the sidecar rules
// (1200m does not fit).
TEST(FitAtMinor, Sidecars) {
  Pod pod = make_pod_with("p", {make_container(500, GiB)});
  pod.init_containers = {sidecar_container(200, 0, "s"), make_container(1000, 0, "i")};
  const NodeInfo node = node_at(make_node("n", 2000, 4 * GiB), {make_pod("busy", 900, 0)}, 29);
  expect(fit_at(pod, node, 27), kFits);
  expect(fit_at(pod, node, 28), {FilterCode::kUnresolvable, {std::string(kSidecarsDisabledReason)}});
  expect(fit_at(pod, node, 29), kNoCpu);
  // Without a sidecar 1.28 is like any minor.
  expect(fit_at(make_pod("q", 1000, GiB), node, 28), kFits);
}

// A node of 1000m holding a pod whose spec asks 500m but whose container was resized to 800m: 1.32
// counts 500m (a 400m pod fits), 1.33 the allocated 800m (it does not).
TEST(FitAtMinor, AllocatedResources) {
  Pod resized = make_pod("resized", 500, GiB);
  ContainerResourceStatus st;
  st.requests.milli_cpu = 800;
  st.allocated.milli_cpu = 800;
  st.names_cpu = true;
  resized.containers[0].status = st;
  const Pod pod = make_pod("p", 400, GiB);
  expect(fit_at(pod, node_at(make_node("n", 1000, 4 * GiB), {resized}, 32), 32), kFits);
  expect(fit_at(pod, node_at(make_node("n", 1000, 4 * GiB), {resized}, 33), 33), kNoCpu);
}

// Two 200m containers under a pod-level 300m request, on a node with 350m free: 1.33 sums the
// containers (400m), 1.34 takes the pod level (300m).
TEST(FitAtMinor, PodLevelResources) {
  Pod pod = make_pod_with("p", {make_container(200, 0, "a"), make_container(200, 0, "b")});
  PodLevelRequests level;
  level.amounts.milli_cpu = 300;
  level.names_cpu = true;
  pod.pod_level_requests = level;
  for (int minor : {33, 34}) {
    SCOPED_TRACE(minor);
    const NodeInfo node = node_at(make_node("n", 1000, 4 * GiB), {make_pod("busy", 650, 0)}, minor);
    expect(fit_at(pod, node, minor), minor >= 34 ? kFits : kNoCpu);
  }
}

// A pod asking an extended resource the node does not list: from 1.36 left to DynamicResources when a
// DeviceClass backs the name and the node lists none of it (or 0); a node that lists some is checked
// as before, and so is a name no class backs.
TEST(FitAtMinor, DraExtendedResources) {
  Pod pod = make_pod("p", 100, GiB);
  pod.containers[0].requests.set_scalar("example.com/gpu", 1);
  const std::set<std::string, std::less<>> backed = {"example.com/gpu",
                                                     "deviceclass.resource.kubernetes.io/gpu-class"};
  ClusterView view;
  view.dra_extended_resources = &backed;
  const Verdict no_gpu{FilterCode::kUnresolvable, {"Insufficient example.com/gpu"}};

  const NodeInfo unlisted = node_at(make_node("n", 1000, 4 * GiB), {}, 36);
  expect(fit_at(pod, unlisted, 35, &view), no_gpu);
  expect(fit_at(pod, unlisted, 36, &view), kFits);
  expect(fit_at(pod, unlisted, 36), no_gpu);  // no cluster view: no class known

  Node zero = make_node("z", 1000, 4 * GiB);
  zero.allocatable.set_scalar("example.com/gpu", 0);
  expect(fit_at(pod, node_at(zero, {}, 36), 36, &view), kFits);

  Node listed = make_node("l", 1000, 4 * GiB);
  listed.allocatable.set_scalar("example.com/gpu", 1);
  Pod holder = make_pod("holder", 100, GiB);
  holder.containers[0].requests.set_scalar("example.com/gpu", 1);
  expect(fit_at(pod, node_at(listed, {holder}, 36), 36, &view),
         {FilterCode::kUnschedulable, {"Insufficient example.com/gpu"}});

  Pod other = make_pod("o", 100, GiB);
  other.containers[0].requests.set_scalar("example.com/fpga", 1);
  expect(fit_at(other, unlisted, 36, &view), {FilterCode::kUnresolvable, {"Insufficient example.com/fpga"}});
}

// Callers build a cluster view only for plugins that read one: Fit does from 1.36.
TEST(FitAtMinor, ReadsTheClusterFromDra) {
  EXPECT_FALSE(make_node_resources_fit_filter({}, {}, KubeVersion{35})->reads_cluster());
  EXPECT_TRUE(make_node_resources_fit_filter({}, {}, KubeVersion{36})->reads_cluster());
}

TEST(FitVersionRules, Table) {
  Pod sidecar = make_pod("p", 100, 0);
  sidecar.init_containers = {sidecar_container(10, 0)};
  EXPECT_FALSE(fit_rejects_sidecars(KubeVersion{27}, sidecar));
  EXPECT_TRUE(fit_rejects_sidecars(KubeVersion{28}, sidecar));
  EXPECT_FALSE(fit_rejects_sidecars(KubeVersion{29}, sidecar));
  EXPECT_FALSE(fit_rejects_sidecars(KubeVersion{28}, make_pod("q", 100, 0)));

  const std::set<std::string, std::less<>> backed = {"example.com/gpu"};
  ClusterView view;
  view.dra_extended_resources = &backed;
  EXPECT_TRUE(fit_delegates_to_dra(KubeVersion{36}, &view, "example.com/gpu", 0));
  EXPECT_FALSE(fit_delegates_to_dra(KubeVersion{35}, &view, "example.com/gpu", 0));
  EXPECT_FALSE(fit_delegates_to_dra(KubeVersion{36}, &view, "example.com/gpu", 2));
  EXPECT_FALSE(fit_delegates_to_dra(KubeVersion{36}, &view, "example.com/fpga", 0));
  EXPECT_FALSE(fit_delegates_to_dra(KubeVersion{36}, nullptr, "example.com/gpu", 0));
}

}  // namespace
}  // namespace fit_version_rules_test
}  // namespace kext
