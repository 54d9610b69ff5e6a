#pragma once
// A binary heap of values with a unique string key each, and a key -> position index, so that push,
// pop, erase-by-key and update-by-key are all O(log n) and lookup is O(1). This is what
// kube-scheduler's pkg/scheduler/internal/heap/heap.go (Heap with keyFunc and an items map) provides to
// the scheduling queue; Go's container/heap does the sifting there.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kext::sim {

// `KeyOf` maps a const T& to its key (a const std::string&); `Less(a, b)` is true when a comes out
// before b. The order must be total over the values present, or top() is not deterministic.
template <typename T, typename KeyOf, typename Less>
class IndexedHeap {
 public:
  explicit IndexedHeap(KeyOf key_of = {}, Less less = {})
      : key_of_(std::move(key_of)), less_(std::move(less)) {}

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  bool contains(std::string_view key) const { return index_.find(std::string(key)) != index_.end(); }

  // The value with this key, or nullptr.
  const T* get(std::string_view key) const {
    auto it = index_.find(std::string(key));
    return it == index_.end() ? nullptr : &items_[it->second];
  }

  // The first value; the heap must not be empty.
  const T& top() const {
    if (items_.empty()) throw std::out_of_range("IndexedHeap::top on an empty heap");
    return items_.front();
  }

  // Adds `v`; a value with the same key must not be present (heap.go Add would update it instead,
  // but the queue never relies on that and a duplicate here is a bug worth seeing).
  void push(T v) {
    std::string key = key_of_(v);
    if (index_.count(key) != 0) throw std::invalid_argument("IndexedHeap::push: key already present: " + key);
    items_.push_back(std::move(v));
    index_.emplace(std::move(key), items_.size() - 1);
    sift_up(items_.size() - 1);
  }

  // Removes and returns the first value; the heap must not be empty.
  T pop() {
    if (items_.empty()) throw std::out_of_range("IndexedHeap::pop on an empty heap");
    return remove_at(0);
  }

  // Removes the value with this key and returns it, if present.
  bool erase(std::string_view key, T* out = nullptr) {
    auto it = index_.find(std::string(key));
    if (it == index_.end()) return false;
    T v = remove_at(it->second);
    if (out != nullptr) *out = std::move(v);
    return true;
  }

  // The values in heap order (not sorted); for listing pending pods.
  const std::vector<T>& items() const { return items_; }

 private:
  T remove_at(size_t i) {
    T out = std::move(items_[i]);
    index_.erase(key_of_(out));
    const size_t last = items_.size() - 1;
    if (i != last) {
      items_[i] = std::move(items_[last]);
      index_[key_of_(items_[i])] = i;
      items_.pop_back();
      // The moved value may belong above or below its new place.
      if (!sift_up(i)) sift_down(i);
    } else {
      items_.pop_back();
    }
    return out;
  }

  void swap_at(size_t a, size_t b) {
    std::swap(items_[a], items_[b]);
    index_[key_of_(items_[a])] = a;
    index_[key_of_(items_[b])] = b;
  }

  // Returns whether the value moved.
  bool sift_up(size_t i) {
    bool moved = false;
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!less_(items_[i], items_[parent])) break;
      swap_at(i, parent);
      i = parent;
      moved = true;
    }
    return moved;
  }

  void sift_down(size_t i) {
    const size_t n = items_.size();
    for (;;) {
      size_t best = i;
      const size_t l = 2 * i + 1, r = 2 * i + 2;
      if (l < n && less_(items_[l], items_[best])) best = l;
      if (r < n && less_(items_[r], items_[best])) best = r;
      if (best == i) return;
      swap_at(i, best);
      i = best;
    }
  }

  KeyOf key_of_;
  Less less_;
  std::vector<T> items_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace kext::sim
