#pragma once
// A string-keyed map split into N shards, each behind a shared_ptr, so that publishing a new immutable
// view costs N pointer copies and a write after publishing copies only the one shard it touches. This
// is what lets the watch apply an event and publish without copying 150,000 pods, while readers keep
// whatever view they took.
#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kube/state/flat_shard.h"

namespace kext {

// Hashes a name once per lookup: ShardedMap takes the shard from the high bits of the hash and hands
// the same hash to the shard (FlatShard), whose slot comes from the low bits. Resolving 230 node names
// per filter request hashed each twice before (once for the shard, once in unordered_map::find).
// Transparent, so that a set of std::string keys can be asked about a string_view (StateCache's relists).
//
// Eight bytes per step (multiply, xor-shift), the last word read overlapping the one before it, then
// MurmurHash3's 64-bit finaliser so that every input bit reaches the low bits (the slot) and the high
// bits (the shard). libstdc++'s std::hash (MurmurHash64A) was a visible share of a 500-name filter's
// instructions; with this, find_nodes and its hashing take fewer instructions per name (callgrind, 500
// cloud names of 5000 nodes; docs/performance.md "Figures behind design choices in the code"). Node names and
// pod UIDs come from the API server, so no defence against chosen collisions is needed.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;  // 2^64 / the golden ratio
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = n * kMul;
    if (n >= 8) {
      for (; n > 8; p += 8, n -= 8) {
        h = (h ^ load(p, 8)) * kMul;
        h ^= h >> 29;
      }
      h = (h ^ load(p + n - 8, 8)) * kMul;  // the last 8 bytes (overlapping the step before when n < 8)
    } else if (n >= 4) {
      h = (h ^ (load(p, 4) << 32 | load(p + n - 4, 4))) * kMul;
    } else if (n > 0) {
      const auto byte = [](char c) { return uint64_t{static_cast<unsigned char>(c)}; };
      h = (h ^ (byte(p[0]) << 16 | byte(p[n / 2]) << 8 | byte(p[n - 1]))) * kMul;
    }
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return static_cast<size_t>(h);
  }

 private:
  static uint64_t load(const char* p, size_t bytes) {
    uint64_t w = 0;
    std::memcpy(&w, p, bytes);
    return w;
  }
};

template <class V, size_t N, class Hash = StringHash, size_t SlotBytes = 64>
class ShardedMapWriter;

// Hash is a parameter only so that the tests can count its calls. SlotBytes is FlatShard's: how long a
// key its slots keep inline.
template <class V, size_t N, class Hash = StringHash, size_t SlotBytes = 64>
class ShardedMap {
 public:
  using Shard = FlatShard<V, SlotBytes>;

  ShardedMap() {
    auto empty = std::make_shared<const Shard>();
    shards_.fill(empty);
    views_.fill(empty->view());
  }

  const V* find(std::string_view key) const {
    const HashedKey k = hashed(key);
    return views_[shard_of(k)].find(k);
  }
  // out[i] = find(keys[i]) for every key, in stages: every key's home slot is requested before any is
  // read, then every matching key's bytes, then the finds run on lines already in cache. One find after
  // another waits on each miss in turn (the slot, then a long name's bytes), and a request's ~500
  // names of 5000 nodes miss on nearly every one.
  void find_many(std::span<const std::string_view> keys, std::span<const V*> out) const {
    std::vector<std::pair<HashedKey, const typename Shard::View*>> at;
    at.reserve(keys.size());
    for (std::string_view key : keys) {
      const HashedKey k = hashed(key);
      const auto* v = &views_[shard_of(k)];
      v->prefetch_home(k);
      at.emplace_back(k, v);
    }
    for (const auto& [k, v] : at) v->prefetch_key(k);
    for (size_t i = 0; i < at.size(); ++i) out[i] = at[i].second->find(at[i].first);
  }
  size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : shards_) s->for_each(f);
  }

  // The high bits choose the shard: the low ones choose the slot inside it.
  static HashedKey hashed(std::string_view key) { return {key, Hash{}(key)}; }
  static size_t shard_of(const HashedKey& k) { return (k.hash >> 20) % N; }
  static size_t shard_of(std::string_view key) { return shard_of(hashed(key)); }

 private:
  friend class ShardedMapWriter<V, N, Hash, SlotBytes>;
  std::array<std::shared_ptr<const Shard>, N> shards_;
  std::array<typename Shard::View, N> views_;  // views_[i] reads shards_[i], which is never written again
  size_t size_ = 0;
};

// The single writer's side: mutates shards it owns, copies a shard on its first write after a publish.
template <class V, size_t N, class Hash, size_t SlotBytes>
class ShardedMapWriter {
 public:
  using Map = ShardedMap<V, N, Hash, SlotBytes>;
  using Shard = typename Map::Shard;

  ShardedMapWriter() {
    for (auto& s : shards_) s = std::make_shared<Shard>();
    owned_.set();
  }

  const V* find(std::string_view key) const {
    const HashedKey k = Map::hashed(key);
    return std::as_const(*shards_[Map::shard_of(k)]).find(k);
  }
  // One hash per write, insert or update.
  void put(std::string_view key, V value) {
    const HashedKey k = Map::hashed(key);
    if (own(Map::shard_of(k)).put(k, std::move(value))) ++size_;
  }
  bool erase(std::string_view key) {
    const HashedKey k = Map::hashed(key);
    const size_t i = Map::shard_of(k);
    if (!std::as_const(*shards_[i]).find(k)) return false;  // no copy of a published shard for nothing
    own(i).erase(k);
    --size_;
    return true;
  }
  size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : shards_) s->for_each(f);
  }

  Map publish() {
    Map view;
    for (size_t i = 0; i < N; ++i) {
      view.shards_[i] = shards_[i];
      view.views_[i] = shards_[i]->view();
    }
    view.size_ = size_;
    owned_.reset();
    return view;
  }

 private:
  Shard& own(size_t i) {
    if (!owned_[i]) {
      shards_[i] = std::make_shared<Shard>(*shards_[i]);
      owned_[i] = true;
    }
    return *shards_[i];
  }

  std::array<std::shared_ptr<Shard>, N> shards_;
  std::bitset<N> owned_;
  size_t size_ = 0;
};

}  // namespace kext
