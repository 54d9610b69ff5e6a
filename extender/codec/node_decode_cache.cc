#include "extender/codec/node_decode_cache.h"

namespace kext {

std::shared_ptr<const Node> NodeDecodeCache::find(std::string_view bytes, uint64_t hash) const {
  if (!enabled()) return nullptr;
  Shard& s = shard(hash);
  std::lock_guard lock(s.mu);
  auto it = s.entries.find(Key{hash, bytes.size()});
  return it == s.entries.end() ? nullptr : it->second;
}

void NodeDecodeCache::insert(std::string_view bytes, uint64_t hash, std::shared_ptr<const Node> node) {
  if (!enabled()) return;
  Shard& s = shard(hash);
  std::lock_guard lock(s.mu);
  // Generational eviction: a full shard starts over. Node objects change slowly (status
  // heartbeats), so the working set refills within one request; no LRU bookkeeping on hits.
  if (s.entries.size() >= capacity_per_shard_) s.entries.clear();
  s.entries.insert_or_assign(Key{hash, bytes.size()}, std::move(node));
}

}  // namespace kext
