// FlatShard: the open-addressing shard under ShardedMap. It must answer exactly as a map would under any
// order of puts and erases, including keys whose hashes collide and runs that wrap past the table's end
// (where backward-shift deletion is easiest to get wrong), and an erase must release its value.
#include "kube/state/flat_shard.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kext {
namespace flat_shard_test {
namespace {

// Hash families that force the hard cases: one hash for every key (one long run), hashes at the top of
// every power-of-two table (runs that wrap to slot 0), and a few homes spread over the table.
struct Family {
  const char* what;
  size_t (*hash_of)(int key);
};
const std::vector<Family> kFamilies = {
    {"one hash for all", [](int) -> size_t { return 42; }},
    {"homes at the table's end", [](int k) -> size_t { return ~size_t{0} - static_cast<size_t>(k % 3); }},
    {"four homes", [](int k) -> size_t { return static_cast<size_t>(k % 4) * 5; }},
    {"distinct", [](int k) -> size_t { return std::hash<int>{}(k)*0x9E3779B97F4A7C15ull; }},
};

// Keys of every length around the slot's inline room (FlatShard<int>: 48 bytes), so that keys kept in
// the slot and keys kept on the heap are moved past each other by the shifts.
template <class Shard>
void agrees_with_a_map() {
  for (const auto& family : kFamilies) {
    std::mt19937 rng(7);
    Shard shard;
    std::map<std::string, int> model;
    std::vector<std::string> names;
    for (int k = 0; k < 64; ++k) {
      const std::string name = "node-" + std::to_string(k);
      names.push_back(name + std::string(static_cast<size_t>(k) * 2, 'x'));
    }
    const auto key = [&](int k) { return HashedKey{names[static_cast<size_t>(k)], family.hash_of(k)}; };
    for (int step = 0; step < 20000; ++step) {
      const int k = static_cast<int>(rng() % names.size());
      const std::string& name = names[static_cast<size_t>(k)];
      if (rng() % 3 == 0) {
        EXPECT_EQ(shard.erase(key(k)), model.erase(name) == 1) << family.what << " erase " << name;
      } else {
        const int value = step;
        EXPECT_EQ(shard.put(key(k), value), !model.contains(name)) << family.what << " put " << name;
        model[name] = value;
      }
      ASSERT_EQ(shard.size(), model.size()) << family.what << " at step " << step;
      // Every key, present or absent, answers as the map does: a wrong shift loses a present key.
      for (int q = 0; q < static_cast<int>(names.size()); ++q) {
        const int* got = shard.find(key(q));
        const auto want = model.find(names[static_cast<size_t>(q)]);
        if (want == model.end()) {
          ASSERT_EQ(got, nullptr) << family.what << " " << names[static_cast<size_t>(q)] << " at step "
                                  << step;
        } else {
          ASSERT_NE(got, nullptr) << family.what << " " << names[static_cast<size_t>(q)] << " at step "
                                  << step;
          ASSERT_EQ(*got, want->second) << family.what << " " << names[static_cast<size_t>(q)];
        }
      }
    }
    std::map<std::string, int> seen;
    shard.for_each([&](std::string_view k, int v) { seen[std::string(k)] = v; });
    EXPECT_EQ(seen, model) << family.what;
  }
}

TEST(FlatShard, AgreesWithAMapUnderRandomOperationsAndCollidingHashes) {
  agrees_with_a_map<FlatShard<int>>();
  agrees_with_a_map<FlatShard<int, 128>>();
}

TEST(FlatShard, KeepsShortKeysInTheSlotAndLongOnesOnTheHeap) {
  EXPECT_EQ(FlatShard<int>::kInlineKey, 48u);
  EXPECT_EQ((FlatShard<std::shared_ptr<int>, 64>::kInlineKey), 40u);  // a pod UID (36 bytes) fits
  EXPECT_EQ((FlatShard<std::shared_ptr<int>, 128>::kInlineKey), 104u);
  const std::string at_limit(FlatShard<int>::kInlineKey, 'a'), past(FlatShard<int>::kInlineKey + 1, 'a');
  FlatShard<int> shard;
  shard.put({at_limit, 5}, 1);
  shard.put({past, 5}, 2);  // same hash, one byte longer: a different key
  EXPECT_EQ(*shard.find({at_limit, 5}), 1);
  EXPECT_EQ(*shard.find({past, 5}), 2);
  std::string last_byte_differs = past;
  last_byte_differs.back() = 'b';  // compared past the slot's room, on the heap
  EXPECT_EQ(shard.find({last_byte_differs, 5}), nullptr);
  last_byte_differs = at_limit;
  last_byte_differs.back() = 'b';  // the slot's last inline byte
  EXPECT_EQ(shard.find({last_byte_differs, 5}), nullptr);
}

// ShardedMapWriter copies a published shard before its first write: the copy must own its own long
// keys (a shared pointer would be freed twice, or read after the original's erase freed it).
TEST(FlatShard, ACopyOwnsItsKeys) {
  const std::string long_a(100, 'a'), long_b(100, 'b');
  auto original = std::make_unique<FlatShard<int>>();
  original->put({long_a, 1}, 1);
  original->put({long_b, 1}, 2);
  original->put({"short", 2}, 3);
  FlatShard<int> copy = *original;
  original->erase({long_a, 1});
  original.reset();
  ASSERT_NE(copy.find({long_a, 1}), nullptr);
  EXPECT_EQ(*copy.find({long_a, 1}), 1);
  EXPECT_EQ(*copy.find({long_b, 1}), 2);
  EXPECT_EQ(*copy.find({"short", 2}), 3);
  std::map<std::string, int> seen;
  copy.for_each([&](std::string_view k, int v) { seen[std::string(k)] = v; });
  EXPECT_EQ(seen, (std::map<std::string, int>{{long_a, 1}, {long_b, 2}, {"short", 3}}));
}

TEST(FlatShard, SameHashDifferentKeysAreDifferentEntries) {
  FlatShard<int> shard;
  EXPECT_TRUE(shard.put({"a", 1}, 10));
  EXPECT_TRUE(shard.put({"b", 1}, 20));
  EXPECT_FALSE(shard.put({"a", 1}, 11));
  EXPECT_EQ(*shard.find({"a", 1}), 11);
  EXPECT_EQ(*shard.find({"b", 1}), 20);
  EXPECT_EQ(shard.find({"c", 1}), nullptr);
  EXPECT_EQ(shard.find({"a", 2}), nullptr);  // the stored hash is compared, not only the key
  EXPECT_EQ(FlatShard<int>{}.find({"a", 1}), nullptr);
  EXPECT_FALSE(FlatShard<int>{}.erase({"a", 1}));
}

// A key found with equal hashes but a different length, or the same length and one byte different, is
// not the key.
TEST(FlatShard, EqualHashesFindOnlyTheExactKey) {
  FlatShard<int> shard;
  const std::vector<std::string> keys = {"abcd", "abcdefgh", "abcdefghi",
                                         "ip-10-0-12-34.eu-west-1.compute.internal"};
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_TRUE(shard.put({keys[i], 7}, static_cast<int>(i)));
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(*shard.find({keys[i], 7}), static_cast<int>(i));
    std::string other = keys[i];
    other.back() ^= 1;
    EXPECT_EQ(shard.find({other, 7}), nullptr) << other;
    EXPECT_EQ(shard.find({keys[i] + "x", 7}), nullptr);  // the same bytes and one more
  }
}

// The node cache holds shared_ptrs to large NodeInfos: an erased node must be freed at the erase,
// not when some later insert happens to overwrite its slot.
TEST(FlatShard, EraseReleasesTheValue) {
  FlatShard<std::shared_ptr<int>> shard;
  auto value = std::make_shared<int>(1);
  std::weak_ptr<int> watch = value;
  shard.put({"node-a", 3}, std::move(value));
  auto second = std::make_shared<int>(2);
  std::weak_ptr<int> watch_second = second;
  shard.put({"node-b", 3}, std::move(second));  // shifted back into node-a's slot on erase
  ASSERT_TRUE(shard.erase({"node-a", 3}));      // the shift overwrites node-a's value
  EXPECT_TRUE(watch.expired());
  ASSERT_NE(shard.find({"node-b", 3}), nullptr);
  EXPECT_EQ(**shard.find({"node-b", 3}), 2);
  EXPECT_EQ(shard.size(), 1u);
  ASSERT_TRUE(shard.erase({"node-b", 3}));  // nothing follows: the slot itself must be cleared
  EXPECT_TRUE(watch_second.expired());
}

}  // namespace
}  // namespace flat_shard_test
}  // namespace kext
