#include "sim/core/indexed_heap.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <utility>

namespace kext::sim {
namespace indexed_heap_test {
namespace {

struct Item {
  std::string key;
  int value;
};
struct KeyOf {
  const std::string& operator()(const Item& i) const { return i.key; }
};
struct Less {
  bool operator()(const Item& a, const Item& b) const {
    return a.value != b.value ? a.value < b.value : a.key < b.key;
  }
};
using Heap = IndexedHeap<Item, KeyOf, Less>;

TEST(IndexedHeap, PushPopEraseGet) {
  Heap h;
  h.push({"c", 3});
  h.push({"a", 1});
  h.push({"b", 2});
  EXPECT_THROW(h.push({"a", 9}), std::invalid_argument);
  ASSERT_NE(h.get("b"), nullptr);
  EXPECT_EQ(h.get("b")->value, 2);
  EXPECT_EQ(h.get("zz"), nullptr);
  Item out;
  EXPECT_TRUE(h.erase("a", &out));
  EXPECT_EQ(out.value, 1);
  EXPECT_FALSE(h.erase("a"));
  EXPECT_EQ(h.pop().key, "b");
  EXPECT_EQ(h.pop().key, "c");
  EXPECT_TRUE(h.empty());
  EXPECT_THROW(h.pop(), std::out_of_range);
  EXPECT_THROW(h.top(), std::out_of_range);
}

TEST(IndexedHeap, MatchesAnOrderedSetUnderRandomOperations) {
  // Erase from the middle is where an index heap goes wrong (the moved last element must sift both
  // ways, and every swap must update the index); a sorted set is the reference.
  std::mt19937_64 rng(12345);
  Heap h;
  std::set<std::pair<int, std::string>> ref;
  for (int step = 0; step < 20000; ++step) {
    const int op = static_cast<int>(rng() % 3);
    const std::string key = "k" + std::to_string(rng() % 500);
    if (op == 0) {
      if (h.contains(key)) continue;
      const int v = static_cast<int>(rng() % 100);
      h.push({key, v});
      ref.emplace(v, key);
    } else if (op == 1) {
      const Item* it = h.get(key);
      if (it == nullptr) {
        EXPECT_FALSE(h.erase(key));
        continue;
      }
      ref.erase({it->value, key});
      EXPECT_TRUE(h.erase(key));
    } else if (!ref.empty()) {
      const Item top = h.pop();
      EXPECT_EQ(std::make_pair(top.value, top.key), *ref.begin());
      ref.erase(ref.begin());
    }
    ASSERT_EQ(h.size(), ref.size());
  }
  while (!ref.empty()) {
    const Item top = h.pop();
    ASSERT_EQ(std::make_pair(top.value, top.key), *ref.begin());
    ref.erase(ref.begin());
  }
}

}  // namespace
}  // namespace indexed_heap_test
}  // namespace kext::sim
