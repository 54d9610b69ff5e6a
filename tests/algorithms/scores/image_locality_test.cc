#include "algorithms/scores/image_locality.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "algorithms/catalogue.h"
#include "tests/support/test_builders.h"

namespace kext {
namespace image_locality_test {
namespace {

using testing::k8Ei;
using testing::make_node;
using testing::make_pod_with;
using testing::MiB;
using testing::node_info;
using testing::run_score;

constexpr int64_t k4Ei = int64_t{1} << 62;

TEST(NormalizedImageName, AddsLatestOnlyWithoutTagOrDigest) {
  EXPECT_EQ(normalized_image_name("nginx"), "nginx:latest");
  EXPECT_EQ(normalized_image_name("nginx:1.25"), "nginx:1.25");
  EXPECT_EQ(normalized_image_name("gcr.io/proj/app"), "gcr.io/proj/app:latest");
  // The ':' of a registry port is before the last '/', so it is not a tag.
  EXPECT_EQ(normalized_image_name("localhost:5000/app"), "localhost:5000/app:latest");
  EXPECT_EQ(normalized_image_name("localhost:5000/app:v2"), "localhost:5000/app:v2");
  EXPECT_EQ(normalized_image_name("nginx@sha256:abcd"), "nginx@sha256:abcd");
}

TEST(CanonicalImageName, DockerHubShortForms) {
  const std::string want = "docker.io/library/nginx:latest";
  EXPECT_EQ(canonical_image_name("nginx"), want);
  EXPECT_EQ(canonical_image_name("nginx:latest"), want);
  EXPECT_EQ(canonical_image_name("library/nginx"), want);
  EXPECT_EQ(canonical_image_name("docker.io/nginx"), want);
  EXPECT_EQ(canonical_image_name("docker.io/library/nginx:latest"), want);
  EXPECT_EQ(canonical_image_name("index.docker.io/library/nginx"), want);
  EXPECT_EQ(canonical_image_name("bitnami/redis:7"), "docker.io/bitnami/redis:7");
  EXPECT_EQ(canonical_image_name("nginx@sha256:abcd"), "docker.io/library/nginx@sha256:abcd");
  // Other registries are left alone (a "library/" there means nothing special).
  EXPECT_EQ(canonical_image_name("registry.k8s.io/pause:3.9"), "registry.k8s.io/pause:3.9");
  EXPECT_EQ(canonical_image_name("localhost/app"), "localhost/app:latest");
  EXPECT_EQ(canonical_image_name("myreg:5000/app"), "myreg:5000/app:latest");
  // Different tags stay different images.
  EXPECT_NE(canonical_image_name("nginx:1.25"), canonical_image_name("nginx"));
}

Container image_container(std::string image, std::string name = "c") {
  Container c;
  c.name = std::move(name);
  c.image = std::move(image);
  return c;
}

Pod pod_with_images(std::vector<std::string> images) {
  std::vector<Container> cs;
  for (size_t i = 0; i < images.size(); ++i)
    cs.push_back(image_container(images[i], "c" + std::to_string(i)));
  return make_pod_with("p", std::move(cs));
}

NodeInfo node_with(std::string name, std::vector<ContainerImage> images) {
  Node n = make_node(std::move(name), 4000, 0);
  n.images = index_images(images);
  return node_info(std::move(n));
}

TEST(ImageLocality, NameAndNoReduce) {
  auto s = make_image_locality_score();
  EXPECT_EQ(s->name(), "ImageLocalityPriority");
  EXPECT_FALSE(s->has_reduce());
}

TEST(ImageLocality, Table) {
  struct Case {
    std::string name;
    Pod pod;
    std::vector<NodeInfo> nodes;
    std::vector<int64_t> want;
  };
  const ContainerImage app600{{"gcr.io/p/app:v1"}, 600 * MiB};
  const ContainerImage app700{{"gcr.io/p/app:v1"}, 700 * MiB};
  const ContainerImage nginx500{{"docker.io/library/nginx@sha256:0123", "docker.io/library/nginx:latest"},
                                500 * MiB};
  // Scores are 10 * (clamp(sum, 23Mi, 1000Mi) - 23Mi) / 977Mi, with sum = Σ int64(size * spread).
  const std::vector<Case> cases = {
      // Spread 2/4: 300Mi -> 10 * 277 / 977 = 2.8 -> 2; nodes without it sit at the minimum: 0.
      {"spread halves the size",
       pod_with_images({"gcr.io/p/app:v1"}),
       {node_with("A", {app600}), node_with("B", {app600}), node_with("C", {}), node_with("D", {})},
       {2, 2, 0, 0}},
      // Only on A of 4: 150Mi -> 10 * 127 / 977 = 1.3 -> 1 (the anti "node heating" scaling).
      {"rarer image counts less",
       pod_with_images({"gcr.io/p/app:v1"}),
       {node_with("A", {app600}), node_with("B", {}), node_with("C", {}), node_with("D", {})},
       {1, 0, 0, 0}},
      // 700Mi on 2 of 3: int64(734003200 * (2.0/3.0)) = 489335466 -> 10 * 465218218 / 1024458752 = 4.5 -> 4.
      {"float spread truncated",
       pod_with_images({"gcr.io/p/app:v1"}),
       {node_with("A", {app700}), node_with("B", {app700}), node_with("C", {})},
       {4, 4, 0}},
      // Containers add up: 600Mi + 400Mi = the 1000Mi maximum -> 10; past it stays 10.
      {"containers sum and clamp at the maximum",
       pod_with_images({"gcr.io/p/app:v1", "gcr.io/p/side:v1"}),
       {node_with("A", {app600, {{"gcr.io/p/side:v1"}, 400 * MiB}}),
        node_with("B", {{{"gcr.io/p/app:v1"}, 2000 * MiB}})},
       // app is on 2 of 2 nodes, side on 1 of 2. B: 2000Mi, clamped -> 10. A: 600Mi + 400Mi/2:
       // 600Mi + 200Mi = 800Mi -> 10 * 777 / 977 = 7.95 -> 7.
       {7, 10}},
      {"below the minimum scores 0",
       pod_with_images({"gcr.io/p/tiny:v1"}),
       {node_with("A", {{{"gcr.io/p/tiny:v1"}, 20 * MiB}})},
       {0}},
      // Untagged pod image matches a containerd-style node entry: 500Mi on 1 of 1 -> 10 * 477 / 977 = 4.
      {"docker hub short name matches the full reference",
       pod_with_images({"nginx"}),
       {node_with("A", {nginx500})},
       {4}},
      {"a different tag is a different image",
       pod_with_images({"nginx:1.25"}),
       {node_with("A", {nginx500})},
       {0}},
      {"the same basename in another registry is not the image",
       pod_with_images({"quay.io/x/nginx:latest"}),
       {node_with("A", {nginx500})},
       {0}},
      {"empty image name never matches", pod_with_images({""}), {node_with("A", {nginx500})}, {0}},
      // Sizes near 2^63 saturate at the maximum: 4Ei + 4Ei wrapped to a negative sum (score 0), and
      // int64(8Ei as a double) is out of range.
      {"two 4Ei images saturate",
       pod_with_images({"gcr.io/p/app:v1", "gcr.io/p/side:v1"}),
       {node_with("A", {{{"gcr.io/p/app:v1"}, k4Ei}, {{"gcr.io/p/side:v1"}, k4Ei}})},
       {10}},
      {"an 8Ei image saturates",
       pod_with_images({"gcr.io/p/app:v1"}),
       {node_with("A", {{{"gcr.io/p/app:v1"}, k8Ei}})},
       {10}},
  };
  auto s = make_image_locality_score();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(run_score(*s, c.pod, c.nodes), c.want);
    // prepare() works every node's score out for score_at; score() of a node must agree with it.
    EXPECT_EQ(run_score(*s, c.pod, c.nodes, testing::ScorePath::kByNode), c.want);
  }
}

// prepare() looks an image up on every node in two passes (the Bloom filters, then the searches of the
// nodes they let through); with 300 nodes of 60 images each from a pool of 200, the filters let through
// nodes that lack the image too. Every score must equal the one score() works out for that node alone.
TEST(ImageLocality, TwoPassLookupAgreesWithEachNodeAlone) {
  std::vector<std::string> pool;
  for (int i = 0; i < 200; ++i) pool.push_back("registry.example/team/app-" + std::to_string(i) + ":v1");
  std::vector<NodeInfo> nodes;
  std::mt19937_64 rng(12345);  // fixed: a failure must reproduce
  for (int n = 0; n < 300; ++n) {
    std::vector<ContainerImage> images;
    for (int k = 0; k < 60; ++k) {
      images.push_back({{pool[rng() % pool.size()]}, static_cast<int64_t>(50 + rng() % 900) * MiB});
    }
    nodes.push_back(node_with("n" + std::to_string(n), std::move(images)));
  }
  // Two containers share an image (one row of lookups), one image is on no node.
  const Pod pod = pod_with_images({pool[3], pool[17], pool[3], "registry.example/team/absent:v1"});
  for (bool modern : {false, true}) {
    auto s = modern ? make_image_locality_plugin_score() : make_image_locality_score();
    SCOPED_TRACE(s->name());
    const std::vector<int64_t> prepared = run_score(*s, pod, nodes);
    EXPECT_EQ(prepared, run_score(*s, pod, nodes, testing::ScorePath::kByNode));
    // Not all zero or all equal: the table exercised nodes with and without the images.
    EXPECT_NE(std::ranges::min(prepared), std::ranges::max(prepared));
  }
}

// Found by tests/fuzz (prioritize): a sizeBytes of 9223372036854775807 became 2^63 as a double, whose
// conversion back to int64 is undefined (x86 gives INT64_MIN: score 0), and two 2^62 images overflowed
// the sum. Any size at or past maxThreshold scores 10.
TEST(ImageLocality, HugeSizesScoreTheMaximum) {
  const ContainerImage max{{"gcr.io/p/app:v1"}, INT64_MAX};
  EXPECT_EQ(
      run_score(*make_image_locality_score(), pod_with_images({"gcr.io/p/app:v1"}), {node_with("A", {max})}),
      std::vector<int64_t>{10});
  const ContainerImage app{{"gcr.io/p/app:v1"}, int64_t{1} << 62},
      side{{"gcr.io/p/side:v1"}, int64_t{1} << 62};
  EXPECT_EQ(run_score(*make_image_locality_score(), pod_with_images({"gcr.io/p/app:v1", "gcr.io/p/side:v1"}),
                      {node_with("A", {app, side})}),
            std::vector<int64_t>{10});
}

TEST(ImageLocality, InitContainersAreIgnored) {
  // v1.16 sumImageScores walks pod.Spec.Containers only.
  Pod p = pod_with_images({"gcr.io/p/other:v1"});
  p.init_containers = {image_container("gcr.io/p/app:v1", "init")};
  std::vector<NodeInfo> nodes = {node_with("A", {{{"gcr.io/p/app:v1"}, 1000 * MiB}})};
  EXPECT_EQ(run_score(*make_image_locality_score(), p, nodes), std::vector<int64_t>{0});
}

TEST(ImageLocality, SharedImageAcrossContainersCountsTwice) {
  // Each container adds its image, as in Kubernetes: 2 x 500Mi = 1000Mi -> 10.
  Pod p = pod_with_images({"nginx", "docker.io/library/nginx"});
  std::vector<NodeInfo> nodes = {
      node_with("A", {{{"docker.io/library/nginx:latest"}, 500 * MiB}}),
  };
  EXPECT_EQ(run_score(*make_image_locality_score(), p, nodes), std::vector<int64_t>{10});
}

TEST(ImageLocality, WithoutPrepareScoresZero) {
  Pod p = pod_with_images({"gcr.io/p/app:v1"});
  NodeInfo n = node_with("A", {{{"gcr.io/p/app:v1"}, 1000 * MiB}});
  EXPECT_EQ(make_image_locality_score()->score(PodContext(p), nullptr, n), 0);
}

// ImageLocality (image_locality.go) by minor, through the catalogue as a profile builds it, on
// kube-scheduler's 0..100: 1.30 (kubernetes PR #123366) adds the init containers' images to the sum and
// their count to the bound; 1.29 scores the regular containers alone.
TEST(ImageLocality, InitContainersByMinor) {
  const ContainerImage app600{{"gcr.io/p/app:v1"}, 600 * MiB};
  const ContainerImage side400{{"gcr.io/p/side:v1"}, 400 * MiB};
  const std::vector<NodeInfo> nodes = {node_with("A", {app600, side400}), node_with("B", {app600})};
  // Init app (on 2 of 2 nodes), regular side (on 1 of 2).
  Pod init_held = pod_with_images({"gcr.io/p/side:v1"});
  init_held.init_containers = {image_container("gcr.io/p/app:v1", "init")};
  // Regular app (on 2 of 2), an init image no node holds: only the bound changes.
  Pod init_missing = pod_with_images({"gcr.io/p/app:v1"});
  init_missing.init_containers = {image_container("gcr.io/p/none:v1", "init")};
  struct Case {
    std::string name;
    int minor;
    Pod pod;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      // 1.29: A 200Mi of 1000Mi: 100 * 177 / 977 = 18; B below the minimum: 0.
      {"init image held", 29, init_held, {18, 0}},
      // 1.30: A 600Mi + 200Mi of 2000Mi: 100 * 777 / 1977 = 39; B 600Mi: 100 * 577 / 1977 = 29.
      {"init image held", 30, init_held, {39, 29}},
      {"init image held", 36, init_held, {39, 29}},
      // 600Mi of 1000Mi: 100 * 577 / 977 = 59; of 2000Mi from 1.30: 100 * 577 / 1977 = 29.
      {"init image missing", 29, init_missing, {59, 59}},
      {"init image missing", 30, init_missing, {29, 29}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name + " at 1." + std::to_string(c.minor));
    PluginArgs args;
    args.version = KubeVersion{c.minor};
    auto plugin = make_plugin_score("ImageLocality", args);
    ASSERT_NE(plugin, nullptr);
    const ScorePlugin& inner = plugin->on_scheduler_scale();
    EXPECT_EQ(run_score(inner, c.pod, nodes), c.want);
    EXPECT_EQ(run_score(inner, c.pod, nodes, testing::ScorePath::kByNode), c.want);
  }
}

}  // namespace
}  // namespace image_locality_test
}  // namespace kext
