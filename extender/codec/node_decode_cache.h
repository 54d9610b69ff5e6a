#pragma once
// Decoded Node objects keyed by the hash of their JSON bytes. With nodeCacheCapable: false the
// scheduler sends every node object in full, in filter and again in prioritize, and the same bytes
// for pod after pod until a node's status changes; recognising the bytes skips parsing and decoding
// them. A 64-bit hash plus the length identifies the bytes (a false match needs a 2^-64 accident;
// the bytes come from the scheduler, which could send any node object anyway).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "algorithms/model.h"

namespace kext {

class NodeDecodeCache {
 public:
  // capacity: entries kept; 0 disables the cache.
  explicit NodeDecodeCache(size_t capacity = 65536) : capacity_per_shard_(capacity / kShards) {}

  std::shared_ptr<const Node> find(std::string_view bytes, uint64_t hash) const;
  void insert(std::string_view bytes, uint64_t hash, std::shared_ptr<const Node> node);
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
    std::unordered_map<Key, std::shared_ptr<const Node>, KeyHash> entries;
  };
  Shard& shard(uint64_t hash) const { return shards_[(hash >> 56) % kShards]; }

  size_t capacity_per_shard_;
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace kext
