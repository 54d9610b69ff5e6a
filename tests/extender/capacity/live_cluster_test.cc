// The extender's live state as the capacity endpoint's simulated cluster: nodes by name, each with the
// pods bound or assumed on it as the state counts them, the pending pods and node-less names left out.
#include "extender/capacity/live_cluster.h"

#include <gtest/gtest.h>

#include "json/json.h"
#include "kube/codec/k8s_decode.h"
#include "kube/state/state_cache.h"
#include "tests/support/kube_objects.h"

namespace kext::capacity {
namespace live_cluster_test {
namespace {

using testing::node_json;
using testing::pod_json;

Node node_of(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  return decode_node(d, "node");
}

Pod pod_of(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  return decode_pod(d, "pod");
}

TEST(LiveCluster, NodesByNameWithTheirPodsAsTheStateCountsThem) {
  StateStore store;
  StateCache cache(&store);
  {
    auto batch = cache.batch();
    batch.upsert_node(node_of(node_json("zeta")));
    batch.upsert_node(node_of(node_json("alpha")));
    batch.upsert_pod(pod_of(pod_json("ml", "a", "alpha", "1")));
    batch.upsert_pod(pod_of(pod_json("ml", "b", "zeta", "500m")));
    batch.upsert_pod(pod_of(pod_json("ml", "pending", "", "2", "Pending")));
    batch.upsert_pod(pod_of(pod_json("ml", "orphan", "gone", "1")));
  }
  // A bind's assumption of the pending pod on zeta.
  ASSERT_TRUE(
      cache.batch().assume_pod("uid-ml-pending", "zeta", StateCache::Clock::now() + std::chrono::hours(1)));
  const auto state = store.current();

  const sim::SimCluster cluster = cluster_of(*state, KubeVersion::newest(), nullptr);
  ASSERT_EQ(cluster.nodes().size(), 2u) << "the name only pods reference is no node";
  EXPECT_EQ(cluster.nodes()[0]->name(), "alpha");
  EXPECT_EQ(cluster.nodes()[1]->name(), "zeta");
  EXPECT_EQ(cluster.nodes()[0]->pods.size(), 1u);
  ASSERT_EQ(cluster.nodes()[1]->pods.size(), 2u) << "the assumed pod counts where it was assumed";
  // The state's own PodInfos, shared: the requests the watch counted.
  EXPECT_EQ(cluster.nodes()[1]->requested.milli_cpu, state->find_node("zeta")->requested.milli_cpu);
  EXPECT_EQ(cluster.node("alpha")->pods.front().get(), state->find_node("alpha")->pods.front().get());
  ASSERT_NE(cluster.pod("uid-ml-pending"), nullptr);
  EXPECT_EQ(cluster.pod("uid-ml-pending")->node_name, "zeta");
  EXPECT_EQ(cluster.pod_count(), 3u) << "the orphan's node has no object: it is left out with it";
}

}  // namespace
}  // namespace live_cluster_test
}  // namespace kext::capacity
