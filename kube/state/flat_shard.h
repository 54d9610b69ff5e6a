#pragma once
// One shard of ShardedMap: a string-keyed open-addressing table (linear probing, backward-shift
// deletion, at most 3/4 full) whose slot holds the value, the key's hash and the key's bytes together.
//
// Why not std::unordered_map: resolving a node name there reads the bucket array, then the node before
// the bucket's first (libstdc++ keeps one singly linked list and buckets point at predecessors), then
// the node itself: three cold cache lines per name. Here a name costs the slot it lands in, and a probe
// that passes another key compares the stored hash before any string. At 500 names of 5000 nodes the
// node-name table was a large share of prioritize (docs/performance.md "Figures behind design choices in the
// code").
//
// Why the key's bytes live in the slot: a std::string key keeps anything past 15 bytes on the heap, so
// a pod's UID (36 bytes) was one more allocation per pod and a cloud node name (ip-10-0-12-34.eu-west-1
// .compute.internal, 25-50 bytes) one more cold line per name resolved. A key up to kInlineKey bytes is
// stored in the slot (SlotBytes 64 keeps 40 bytes, a UID fits; 128 keeps 104, any node name seen in
// practice); a longer one is stored on the heap, as before. Measured with the shard views below:
// bench/watch_bench.cc BM_CacheMemory a little smaller for 5000 nodes and 150,000 pods; filter and
// prioritize CPU at 500 cloud names of 5000 nodes a little lower, within the VM's noise (perf had put
// memcmp under find_nodes, but the staged prefetch already hid most of that line; docs/performance.md
// "Figures behind design choices in the code").
#include <cstddef>
#include <cstdint>
#include <cstring>
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

template <class V, size_t SlotBytes = 64>
class FlatShard {
  // The slot keeps the low 32 bits of the hash: a probe compares them before the key, and they place
  // every key again when the table grows (a shard never holds 2^32 slots).
  // The key's bytes start on a pointer boundary: a long key's pointer must be where a leak checker
  // looks for pointers.
  static constexpr size_t kHeader =
      (sizeof(V) + 2 * sizeof(uint32_t) + alignof(char*) - 1) / alignof(char*) * alignof(char*);

 public:
  static constexpr size_t kInlineKey = SlotBytes - kHeader;
  static_assert(SlotBytes % 64 == 0 && kInlineKey >= sizeof(char*), "a slot is whole cache lines");

  FlatShard() = default;
  FlatShard(const FlatShard&) = default;  // ShardedMapWriter copies a published shard on its first write
  FlatShard& operator=(const FlatShard&) = default;
  FlatShard(FlatShard&&) noexcept = default;
  FlatShard& operator=(FlatShard&&) noexcept = default;

 private:
  struct Slot;

 public:
  // What a reader needs of the table: where its slots are, and the mask. ShardedMap keeps one per shard
  // beside the pointers that own the shards, so that resolving a name reads the slot without first
  // reading the shard object: a cold line for each of the ~220 shards that 500 names of 5000 nodes
  // touch, read before the slot's prefetch could even be issued.
  class View {
   public:
    View() = default;
    const V* find(const HashedKey& k) const {
      const size_t i = index_of(k);
      return i == kAbsent ? nullptr : &slots_[i].value;
    }
    // The reads a find of this key will wait on, issued ahead (ShardedMap::find_many): the key's home
    // slot (every line of it: an inline key can reach into the second), then, once that is in cache, the
    // heap bytes of the first key in its run with the same hash if that key is too long for its slot.
    void prefetch_home(const HashedKey& k) const {
      if (!slots_) return;
      const char* slot = reinterpret_cast<const char*>(&slots_[k.hash & mask_]);
      for (size_t line = 0; line < SlotBytes; line += 64) __builtin_prefetch(slot + line);
    }
    void prefetch_key(const HashedKey& k) const {
      if (!slots_) return;
      for (size_t i = k.hash & mask_; slots_[i].used(); i = (i + 1) & mask_) {
        if (slots_[i].hash == static_cast<uint32_t>(k.hash)) {
          if (!slots_[i].is_inline()) __builtin_prefetch(slots_[i].heap());
          return;
        }
      }
    }

   private:
    friend class FlatShard;
    View(const Slot* slots, size_t mask) : slots_(slots), mask_(mask) {}

