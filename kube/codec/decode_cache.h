#pragma once
// Decoded objects keyed by the hash of their JSON bytes: recognising bytes seen before skips parsing and
// decoding them. A 64-bit hash plus the length identifies the bytes (a false match needs a 2^-64
// accident; the bytes come from the scheduler, which could send any object anyway).
//   - Nodes: with nodeCacheCapable: false the scheduler sends every node object in full, in filter and
//     again in prioritize, and the same bytes for pod after pod until a node's status changes.
//   - Pods: the scheduler sends the pod it is placing to filter and then, in the same cycle, the same
//     bytes to prioritize (pkg/scheduler/schedule_one.go findNodesThatPassExtenders, then
//     prioritizeNodes); the pod was a third of prioritize's decoding.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "algorithms/model.h"

namespace kext {

template <class T>
class DecodeCache {
 public:
  // capacity: entries kept; 0 disables the cache.
  explicit DecodeCache(size_t capacity = 65536) : capacity_per_shard_(capacity / kShards) {}

  std::shared_ptr<const T> find(std::string_view bytes, uint64_t hash) const {
    if (!enabled()) return nullptr;
    Shard& s = shard(hash);
    std::lock_guard lock(s.mu);
    auto it = s.entries.find(Key{hash, bytes.size()});
    return it == s.entries.end() ? nullptr : it->second;
  }
  void insert(std::string_view bytes, uint64_t hash, std::shared_ptr<const T> value) {
    if (!enabled()) return;
    Shard& s = shard(hash);
    std::lock_guard lock(s.mu);
    // Generational eviction: a full shard starts over. What is cached is reused soon after it is
    // decoded (a node until its next heartbeat, a pod in the next request), so the working set
    // refills within a request or two; no LRU bookkeeping on hits.
    if (s.entries.size() >= capacity_per_shard_) s.entries.clear();
    s.entries.insert_or_assign(Key{hash, bytes.size()}, std::move(value));
  }
  bool enabled() const { return capacity_per_shard_ > 0; }

 private:
  static constexpr size_t kShards = 16;
  struct Key {
    uint64_t hash;
    size_t size;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return static_cast<size_t>(k.hash); }
  };
  struct Shard {
    mutable std::mutex mu;
    std::unordered_map<Key, std::shared_ptr<const T>, KeyHash> entries;
  };
  Shard& shard(uint64_t hash) const { return shards_[(hash >> 56) % kShards]; }

  size_t capacity_per_shard_;
  mutable std::array<Shard, kShards> shards_;
};

using NodeDecodeCache = DecodeCache<Node>;
using PodDecodeCache = DecodeCache<Pod>;

}  // namespace kext
