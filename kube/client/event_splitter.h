#pragma once
// Cuts a watch stream into its JSON events as bytes arrive: chunk boundaries fall anywhere, events may
// or may not be newline-separated. Tracks string/escape state so braces inside strings do not count.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace kext::kube {

class EventSplitter {
 public:
  explicit EventSplitter(size_t max_event_bytes = 64u << 20) : max_(max_event_bytes) {}

  // Calls on_event with each complete top-level JSON object. Returns false (and stops) on bytes that
  // cannot start an event or an event over the size limit; error() says which.
  bool feed(std::string_view data, const std::function<void(std::string_view)>& on_event);
  // Bytes of an event begun but not finished (a stream that ends with some is truncated).
  size_t pending() const { return buf_.size(); }
  const std::string& error() const { return error_; }
  void reset();

 private:
  std::string buf_;
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  size_t max_;
  std::string error_;
};

}  // namespace kext::kube
