#pragma once
// One shard of ShardedMap: a string-keyed open-addressing table (linear probing, backward-shift
// deletion, at most 3/4 full) whose slot holds the key's hash, the key and the value together.
//
// Why not std::unordered_map: resolving a node name there reads the bucket array, then the node before
// the bucket's first (libstdc++ keeps one singly linked list and buckets point at predecessors), then
// the node itself: three cold cache lines per name. Here a name costs the one slot it lands in (64 bytes
// for a 15-character key and a shared_ptr value), and a probe that passes another key compares the
// stored hash before any string. At 500 names of 5000 nodes the node-name table was 22 % of prioritize.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kext {

// A key whose hash is already known: ShardedMap hashes a key once, takes the shard from the high bits
// and hands the same hash to the shard, whose slot comes from the low bits.
struct HashedKey {
  std::string_view key;
  size_t hash;
};

template <class V>
class FlatShard {
 public:
  const V* find(const HashedKey& k) const {
    const size_t i = index_of(k);
    return i == kAbsent ? nullptr : &slots_[i].value;
  }
  V* find(const HashedKey& k) { return const_cast<V*>(std::as_const(*this).find(k)); }

  // The two reads a find of this key will wait on, issued ahead (ShardedMap::find_many): the key's
  // home slot, then, once that is in cache, the bytes of the first key in its run with the same hash
  // (a name past std::string's 15-byte small buffer lives on the heap, one more cold line).
  void prefetch_home(const HashedKey& k) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[k.hash & mask()]);
  }
  void prefetch_key(const HashedKey& k) const {
    if (slots_.empty()) return;
    for (size_t i = k.hash & mask(); slots_[i].used; i = (i + 1) & mask()) {
      if (slots_[i].hash == k.hash) {
        __builtin_prefetch(slots_[i].key.data());
        return;
      }
    }
  }

  // Returns true when the key was new.
  bool put(const HashedKey& k, V value) {
    if (V* v = find(k)) {
      *v = std::move(value);
      return false;
    }
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    size_t i = k.hash & mask();
    while (slots_[i].used) i = (i + 1) & mask();
    slots_[i] = Slot{true, k.hash, std::string(k.key), std::move(value)};
    ++size_;
    return true;
  }

  // Backward-shift deletion (no tombstones): each later slot of the same run moves into the hole when
  // its home is not cyclically inside (hole, slot], so every key stays reachable from its home without
  // crossing an empty slot, and lookups never slow down with churn.
  bool erase(const HashedKey& k) {
    size_t hole = index_of(k);
    if (hole == kAbsent) return false;
    for (size_t j = (hole + 1) & mask(); slots_[j].used; j = (j + 1) & mask()) {
      const size_t home = slots_[j].hash & mask();
      // Distances from the hole, cyclically: the slot may move back only if its home is not after the hole.
      if (((j - home) & mask()) >= ((j - hole) & mask())) {
        slots_[hole] = std::move(slots_[j]);
        hole = j;
      }
    }
    slots_[hole] = Slot{};  // releases the key and the value now, not at the next overwrite
    --size_;
    return true;
  }

  size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.used) f(s.key, s.value);
  }

 private:
  struct Slot {
    bool used = false;
    size_t hash = 0;
    std::string key;
    V value{};
  };

  static constexpr size_t kAbsent = static_cast<size_t>(-1);

  size_t mask() const { return slots_.size() - 1; }

  // The key's slot, or kAbsent: its run from its home ends at the first empty slot.
  size_t index_of(const HashedKey& k) const {
    if (slots_.empty()) return kAbsent;
    for (size_t i = k.hash & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (!s.used) return kAbsent;
      if (s.hash == k.hash && s.key == k.key) return i;
    }
  }

  // Power-of-two capacity; the stored hashes re-place every key without hashing a string again.
  void grow() {
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots_.empty() ? 8 : slots_.size() * 2));
    for (Slot& s : old) {
      if (!s.used) continue;
      size_t i = s.hash & mask();
      while (slots_[i].used) i = (i + 1) & mask();
      slots_[i] = std::move(s);
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace kext
