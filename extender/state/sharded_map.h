#pragma once
// A string-keyed map split into N shards, each behind a shared_ptr, so that publishing a new immutable
// view costs N pointer copies and a write after publishing copies only the one shard it touches. This
// is what lets the watch apply an event and publish without copying 150,000 pods, while readers keep
// whatever view they took.
#include <array>
#include <bitset>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace kext {

// A key whose hash is already known: ShardedMap hashes a key once, takes the shard from the high bits
// and hands the same hash to the shard's bucket lookup, instead of hashing the name twice (once in
// shard_of, once in unordered_map::find). Resolving 230 node names per filter request hashed each
// twice; hashing once is what this saves.
struct HashedKey {
  std::string_view key;
  size_t hash;
};

// Transparent, so find/erase take a HashedKey (C++20 heterogeneous lookup) without building a
// std::string. Deliberately not noexcept: libstdc++ then stores each key's hash in its node
// (__cache_default), so a lookup compares stored hashes before strings and never rehashes a stored key.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  size_t operator()(const HashedKey& k) const { return k.hash; }
};

struct StringKeyEqual {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  bool operator()(const HashedKey& a, std::string_view b) const { return a.key == b; }
  bool operator()(std::string_view a, const HashedKey& b) const { return a == b.key; }
};

template <class V, size_t N, class Hash = StringHash>
class ShardedMapWriter;

// Hash is a parameter only so that the tests can count its calls.
template <class V, size_t N, class Hash = StringHash>
class ShardedMap {
 public:
  using Shard = std::unordered_map<std::string, V, Hash, StringKeyEqual>;

  ShardedMap() {
    auto empty = std::make_shared<const Shard>();
    shards_.fill(empty);
  }

  const V* find(std::string_view key) const {
    const HashedKey k = hashed(key);
    const Shard& s = *shards_[shard_of(k)];
    auto it = s.find(k);
    return it == s.end() ? nullptr : &it->second;
  }
  size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : shards_)
      for (const auto& [k, v] : *s) f(k, v);
  }

  // The high bits choose the shard: the low ones choose the bucket inside it.
  static HashedKey hashed(std::string_view key) { return {key, Hash{}(key)}; }
  static size_t shard_of(const HashedKey& k) { return (k.hash >> 20) % N; }
  static size_t shard_of(std::string_view key) { return shard_of(hashed(key)); }

 private:
  friend class ShardedMapWriter<V, N, Hash>;
  std::array<std::shared_ptr<const Shard>, N> shards_;
  size_t size_ = 0;
};

// The single writer's side: mutates shards it owns, copies a shard on its first write after a publish.
template <class V, size_t N, class Hash>
class ShardedMapWriter {
 public:
  using Map = ShardedMap<V, N, Hash>;
  using Shard = typename Map::Shard;

  ShardedMapWriter() {
    for (auto& s : shards_) s = std::make_shared<Shard>();
    owned_.set();
  }

  const V* find(std::string_view key) const {
    const HashedKey k = Map::hashed(key);
    const Shard& s = *shards_[Map::shard_of(k)];
    auto it = s.find(k);
    return it == s.end() ? nullptr : &it->second;
  }
  // An update finds its node with the one hash; only an insert hashes again (try_emplace has no
  // heterogeneous form before C++26), and inserts are rare next to updates.
  void put(const std::string& key, V value) {
    const HashedKey k = Map::hashed(key);
    Shard& s = own(Map::shard_of(k));
    if (auto it = s.find(k); it != s.end()) {
      it->second = std::move(value);
      return;
    }
    s.emplace(key, std::move(value));
    ++size_;
  }
  bool erase(std::string_view key) {
    const HashedKey k = Map::hashed(key);
    const size_t i = Map::shard_of(k);
    if (shards_[i]->find(k) == shards_[i]->end()) return false;
    Shard& s = own(i);
    s.erase(s.find(k));
    --size_;
    return true;
  }
  size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : shards_)
      for (const auto& [k, v] : *s) f(k, v);
  }

  Map publish() {
    Map view;
    for (size_t i = 0; i < N; ++i) view.shards_[i] = shards_[i];
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
