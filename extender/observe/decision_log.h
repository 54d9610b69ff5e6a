#pragma once
// The last decisions, for GET /debug/decisions, bounded by count and by memory: a decision over
// thousands of nodes holds a score per node, so a count alone would let the log grow without bound.
// record() holds the lock only to link and unlink entries; evicted decisions are freed after it.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "extender/observe/decision.h"

namespace kext {

class DecisionLog {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{64} << 20;

  explicit DecisionLog(size_t capacity, size_t max_bytes = kDefaultMaxBytes);

  size_t capacity() const { return capacity_; }
  // Assigns the sequence number.
  void record(std::unique_ptr<Decision> decision);
  // Newest first, at most `limit`, only the pod "namespace/name" when pod is non-empty.
  std::vector<std::shared_ptr<const Decision>> last(size_t limit, std::string_view pod = {}) const;
  size_t size() const;
  size_t bytes() const;

 private:
  struct Entry {
    std::shared_ptr<const Decision> decision;
    size_t bytes = 0;
  };
  const size_t capacity_;
  const size_t max_bytes_;
  mutable std::mutex mutex_;
  std::deque<Entry> entries_;  // oldest first
  size_t bytes_ = 0;
  uint64_t next_seq_ = 1;
};

}  // namespace kext
