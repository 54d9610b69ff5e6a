#include "algorithms/filters/pod_fits_resources.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_builders.h"

namespace kext {
namespace pod_fits_resources_test {
namespace {

using testing::GiB;
using testing::k8Ei;
using testing::make_best_effort_pod;
using testing::make_container;
using testing::make_node;
using testing::make_pod;
using testing::make_pod_with;
using testing::MiB;
using testing::node_info;

Pod with_scalar(Pod p, const std::string& name, int64_t v) {
  p.containers.at(0).requests.set_scalar(name, v);
  return p;
}

Pod with_ephemeral(Pod p, int64_t v) {
  p.containers.at(0).requests.ephemeral_storage = v;
  return p;
}

// A node at its pod limit: 4000m / 8Gi / 110 pods, with 3500m / 4Gi requested by 110 pods.
NodeInfo example3_node() {
  std::vector<Pod> pods = {make_pod("big", 3500, 4 * GiB)};
  for (int i = 0; i < 109; ++i) pods.push_back(make_best_effort_pod("be-" + std::to_string(i)));
  return node_info(make_node("n", 4000, 8 * GiB, 110), pods);
}

// The same node with a single pod, so only the resources matter.
NodeInfo example3_node_fitting() {
  return node_info(make_node("n", 4000, 8 * GiB, 110), {make_pod("big", 3500, 4 * GiB)});
}

struct Case {
  std::string name;
  Pod pod;
  NodeInfo node;
  FilterCode code;
  std::vector<std::string> reasons;
};

std::vector<Case> cases() {
  Node base = make_node("n", 4000, 8 * GiB, 110);
  base.allocatable.ephemeral_storage = 100 * GiB;
  base.allocatable.set_scalar("example.com/gpu", 4);
  Pod busy = with_ephemeral(with_scalar(make_pod("busy", 3000, 6 * GiB), "example.com/gpu", 3), 90 * GiB);
  NodeInfo busy_node = node_info(base, {busy});

  return {
      {"example 3: every reason is listed",
       make_pod("p", 600, GiB),
       example3_node(),
       FilterCode::kUnschedulable,
       {"Too many pods", "Insufficient cpu"}},
      {"example 3 with 5000m: larger than the node, preemption cannot help",
       make_pod("p", 5000, GiB),
       example3_node(),
       FilterCode::kUnresolvable,
       {"Too many pods", "Insufficient cpu"}},
      {"a full pod count alone is only unschedulable",
       make_pod("p", 100, MiB),
       node_info(make_node("n", 4000, 8 * GiB, 1), {make_best_effort_pod("a")}),
       FilterCode::kUnschedulable,
       {"Too many pods"}},
      {"zero allowed pods",
       make_pod("p", 100, MiB),
       node_info(make_node("n", 4000, 8 * GiB, 0)),
       FilterCode::kUnschedulable,
       {"Too many pods"}},
      {"best-effort pod is only checked for pod count",
       make_best_effort_pod("p"),
       node_info(make_node("n", 1000, GiB, 1), {make_pod("a", 5000, 5 * GiB)}),
       FilterCode::kUnschedulable,
       {"Too many pods"}},
      {"best-effort pod fits an over-committed node",
       make_best_effort_pod("p"),
       node_info(make_node("n", 1000, GiB), {make_pod("a", 5000, 5 * GiB)}),
       FilterCode::kSuccess,
       {}},
      // FIT-new's > 0 guard (PRED-1.17 would report Insufficient cpu here).
      {"memory-only pod ignores over-committed cpu",
       make_pod("p", 0, MiB),
       node_info(make_node("n", 1000, GiB), {make_pod("a", 5000, 100 * MiB)}),
       FilterCode::kSuccess,
       {}},
      {"exact fit", make_pod("p", 500, 4 * GiB), example3_node_fitting(), FilterCode::kSuccess, {}},
      {"one milli over",
       make_pod("p", 501, GiB),
       example3_node_fitting(),
       FilterCode::kUnschedulable,
       {"Insufficient cpu"}},
      {"one byte over",
       make_pod("p", 1, 4 * GiB + 1),
       example3_node_fitting(),
       FilterCode::kUnschedulable,
       {"Insufficient memory"}},
      {"memory larger than allocatable is unresolvable",
       make_pod("p", 100, 9 * GiB),
       node_info(make_node("n", 4000, 8 * GiB)),
       FilterCode::kUnresolvable,
       {"Insufficient memory"}},
      {"all resources, in Kubernetes' order",
       with_ephemeral(with_scalar(make_pod("p", 1500, 3 * GiB), "example.com/gpu", 2), 20 * GiB),
       busy_node,
       FilterCode::kUnschedulable,
       {"Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
        "Insufficient example.com/gpu"}},
      {"ephemeral storage only",
       with_ephemeral(make_pod("p", 100, MiB), 11 * GiB),
       busy_node,
       FilterCode::kUnschedulable,
       {"Insufficient ephemeral-storage"}},
      {"scalar that fits",
       with_scalar(make_pod("p", 100, MiB), "example.com/gpu", 1),
       busy_node,
       FilterCode::kSuccess,
       {}},
      {"scalar the node does not have",
       with_scalar(make_pod("p", 100, MiB), "example.com/fpga", 1),
       busy_node,
       FilterCode::kUnresolvable,
       {"Insufficient example.com/fpga"}},
      {"scalar over allocatable",
       with_scalar(make_pod("p", 100, MiB), "example.com/gpu", 5),
       busy_node,
       FilterCode::kUnresolvable,
       {"Insufficient example.com/gpu"}},
      {"zero scalar request is skipped",
       with_scalar(make_pod("p", 100, MiB), "example.com/fpga", 0),
       busy_node,
       FilterCode::kSuccess,
       {}},
      {"only a zero scalar: requests nothing",
       with_scalar(make_best_effort_pod("p"), "example.com/fpga", 0),
       busy_node,
       FilterCode::kSuccess,
       {}},
      {"scalars sorted by name",
       with_scalar(with_scalar(make_pod("p", 100, MiB), "example.com/zz", 1), "example.com/aa", 1),
       busy_node,
       FilterCode::kUnresolvable,
       {"Insufficient example.com/aa", "Insufficient example.com/zz"}},
      {"unresolvable and too many pods together",
       make_pod("p", 100, 9 * GiB),
       node_info(make_node("n", 4000, 8 * GiB, 1), {make_best_effort_pod("a")}),
       FilterCode::kUnresolvable,
       {"Too many pods", "Insufficient memory"}},
      // Saturation: 8Ei + 8Ei wrapped to -2, which the > 0 guard then waved through.
      {"two 8Ei containers do not fit a small node",
       make_pod_with("p", {make_container(100, k8Ei, "a"), make_container(100, k8Ei, "b")}),
       node_info(make_node("n", 4000, 8 * GiB)),
       FilterCode::kUnresolvable,
       {"Insufficient memory"}},
      {"a node holding two 8Ei pods is full",
       make_pod("p", 100, GiB),
       node_info(make_node("n", 4000, 8 * GiB), {make_pod("a", 100, k8Ei), make_pod("b", 100, k8Ei)}),
       FilterCode::kUnschedulable,
       {"Insufficient memory"}},
      {"a node holding two 8Ei scalar pods is full",
       with_scalar(make_pod("p", 100, MiB), "example.com/gpu", 1),
       node_info(base, {with_scalar(make_pod("a", 100, MiB), "example.com/gpu", k8Ei),
                        with_scalar(make_pod("b", 100, MiB), "example.com/gpu", k8Ei)}),
       FilterCode::kUnschedulable,
       {"Insufficient example.com/gpu"}},
      {"8Ei fits an empty 8Ei node exactly",
       make_pod("p", 100, k8Ei),
       node_info(make_node("n", 4000, k8Ei)),
       FilterCode::kSuccess,
       {}},
      {"8Ei does not fit an 8Ei node holding one byte",
       make_pod("p", 100, k8Ei),
       node_info(make_node("n", 4000, k8Ei), {make_pod("a", 100, 1)}),
       FilterCode::kUnschedulable,
       {"Insufficient memory"}},
  };
}

TEST(PodFitsResources, Name) { EXPECT_EQ(make_pod_fits_resources_filter()->name(), "PodFitsResources"); }

TEST(PodFitsResources, Table) {
  auto filter = make_pod_fits_resources_filter();
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    PodContext ctx(c.pod);
    FilterStatus st = filter->filter(ctx, c.node);
    EXPECT_EQ(st.code, c.code);
    EXPECT_EQ(st.reasons, c.reasons);
  }
}

// With alwaysCheckAllPredicates the engine hands each filter the reasons of the filters before it: the
// check adds its own after them and decides pass or fail by what it added, not by what it was given.
TEST(PodFitsResources, AddsToTheReasonsItIsGiven) {
  auto filter = make_pod_fits_resources_filter();
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    PodContext ctx(c.pod);
    std::vector<std::string> reasons = {"an earlier filter's reason"};
    EXPECT_EQ(filter->check(ctx, c.node, reasons), c.code);
    std::vector<std::string> want = {"an earlier filter's reason"};
    want.insert(want.end(), c.reasons.begin(), c.reasons.end());
    EXPECT_EQ(reasons, want);
  }
}

// Filters use actual requests: pods without requests on the node do not take the 100m / 200Mi
// defaults away from the incoming pod.
TEST(PodFitsResources, UsesActualNotNonZeroRequests) {
  std::vector<Pod> pods;
  for (int i = 0; i < 10; ++i) pods.push_back(make_best_effort_pod("be-" + std::to_string(i)));
  NodeInfo node = node_info(make_node("n", 1000, GiB), pods);
  ASSERT_GT(node.nonzero_requested.milli_cpu, 0);
  Pod pod = make_pod("p", 1000, GiB);
  PodContext ctx(pod);
  EXPECT_TRUE(make_pod_fits_resources_filter()->filter(ctx, node).ok());
}

// fit.go by minor, through the catalogue as a profile builds it: each row at the minor a change starts
// and at the one before, so that moving or dropping a version gate fails a row.
TEST(NodeResourcesFitFilter, ByMinor) {
  // cpu over-committed: 5000m requested of 1000m.
  const NodeInfo cpu_overcommitted = node_info(make_node("n", 1000, GiB), {make_pod("a", 5000, 100 * MiB)});
  // Pods ask for ephemeral storage the node reports none of.
  const NodeInfo storage_overcommitted =
      node_info(make_node("n", 4000, 8 * GiB), {with_ephemeral(make_pod("a", 100, MiB), GiB)});
  Node gpu = make_node("n", 4000, 8 * GiB);
  gpu.allocatable.set_scalar("example.com/gpu", 4);
  const NodeInfo gpu_node = node_info(gpu, {with_scalar(make_pod("a", 100, MiB), "example.com/gpu", 3)});
  struct Case {
    std::string name;
    int minor;
    Pod pod;
    NodeInfo node;
    FilterCode code;
    std::vector<std::string> reasons;
  };
  const std::vector<Case> cases = {
      // 1.28 (kubernetes PR #116408): cpu, memory, ephemeral-storage checked only when requested.
      {"memory-only pod, cpu over-committed",
       27,
       make_pod("p", 0, MiB),
       cpu_overcommitted,
       FilterCode::kUnschedulable,
       {"Insufficient cpu"}},
      {"memory-only pod, cpu over-committed",
       28,
       make_pod("p", 0, MiB),
       cpu_overcommitted,
       FilterCode::kSuccess,
       {}},
      {"cpu-only pod, storage over-committed",
       27,
       make_pod("p", 100, 0),
       storage_overcommitted,
       FilterCode::kUnschedulable,
       {"Insufficient ephemeral-storage"}},
      {"cpu-only pod, storage over-committed",
       28,
       make_pod("p", 100, 0),
       storage_overcommitted,
       FilterCode::kSuccess,
       {}},
      // A scalar requested at 0 is an entry: before 1.28 it keeps the three checks.
      {"only a zero scalar, cpu over-committed",
       27,
       with_scalar(make_best_effort_pod("p"), "example.com/gpu", 0),
       cpu_overcommitted,
       FilterCode::kUnschedulable,
       {"Insufficient cpu"}},
      {"only a zero scalar, cpu over-committed",
       28,
       with_scalar(make_best_effort_pod("p"), "example.com/gpu", 0),
       cpu_overcommitted,
       FilterCode::kSuccess,
       {}},
      // No request at all returns early in every minor.
      {"best-effort pod, cpu over-committed",
       26,
       make_best_effort_pod("p"),
       cpu_overcommitted,
       FilterCode::kSuccess,
       {}},
      {"best-effort pod, cpu over-committed",
       36,
       make_best_effort_pod("p"),
       cpu_overcommitted,
       FilterCode::kSuccess,
       {}},
      // 1.34 (kubernetes PR #131345): above the whole allocatable is UnschedulableAndUnresolvable.
      {"cpu above allocatable",
       33,
       make_pod("p", 5000, MiB),
       node_info(make_node("n", 4000, 8 * GiB)),
       FilterCode::kUnschedulable,
       {"Insufficient cpu"}},
      {"cpu above allocatable",
       34,
       make_pod("p", 5000, MiB),
       node_info(make_node("n", 4000, 8 * GiB)),
       FilterCode::kUnresolvable,
       {"Insufficient cpu"}},
      {"scalar above allocatable",
       33,
       with_scalar(make_pod("p", 100, MiB), "example.com/gpu", 5),
       gpu_node,
       FilterCode::kUnschedulable,
       {"Insufficient example.com/gpu"}},
      {"scalar above allocatable",
       34,
       with_scalar(make_pod("p", 100, MiB), "example.com/gpu", 5),
       gpu_node,
       FilterCode::kUnresolvable,
       {"Insufficient example.com/gpu"}},
      // Within allocatable but not free: preemption may help in every minor.
      {"scalar within allocatable, not free",
       34,
       with_scalar(make_pod("p", 100, MiB), "example.com/gpu", 2),
       gpu_node,
       FilterCode::kUnschedulable,
       {"Insufficient example.com/gpu"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name + " at 1." + std::to_string(c.minor));
    PluginArgs args;
    args.version = KubeVersion{c.minor};
    auto filter = make_filter(kNodeResourcesFitPlugin, args);
    ASSERT_NE(filter, nullptr);
    EXPECT_EQ(filter->name(), kNodeResourcesFitPlugin);
    const PodContext ctx(c.pod);
    const FilterStatus st = filter->filter(ctx, c.node);
    EXPECT_EQ(st.code, c.code);
    EXPECT_EQ(st.reasons, c.reasons);
  }
}

// v1helper.IsExtendedResourceName: only these can be ignored by NodeResourcesFitArgs.
TEST(IsExtendedResourceName, Table) {
  EXPECT_TRUE(is_extended_resource_name("example.com/gpu"));
  EXPECT_TRUE(is_extended_resource_name("nvidia.com/gpu"));
  EXPECT_FALSE(is_extended_resource_name("cpu"));
  EXPECT_FALSE(is_extended_resource_name("hugepages-2Mi"));
  EXPECT_FALSE(is_extended_resource_name("kubernetes.io/batch-cpu"));
  EXPECT_FALSE(is_extended_resource_name("node.kubernetes.io/thing"));
  EXPECT_FALSE(is_extended_resource_name("requests.example.com/gpu"));
}

TEST(NodeResourcesFitFilter, IgnoresOnlyExtendedResources) {
  Pod pod = make_pod("p", 100, 0);
  pod.containers[0].requests.set_scalar("example.com/gpu", 1);
  pod.containers[0].requests.set_scalar("hugepages-2Mi", 1);
  const NodeInfo node = node_info(make_node("n", 1000, GiB));
  const PodContext ctx(pod);
  // hugepages is native: "ignoring" it by name changes nothing (fit.go checks IsExtendedResourceName first).
  const auto status =
      make_node_resources_fit_filter({{"example.com/gpu", "hugepages-2Mi"}, {}})->filter(ctx, node);
  EXPECT_EQ(status.reasons, std::vector<std::string>{"Insufficient hugepages-2Mi"});
  EXPECT_EQ(make_node_resources_fit_filter({{}, {"example.com"}})->filter(ctx, node).reasons,
            std::vector<std::string>{"Insufficient hugepages-2Mi"});
}

}  // namespace
}  // namespace pod_fits_resources_test
}  // namespace kext
