#include "extender/observe/decision_log.h"

#include <algorithm>

namespace kext {

DecisionLog::DecisionLog(size_t capacity, size_t max_bytes)
    : capacity_(std::max<size_t>(capacity, 1)), max_bytes_(max_bytes) {}

void DecisionLog::record(std::unique_ptr<Decision> decision) {
  if (!decision) return;
  const size_t bytes = approximate_bytes(*decision);
  std::vector<std::shared_ptr<const Decision>> evicted;  // destroyed after the lock is released
  {
    std::lock_guard lock(mutex_);
    decision->seq = next_seq_++;
    entries_.push_back({std::shared_ptr<const Decision>(std::move(decision)), bytes});
    bytes_ += bytes;
    // The newest entry always stays, even alone over the budget.
    while (entries_.size() > 1 && (entries_.size() > capacity_ || bytes_ > max_bytes_)) {
      bytes_ -= entries_.front().bytes;
      evicted.push_back(std::move(entries_.front().decision));
      entries_.pop_front();
    }
  }
}

std::vector<std::shared_ptr<const Decision>> DecisionLog::last(size_t limit, std::string_view pod) const {
  std::vector<std::shared_ptr<const Decision>> out;
  std::lock_guard lock(mutex_);
  for (auto it = entries_.rbegin(); it != entries_.rend() && out.size() < limit; ++it) {
    if (pod.empty() || it->decision->pod == pod) out.push_back(it->decision);
  }
  return out;
}

size_t DecisionLog::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

size_t DecisionLog::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace kext
