// extender-gen: deterministic from the seed, and everything it writes is accepted by the extender.
#include <gtest/gtest.h>

#include <filesystem>

#include "load/exchanges.h"
#include "load/gen/cluster.h"
#include "load/gen/workload.h"
#include "load/replay.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace gen_test {
namespace {

namespace fs = std::filesystem;

gen::GenOptions small(uint64_t seed) {
  gen::GenOptions o;
  o.nodes = 40;
  o.pods_per_node = 4;
  o.seed = seed;
  o.cycles = 6;
  o.preempt_every = 3;
  return o;
}

const char* const kFiles[] = {"cluster.json", "names/rec-000001.jsonl", "full/rec-000001.jsonl"};

TEST(Gen, SameSeedSameBytesOtherSeedOtherBytes) {
  TempDir a("gen-a"), b("gen-b"), c("gen-c");
  gen::write_workload(small(7), a.str());
  gen::write_workload(small(7), b.str());
  gen::write_workload(small(8), c.str());
  for (const char* f : kFiles) {
    SCOPED_TRACE(f);
    const std::string bytes = slurp(a.path() / f);
    ASSERT_FALSE(bytes.empty());
    EXPECT_TRUE(bytes == slurp(b.path() / f));
    EXPECT_FALSE(bytes == slurp(c.path() / f));
  }
}

TEST(Gen, NodesAreShapedLikeRealOnes) {
  TempDir dir("gen-shape");
  auto s = gen::write_workload(small(1), dir.str());
  EXPECT_EQ(s.nodes, 40u);
  EXPECT_EQ(s.pods, 160u);
  EXPECT_GT(s.pdbs, 0u);
  EXPECT_GE(s.average_node_bytes, 10'000u);
  EXPECT_LE(s.average_node_bytes, 14'000u);
  EXPECT_EQ(s.requests_per_mode, 6u * 2 + 2);
}

TEST(Gen, RequestSizesFollowKubeScheduler) {
  EXPECT_EQ(gen::feasible_nodes_to_find(40), 40u);
  EXPECT_EQ(gen::feasible_nodes_to_find(100), 100u);
  EXPECT_EQ(gen::feasible_nodes_to_find(500), 230u);
  EXPECT_EQ(gen::feasible_nodes_to_find(5000), 500u);
  EXPECT_EQ(gen::feasible_nodes_to_find(15000), 750u);
  EXPECT_EQ(gen::preemption_candidates(40), 40u);
  EXPECT_EQ(gen::preemption_candidates(500), 100u);
  EXPECT_EQ(gen::preemption_candidates(15000), 1500u);
}

// Everything the workload of `o` writes replays against the extender without an error.
void expect_the_extender_accepts(const gen::GenOptions& o) {
  TempDir dir("gen-accept");
  gen::write_workload(o, dir.str());
  auto state = load_snapshot_files({(dir.path() / "cluster.json").string()});
  EXPECT_EQ(state->node_object_count(), 40u);
  EXPECT_EQ(state->pods_by_uid.size(), 160u);
  TestServer server(state);
  for (const char* mode : {"names", "full"}) {
    SCOPED_TRACE(mode);
    auto exchanges = load::read_exchanges((dir.path() / mode).string());
    ASSERT_EQ(exchanges.size(), 14u);
    load::ReplayOptions ro;
    ro.target.host = "127.0.0.1";
    ro.target.port = server.port();
    auto r = load::replay(exchanges, ro);
    EXPECT_EQ(r.requests, 14u);
    EXPECT_EQ(r.verbs["filter"].requests, 6u);
    EXPECT_EQ(r.verbs["prioritize"].requests, 6u);
    EXPECT_EQ(r.verbs["preempt"].requests, 2u);
    EXPECT_EQ(r.errors.total(), 0u);  // every reply 200 without an Error
  }
  // Names mode resolves through the snapshot: the filter must find the nodes, not report them unknown.
  auto first = load::read_exchanges((dir.path() / "names").string(), {{"filter"}, false}).front();
  auto res = server.post("/filter", first.record.body);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->body.find("not found"), std::string::npos) << res->body.substr(0, 300);
  auto reply = parse(res->body);
  ASSERT_TRUE(reply["NodeNames"].IsArray());
  EXPECT_GT(reply["NodeNames"].Size(), 0u);
}

TEST(Gen, TheExtenderAcceptsTheClusterAndEveryRequest) { expect_the_extender_accepts(small(3)); }

// --node-names cloud: every node is named as EC2 names its address, the pods are bound to those names,
// and the extender resolves them.
TEST(Gen, CloudNodeNames) {
  auto o = small(3);
  o.cloud_names = true;
  const gen::Cluster c = gen::make_cluster(o);
  ASSERT_EQ(c.nodes.size(), 40u);
  EXPECT_EQ(c.nodes[0].name, "ip-10-0-0-0.eu-west-1.compute.internal");
  EXPECT_EQ(c.nodes[39].name, "ip-10-0-0-39.eu-west-1.compute.internal");
  EXPECT_EQ(c.nodes[39].object.metadata.labels.at("kubernetes.io/hostname"), c.nodes[39].name);
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    for (size_t p : c.pods_on[i]) EXPECT_EQ(c.pods[p].node, c.nodes[i].name);
  }
  EXPECT_EQ(gen::make_cluster(small(3)).nodes[39].name, "node-00039");
  expect_the_extender_accepts(o);
}

// --bind: after each cycle's prioritize, a bind of that cycle's pod (name and UID as in its filter) to the
// first node the cycle sent; the cluster and the other requests stay as they were.
TEST(Gen, BindFollowsEachCycleWithItsPodAndFirstNode) {
  TempDir plain("gen-plain"), with("gen-bind");
  auto o = small(5);
  gen::write_workload(o, plain.str());
  o.bind = true;
  const auto s = gen::write_workload(o, with.str());
  EXPECT_EQ(s.requests_per_mode, 6u * 3 + 2);
  EXPECT_TRUE(slurp(plain.path() / "cluster.json") == slurp(with.path() / "cluster.json"));
  for (const char* mode : {"names", "full"}) {
    SCOPED_TRACE(mode);
    auto ex = load::read_exchanges((with.path() / mode).string());
    ASSERT_EQ(ex.size(), s.requests_per_mode);
    size_t binds = 0;
    for (size_t i = 0; i < ex.size(); ++i) {
      if (ex[i].record.verb != "bind") continue;
      ++binds;
      ASSERT_GE(i, 2u);
      ASSERT_EQ(ex[i - 1].record.verb, "prioritize");
      auto filter = parse(ex[i - 2].record.body);
      auto bind = parse(ex[i].record.body);
      EXPECT_STREQ(bind["PodName"].GetString(), filter["Pod"]["metadata"]["name"].GetString());
      EXPECT_STREQ(bind["PodNamespace"].GetString(), filter["Pod"]["metadata"]["namespace"].GetString());
      EXPECT_STREQ(bind["PodUID"].GetString(), filter["Pod"]["metadata"]["uid"].GetString());
      const std::string first = std::string(mode) == "names"
                                    ? filter["NodeNames"][0].GetString()
                                    : filter["Nodes"]["items"][0]["metadata"]["name"].GetString();
      EXPECT_EQ(bind["Node"].GetString(), first);
    }
    EXPECT_EQ(binds, 6u);
  }
  // --mode names: the same names recording, no full one.
  TempDir names_only("gen-names");
  o.full = false;
  gen::write_workload(o, names_only.str());
  EXPECT_TRUE(slurp(names_only.path() / "names/rec-000001.jsonl") ==
              slurp(with.path() / "names/rec-000001.jsonl"));
  EXPECT_FALSE(fs::exists(names_only.path() / "full"));
}

}  // namespace
}  // namespace gen_test
}  // namespace kext::testing
