#include "algorithms/filters/pod_fits_host.h"

#include <gtest/gtest.h>

#include "tests/support/test_builders.h"

namespace kext {
namespace pod_fits_host_test {
namespace {

using testing::make_node;
using testing::make_pod;
using testing::node_info;

TEST(PodFitsHost, Name) { EXPECT_EQ(make_pod_fits_host_filter()->name(), "PodFitsHost"); }

TEST(PodFitsHost, UnboundPodFitsEveryNode) {
  auto f = make_pod_fits_host_filter();
  Pod p = make_pod("p", 100, 0);
  EXPECT_TRUE(f->filter(PodContext(p), node_info(make_node("n1", 1000, 0))).ok());
}

TEST(PodFitsHost, BoundPodFitsOnlyItsNode) {
  auto f = make_pod_fits_host_filter();
  Pod p = make_pod("p", 100, 0);
  p.node_name = "n1";
  PodContext ctx(p);
  EXPECT_TRUE(f->filter(ctx, node_info(make_node("n1", 1000, 0))).ok());
  FilterStatus s = f->filter(ctx, node_info(make_node("n2", 1000, 0)));
  EXPECT_EQ(s.code, FilterCode::kUnresolvable);
  EXPECT_EQ(s.reasons, std::vector<std::string>{"node(s) didn't match the requested node name"});
  // Node names are compared exactly.
  EXPECT_FALSE(f->filter(ctx, node_info(make_node("N1", 1000, 0))).ok());
}

// Only a pod with spec.nodeName can fail a node, so the engine leaves the filter out for the others.
TEST(PodFitsHost, CanFailOnlyABoundPod) {
  auto f = make_pod_fits_host_filter();
  Pod p = make_pod("p", 100, 0);
  EXPECT_FALSE(f->can_fail(PodContext(p)));
  p.node_name = "n1";
  EXPECT_TRUE(f->can_fail(PodContext(p)));
}

}  // namespace
}  // namespace pod_fits_host_test
}  // namespace kext
