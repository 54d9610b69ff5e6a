// image_key must be exactly a hash of canonical_image_name: equal canonical names share a key,
// different ones do not.
#include "algorithms/image_names.h"

#include <gtest/gtest.h>

namespace kext {
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

TEST(IndexImages, OneEntryPerNameWithTheImageSize) {
  std::vector<ContainerImage> images{{{"a:1", "a@sha256:x"}, 10}, {{"b:2"}, 20}};
  auto idx = index_images(images);
  ASSERT_EQ(idx.size(), 3u);
  EXPECT_EQ(idx[0].key, image_key("a:1"));
  EXPECT_EQ(idx[1].size_bytes, 10);
  EXPECT_EQ(idx[2].key, image_key("b:2"));
  EXPECT_EQ(idx[2].size_bytes, 20);
}

}  // namespace
}  // namespace kext
