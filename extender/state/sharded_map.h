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

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <class V, size_t N>
class ShardedMapWriter;

template <class V, size_t N>
class ShardedMap {
 public:
  using Shard = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

  ShardedMap() {
    auto empty = std::make_shared<const Shard>();
    shards_.fill(empty);
  }

  const V* find(std::string_view key) const {
    const Shard& s = *shards_[shard_of(key)];
    auto it = s.find(key);
    return it == s.end() ? nullptr : &it->second;
  }
  size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : shards_)
      for (const auto& [k, v] : *s) f(k, v);
  }

  // The high bits choose the shard: the low ones choose the bucket inside it.
  static size_t shard_of(std::string_view key) { return (StringHash{}(key) >> 20) % N; }

 private:
  friend class ShardedMapWriter<V, N>;
  std::array<std::shared_ptr<const Shard>, N> shards_;
  size_t size_ = 0;
};

// The single writer's side: mutates shards it owns, copies a shard on its first write after a publish.
template <class V, size_t N>
class ShardedMapWriter {
 public:
  using Shard = typename ShardedMap<V, N>::Shard;

  ShardedMapWriter() {
    for (auto& s : shards_) s = std::make_shared<Shard>();
    owned_.set();
  }

  const V* find(std::string_view key) const {
    const Shard& s = *shards_[ShardedMap<V, N>::shard_of(key)];
    auto it = s.find(key);
    return it == s.end() ? nullptr : &it->second;
  }
  void put(const std::string& key, V value) {
    Shard& s = own(ShardedMap<V, N>::shard_of(key));
    auto [it, inserted] = s.try_emplace(key, std::move(value));
    if (inserted) ++size_;
    else it->second = std::move(value);
  }
  bool erase(std::string_view key) {
    size_t i = ShardedMap<V, N>::shard_of(key);
    if (shards_[i]->find(key) == shards_[i]->end()) return false;
    Shard& s = own(i);
    s.erase(s.find(key));
    --size_;
    return true;
  }
  size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& s : shards_)
      for (const auto& [k, v] : *s) f(k, v);
  }

  ShardedMap<V, N> publish() {
    ShardedMap<V, N> view;
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
