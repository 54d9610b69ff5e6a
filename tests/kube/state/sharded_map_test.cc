// ShardedMap: lookups through the published view and the writer, keys that share a shard, and the
// one hash per lookup that the shard choice and the slot lookup share.
#include "kube/state/sharded_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace kext {
namespace sharded_map_test {
namespace {

// Counts how many times a key's bytes are hashed; a pre-hashed key costs nothing.
struct CountingHash : StringHash {
  static inline int calls = 0;
  size_t operator()(std::string_view s) const {
    ++calls;
    return StringHash::operator()(s);
  }
};

constexpr size_t kShards = 4;
using Map = ShardedMap<int, kShards>;
using Writer = ShardedMapWriter<int, kShards>;

// Names that land in the same shard, so one shard's map holds several keys.
std::vector<std::string> same_shard_keys(size_t count) {
  std::vector<std::string> keys;
  const size_t want = Map::shard_of("node-0");
  for (int i = 0; keys.size() < count; ++i) {
    std::string k = "node-" + std::to_string(i);
    if (Map::shard_of(k) == want) keys.push_back(k);
  }
  return keys;
}

TEST(ShardedMap, ShardIsChosenByTheHashHighBits) {
  for (std::string_view k : {"", "a", "node-1", "node-with-a-long-name-0000000000000000000000000000"}) {
    EXPECT_EQ(Map::shard_of(k), (StringHash{}(k) >> 20) % kShards) << k;
    EXPECT_EQ(Map::shard_of(Map::hashed(k)), Map::shard_of(k)) << k;
  }
}

TEST(ShardedMap, KeysSharingAShardAreFoundApart) {
  const auto keys = same_shard_keys(20);
  Writer w;
  for (size_t i = 0; i < keys.size(); ++i) w.put(keys[i], static_cast<int>(i));
  const Map view = w.publish();
  EXPECT_EQ(view.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_NE(view.find(keys[i]), nullptr) << keys[i];
    EXPECT_EQ(*view.find(keys[i]), static_cast<int>(i)) << keys[i];
    EXPECT_EQ(*w.find(keys[i]), static_cast<int>(i)) << keys[i];
  }
  // A prefix, an extension and an absent key of the same shard are not found.
  EXPECT_EQ(view.find("node-"), nullptr);
  EXPECT_EQ(view.find(keys[0] + "0"), nullptr);
  EXPECT_EQ(view.find(""), nullptr);
}

TEST(ShardedMap, LookupsAfterWriterUpdates) {
  const auto keys = same_shard_keys(3);
  Writer w;
  w.put(keys[0], 1);
  w.put(keys[1], 2);
  const Map before = w.publish();

  w.put(keys[0], 10);  // update
  w.put(keys[2], 3);   // insert
  EXPECT_TRUE(w.erase(keys[1]));
  EXPECT_FALSE(w.erase(keys[1]));
  EXPECT_FALSE(w.erase("absent"));
  const Map after = w.publish();

  // The earlier view is unchanged by the writes after it.
  EXPECT_EQ(before.size(), 2u);
  EXPECT_EQ(*before.find(keys[0]), 1);
  EXPECT_EQ(*before.find(keys[1]), 2);
  EXPECT_EQ(before.find(keys[2]), nullptr);

  EXPECT_EQ(after.size(), 2u);
  EXPECT_EQ(*after.find(keys[0]), 10);
  EXPECT_EQ(after.find(keys[1]), nullptr);
  EXPECT_EQ(*after.find(keys[2]), 3);
  EXPECT_EQ(w.size(), 2u);
  EXPECT_EQ(*w.find(keys[0]), 10);
  EXPECT_EQ(w.find(keys[1]), nullptr);

  std::map<std::string, int> seen;
  after.for_each([&](std::string_view k, int v) { seen[std::string(k)] = v; });
  EXPECT_EQ(seen, (std::map<std::string, int>{{keys[0], 10}, {keys[2], 3}}));
}

// Every key hashes alike: one shard, one run, and the first key of the run with the key's hash is
// rarely the key (find_many's prefetch_key picks that one; find must still compare the strings).
struct SameHash {
  size_t operator()(std::string_view) const { return 0x5eed; }
};

// find_many answers what one find per key answers, in the keys' order, for present and absent keys,
// short and heap-allocated ones, an empty map and an empty request.
template <class Hash>
void expect_find_many_matches_find() {
  ShardedMapWriter<int, kShards, Hash> w;
  std::vector<std::string> stored;
  for (int i = 0; i < 40; ++i) {
    stored.push_back("node-" + std::to_string(i));
    stored.push_back("ip-10-0-0-" + std::to_string(i) + ".eu-west-1.compute.internal");
  }
  const ShardedMap<int, kShards, Hash> empty = w.publish();
  for (size_t i = 0; i < stored.size(); ++i) w.put(stored[i], static_cast<int>(i));
  const ShardedMap<int, kShards, Hash> view = w.publish();

  std::vector<std::string> asked;
  for (size_t i = stored.size(); i-- > 0;) {
    asked.push_back(stored[i]);
    if (i % 3 == 0)
      asked.push_back("absent-" + std::string(i % 2 ? "ip-10-0-0-1.eu-west-1.compute.internal" : "x"));
  }
  asked.push_back("");
  asked.push_back(stored[5]);  // twice
  const std::vector<std::string_view> keys(asked.begin(), asked.end());
  std::vector<const int*> got(keys.size(), nullptr);
  view.find_many(keys, got);
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(got[i], view.find(keys[i])) << keys[i];
  EXPECT_EQ(std::count(got.begin(), got.end(), nullptr), std::count_if(keys.begin(), keys.end(), [](auto k) {
              return k.empty() || k.starts_with("absent-");
            }));

  std::vector<const int*> none(keys.size(), got[0]);
  empty.find_many(keys, none);
  EXPECT_EQ(std::count(none.begin(), none.end(), nullptr), static_cast<std::ptrdiff_t>(keys.size()));
  view.find_many({}, std::span<const int*>());
}

TEST(ShardedMap, FindManyMatchesFind) {
  expect_find_many_matches_find<StringHash>();
  expect_find_many_matches_find<SameHash>();
}

// The shard choice and the slot lookup share one hash of the key: a name resolved per request is
// hashed once, not twice.
TEST(ShardedMap, EachLookupHashesTheKeyOnce) {
  ShardedMapWriter<int, kShards, CountingHash> w;
  for (int i = 0; i < 50; ++i) w.put("node-" + std::to_string(i), i);
  const ShardedMap<int, kShards, CountingHash> view = w.publish();

  struct Case {
    const char* what;
    std::function<void()> op;
    int hashes;
  };
  const std::vector<Case> cases = {
      {"view find, present", [&] { EXPECT_NE(view.find("node-7"), nullptr); }, 1},
      {"view find, absent", [&] { EXPECT_EQ(view.find("node-x"), nullptr); }, 1},
      {"writer find", [&] { EXPECT_NE(w.find("node-8"), nullptr); }, 1},
      {"writer update", [&] { w.put("node-9", 90); }, 1},
      {"writer insert", [&] { w.put("node-50", 50); }, 1},
      {"writer erase", [&] { EXPECT_TRUE(w.erase("node-10")); }, 1},
      {"writer erase, absent", [&] { EXPECT_FALSE(w.erase("node-x")); }, 1},
      {"view find_many of three",
       [&] {
         const std::string_view keys[] = {"node-1", "node-x", "node-2"};
         const int* out[3];
         view.find_many(keys, out);
         EXPECT_EQ(*out[2], 2);
       },
       3},
  };
  for (const auto& c : cases) {
    CountingHash::calls = 0;
    c.op();
    EXPECT_EQ(CountingHash::calls, c.hashes) << c.what;
  }
  EXPECT_EQ(*w.find("node-9"), 90);
  EXPECT_EQ(w.find("node-10"), nullptr);
  EXPECT_EQ(*w.find("node-50"), 50);
}

// StringHash reads every byte: a key that differs from another in one byte, at any position of any
// length up to 64 (each path through the word loop, the overlapping last word, the 4-7 and 1-3 byte
// cases), hashes differently.
TEST(StringHash, EveryByteOfEveryLengthCounts) {
  for (size_t len = 0; len <= 64; ++len) {
    const std::string base(len, 'a');
    const size_t h = StringHash{}(base);
    EXPECT_NE(h, StringHash{}(base + "a")) << "length " << len;
    for (size_t i = 0; i < len; ++i) {
      std::string changed = base;
      changed[i] = 'b';
      EXPECT_NE(StringHash{}(changed), h) << "length " << len << ", byte " << i;
    }
  }
  EXPECT_EQ(StringHash{}(std::string_view("ip-10-0-0-1.eu-west-1.compute.internal")),
            StringHash{}(std::string("ip-10-0-0-1.eu-west-1.compute.internal")));
}

// 20,000 cloud and short node names and pod UIDs: no two share a hash, and both the shard (high bits)
// and a 32,768-slot table's home slot (low bits) spread them about evenly.
TEST(StringHash, SpreadsNamesOverShardsAndSlots) {
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) {
    keys.push_back("ip-10-0-" + std::to_string(i / 250) + "-" + std::to_string(i % 250) +
                   ".eu-west-1.compute.internal");
    keys.push_back("node-" + std::to_string(i));
    char uid[40];
    std::snprintf(uid, sizeof uid, "%08x-20f7-ba7a-1e75-%012x", i * 2654435761u, i);
    keys.push_back(uid);
    keys.push_back("gke-pool-" + std::to_string(i % 7) + "-" + std::to_string(i * 31));
  }
  std::map<size_t, int> seen;
  std::vector<int> shards(16, 0), slots(size_t{1} << 15, 0);
  for (const std::string& k : keys) {
    const size_t h = StringHash{}(k);
    EXPECT_EQ(seen[h]++, 0) << k;
    ++shards[(h >> 20) % shards.size()];
    ++slots[h & (slots.size() - 1)];
  }
  const double per_shard = static_cast<double>(keys.size()) / static_cast<double>(shards.size());
  for (int n : shards) EXPECT_NEAR(n, per_shard, per_shard * 0.1);
  // Binomial with mean 0.61: a slot with 8 or more keys has probability ~1e-7 per slot.
  EXPECT_LE(*std::max_element(slots.begin(), slots.end()), 7);
}

}  // namespace
}  // namespace sharded_map_test
}  // namespace kext
