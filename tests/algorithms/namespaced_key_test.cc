#include "algorithms/namespaced_key.h"

#include <gtest/gtest.h>

namespace kext {
namespace namespaced_key_test {
namespace {

TEST(NamespacedKey, JoinsAndSplitsAsClientGoCacheKeys) {
  EXPECT_EQ(namespaced_key("ns", "a"), "ns/a");
  const NamespacedName n = split_namespaced_key("ns/a");
  EXPECT_EQ(n.namespace_, "ns");
  EXPECT_EQ(n.name, "a");
  // A cluster-scoped object's key is its name (cache.SplitMetaNamespaceKey).
  const NamespacedName node = split_namespaced_key("n1");
  EXPECT_EQ(node.namespace_, "");
  EXPECT_EQ(node.name, "n1");
  // The namespace ends at the first '/'.
  EXPECT_EQ(split_namespaced_key("ns/a/b").name, "a/b");
}

}  // namespace
}  // namespace namespaced_key_test
}  // namespace kext