    // The key's slot, or kAbsent: its run from its home ends at the first empty slot.
    size_t index_of(const HashedKey& k) const {
      if (!slots_) return kAbsent;
      const auto hash = static_cast<uint32_t>(k.hash);
      for (size_t i = k.hash & mask_;; i = (i + 1) & mask_) {
        const Slot& s = slots_[i];
        if (!s.used()) return kAbsent;
        if (s.hash == hash && s.key() == k.key) return i;
      }
    }

    const Slot* slots_ = nullptr;  // null while the table is empty
    size_t mask_ = 0;
  };
  // Valid while this shard lives and is not written to.
  View view() const { return slots_.empty() ? View() : View(slots_.data(), mask()); }

  const V* find(const HashedKey& k) const { return view().find(k); }
  V* find(const HashedKey& k) { return const_cast<V*>(std::as_const(*this).find(k)); }

  // Returns true when the key was new.
  bool put(const HashedKey& k, V value) {
    if (V* v = find(k)) {
      *v = std::move(value);
      return false;
    }
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    size_t i = k.hash & mask();
    while (slots_[i].used()) i = (i + 1) & mask();
    slots_[i].assign(k, std::move(value));
    ++size_;
    return true;
  }

  // Backward-shift deletion (no tombstones): each later slot of the same run moves into the hole when
  // its home is not cyclically inside (hole, slot], so every key stays reachable from its home without
  // crossing an empty slot, and lookups never slow down with churn.
  bool erase(const HashedKey& k) {
    size_t hole = view().index_of(k);
    if (hole == kAbsent) return false;
    for (size_t j = (hole + 1) & mask(); slots_[j].used(); j = (j + 1) & mask()) {
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
      if (s.used()) f(s.key(), s.value);
  }

 private:
  // alignas: a slot starts a cache line, so a probe's first read is one line and an inline key of up to
  // SlotBytes - kHeader bytes is all the slot's lines.
  struct alignas(64) Slot {
    V value{};
    uint32_t hash = 0;
    uint32_t tag = 0;  // 0: empty; else the key's length + 1
    // The key's bytes when they fit, else a pointer to a new[]'d copy.
    alignas(char*) char bytes[kInlineKey];

    Slot() = default;
    Slot(const Slot& o) : value(o.value), hash(o.hash) {
      if (o.used()) set_key(o.key());
    }
    Slot(Slot&& o) noexcept : value(std::move(o.value)), hash(o.hash), tag(o.tag) { take_key_from(o); }
    Slot& operator=(const Slot& o) {
      if (this != &o) *this = Slot(o);
      return *this;
    }
    Slot& operator=(Slot&& o) noexcept {
      if (this != &o) {
        release();
        value = std::move(o.value);
        hash = o.hash;
        tag = o.tag;
        take_key_from(o);
      }
      return *this;
    }
    ~Slot() { release(); }

    bool used() const { return tag != 0; }
    size_t size() const { return tag - 1; }
    bool is_inline() const { return size() <= kInlineKey; }
    const char* heap() const {
      const char* p;
      std::memcpy(&p, bytes, sizeof p);
      return p;
    }
    std::string_view key() const { return {is_inline() ? bytes : heap(), size()}; }

    void assign(const HashedKey& k, V v) {
      release();
      value = std::move(v);
      hash = static_cast<uint32_t>(k.hash);
      set_key(k.key);
    }

   private:
    // On an empty slot (tag 0): nothing to release.
    void set_key(std::string_view key) {
      tag = static_cast<uint32_t>(key.size() + 1);
      if (is_inline()) {
        std::memcpy(bytes, key.data(), key.size());
      } else {
        char* p = new char[key.size()];
        std::memcpy(p, key.data(), key.size());
        std::memcpy(bytes, &p, sizeof p);
      }
    }
    void take_key_from(Slot& o) {
      if (!used()) return;
      std::memcpy(bytes, o.bytes, is_inline() ? size() : sizeof(char*));
      o.tag = 0;  // the heap bytes, if any, are this slot's now
    }
    void release() {
      if (used() && !is_inline()) delete[] heap();
      tag = 0;
    }
  };
  static_assert(sizeof(Slot) == SlotBytes);

  static constexpr size_t kAbsent = static_cast<size_t>(-1);

  size_t mask() const { return slots_.size() - 1; }

  // Power-of-two capacity; the stored hashes re-place every key without hashing a string again.
  void grow() {
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots_.empty() ? 8 : slots_.size() * 2));
    for (Slot& s : old) {
      if (!s.used()) continue;
      size_t i = s.hash & mask();
      while (slots_[i].used()) i = (i + 1) & mask();
      slots_[i] = std::move(s);
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace kext
