#include "kube/client/event_splitter.h"

namespace kext::kube {

void EventSplitter::reset() {
  buf_.clear();
  depth_ = 0;
  in_string_ = escape_ = false;
  error_.clear();
}

bool EventSplitter::feed(std::string_view data, const std::function<void(std::string_view)>& on_event) {
  size_t i = 0;
  while (i < data.size()) {
    if (depth_ == 0) {
      // Between events: skip the separators, start an event at '{'.
      char c = data[i];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        ++i;
        continue;
      }
      if (c != '{') {
        error_ = std::string("unexpected byte '") + c + "' between watch events";
        return false;
      }
    }
    // Inside an event: scan until its closing brace or the end of this piece.
    size_t start = i;
    bool done = false;
    for (; i < data.size(); ++i) {
      char c = data[i];
      if (in_string_) {
        if (escape_) escape_ = false;
        else if (c == '\\') escape_ = true;
        else if (c == '"') in_string_ = false;
        continue;
      }
      if (c == '"') in_string_ = true;
      else if (c == '{' || c == '[') ++depth_;
      else if ((c == '}' || c == ']') && --depth_ == 0) {
        ++i;
        done = true;
        break;
      }
    }
    std::string_view piece = data.substr(start, i - start);
    if (done && buf_.empty()) {
      on_event(piece);  // the common case: a whole event inside one piece, no copy
    } else {
      buf_.append(piece);
      if (buf_.size() > max_) {
        error_ = "watch event larger than " + std::to_string(max_) + " bytes";
        return false;
      }
      if (done) {
        on_event(buf_);
        buf_.clear();
      }
    }
  }
  return true;
}

}  // namespace kext::kube
