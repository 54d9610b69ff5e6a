// image_key must be exactly a hash of canonical_image_name: equal canonical names share a key,
// different ones do not.
#include "algorithms/image_names.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

namespace kext {
namespace image_names_test {
namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 14695981039346656037ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

const char* kNames[] = {"nginx",
                        "nginx:1.25",
                        "library/nginx",
                        "docker.io/nginx",
                        "index.docker.io/library/nginx:latest",
                        "bitnami/redis:7",
                        "nginx@sha256:abcd",
                        "registry.k8s.io/pause:3.9",
                        "localhost/app",
                        "localhost:5000/app:v2",
                        "myreg:5000/app",
                        "Upper/app",
                        ""};

TEST(ImageKey, IsTheHashOfTheCanonicalName) {
  for (const char* n : kNames) EXPECT_EQ(image_key(n), fnv1a(canonical_image_name(n))) << n;
}

TEST(ImageKey, SpellingsOfOneImageShareAKey) {
  const uint64_t nginx = image_key("docker.io/library/nginx:latest");
  for (const char* n :
       {"nginx", "nginx:latest", "library/nginx", "docker.io/nginx", "index.docker.io/library/nginx"}) {
    EXPECT_EQ(image_key(n), nginx) << n;
  }
  EXPECT_NE(image_key("nginx:1.25"), nginx);
  EXPECT_NE(image_key("quay.io/nginx"), nginx);
}

TEST(IndexImages, OneEntryPerNameWithTheImageSizeSortedByKey) {
  std::vector<ContainerImage> images{{{"a:1", "a@sha256:x"}, 10}, {{"b:2"}, 20}};
  auto idx = index_images(images);
  ASSERT_EQ(idx.size(), 3u);
  EXPECT_TRUE(std::ranges::is_sorted(idx, {}, &NodeImage::key));
  EXPECT_EQ(image_size(idx, image_key("a:1")), 10);
  EXPECT_EQ(image_size(idx, image_key("a@sha256:x")), 10);
  EXPECT_EQ(image_size(idx, image_key("b:2")), 20);
  EXPECT_EQ(image_size(idx, image_key("c:3")), -1);
}

// A name listed under two images keeps the first one's size, as the scan over the API's order did.
TEST(ImageSize, FirstEntryOfAKeyWinsAfterSorting) {
  std::vector<ContainerImage> images;
  for (int i = 0; i < 40; ++i) images.push_back({{"img" + std::to_string(i) + ":v1"}, 100 + i});
  images.push_back({{"img7:v1", "other:v1"}, 999});
  images.push_back({{"nginx"}, 5});
  images.push_back({{"docker.io/library/nginx:latest"}, 6});  // the same image, spelled out
  auto idx = index_images(images);
  EXPECT_EQ(image_size(idx, image_key("img7:v1")), 107);
  EXPECT_EQ(image_size(idx, image_key("other:v1")), 999);
  EXPECT_EQ(image_size(idx, image_key("nginx:latest")), 5);
  for (int i = 0; i < 40; ++i)
    EXPECT_EQ(image_size(idx, image_key("img" + std::to_string(i) + ":v1")), 100 + i);
  EXPECT_EQ(image_size({}, image_key("nginx")), -1);
}

// image_size starts where the key's share of 2^64 points and steps from there: it must answer as
// lower_bound does whatever the keys' spread. Hashed keys; keys crowded at either end of the range or in
// one spot (the estimate lands far from them); runs of equal keys (the first one's size); one entry.
TEST(ImageSize, AnswersAsLowerBoundForAnySpreadOfKeys) {
  std::mt19937_64 rng(42);  // fixed: a failure must reproduce
  const std::vector<std::function<uint64_t(size_t)>> spreads = {
      [&](size_t) { return rng(); }, [&](size_t i) { return uint64_t{i} * 3; },
      [&](size_t i) { return ~uint64_t{0} - uint64_t{i} * 3; },
      [&](size_t i) { return (uint64_t{1} << 62) + uint64_t{i} / 4 * 2; },  // runs of 4 equal keys
  };
  for (size_t spread = 0; spread < spreads.size(); ++spread) {
    for (size_t n : {1, 2, 7, 100, 400}) {
      std::vector<NodeImage> sorted;
      for (size_t i = 0; i < n; ++i) sorted.push_back({spreads[spread](i), static_cast<int64_t>(i)});
      std::ranges::stable_sort(sorted, {}, &NodeImage::key);
      std::vector<uint64_t> asked;
      for (const NodeImage& im : sorted) asked.insert(asked.end(), {im.key, im.key - 1, im.key + 1});
      asked.insert(asked.end(), {0, 1, ~uint64_t{0}, uint64_t{1} << 63, rng()});
      for (uint64_t key : asked) {
        auto it = std::ranges::lower_bound(sorted, key, {}, &NodeImage::key);
        const int64_t want = it != sorted.end() && it->key == key ? it->size_bytes : -1;
        EXPECT_EQ(image_size(sorted, key), want) << "spread " << spread << ", " << n << " keys, key " << key;
      }
    }
  }
}

// NodeImages answers exactly as the binary search over its sorted keys, present or absent; its filter
// keeps most absent keys away from that search (extender-gen's nodes: 50 images under two names each).
TEST(NodeImages, AnswersAsTheSortedSearchAndFiltersMostAbsentKeys) {
  struct Case {
    int images;
    double max_false_positive_share;
  };
  for (const Case& c : {Case{0, 0.0}, Case{1, 0.02}, Case{10, 0.02}, Case{50, 0.15}}) {
    std::vector<ContainerImage> images;
    for (int i = 0; i < c.images; ++i) {
      images.push_back({{"repo/app" + std::to_string(i) + ":v1",
                         "repo/app" + std::to_string(i) + "@sha256:" + std::to_string(i * 7919)},
                        1000 + i});
    }
    const std::vector<NodeImage> sorted = index_images(images);
    const NodeImages node(sorted);
    ASSERT_EQ(node.size(), sorted.size());
    for (const NodeImage& im : sorted) {
      node.prefetch(im.key);  // a hint that reads nothing past the entries, on no images too
      EXPECT_TRUE(node.may_have(im.key));
      EXPECT_EQ(node.size_of(im.key), image_size(sorted, im.key));
      EXPECT_EQ(node.search(im.key), node.size_of(im.key));
    }
    int passed = 0;
    constexpr int kAbsent = 20000;
    for (int i = 0; i < kAbsent; ++i) {
      const uint64_t key = image_key("elsewhere/img" + std::to_string(i) + ":v2");
      node.prefetch(key);
      EXPECT_EQ(node.size_of(key), -1);
      EXPECT_EQ(node.search(key), -1);  // the search alone answers absent keys too
      passed += node.may_have(key);
    }
    EXPECT_LE(passed, c.max_false_positive_share * kAbsent) << c.images << " images";
  }
}

}  // namespace
}  // namespace image_names_test
}  // namespace kext
