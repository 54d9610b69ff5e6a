#pragma once
// A validating JSON scanner that builds nothing: it finds where values begin and end, so a large
// envelope can be cut into slices without a DOM, and only the slices that matter get parsed.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace kext::json_scan {

inline constexpr size_t kInvalid = static_cast<size_t>(-1);

// Where the containers near the root begin and end, recorded while validating, so walking them
// later never rescans their bytes.
class Spans {
 public:
  // End of the container that begins at `begin`, or kInvalid if it was not recorded.
  size_t end_of(size_t begin) const;

 private:
  friend size_t skip_value(std::string_view, size_t, Spans*, size_t);
  std::vector<std::pair<size_t, size_t>> spans_;  // sorted by begin: opened in text order
};

// Index of the first non-whitespace byte at or after pos (s.size() if none).
size_t skip_ws(std::string_view s, size_t pos);

// End (one past the last byte) of the JSON value starting at s[pos], or kInvalid if the text there is
// not one complete RFC 8259 value. Iterative, so nesting depth costs memory, never stack. With
// spans, records every container up to max_depth levels deep (the value itself is level 1).
size_t skip_value(std::string_view s, size_t pos, Spans* spans = nullptr, size_t max_depth = 0);

// Walks an object's members: calls member(key, value) with the raw key (between the quotes, escapes
// not decoded) and the value's slice of s. Returns false if s[pos] does not start a valid object or
// if member returns false. Container values recorded in spans are skipped without rescanning (and
// without revalidating: spans come from a validating pass over the same text).
template <typename Fn>
bool for_each_member(std::string_view s, size_t pos, const Spans* spans, Fn&& member);

// Walks an array's elements, calling element(slice). Returns false if s[pos] is not a valid array.
template <typename Fn>
bool for_each_element(std::string_view s, size_t pos, const Spans* spans, Fn&& element);

// A fast 64-bit hash of bytes (8 at a time), for recognising repeated slices.
uint64_t hash_bytes(std::string_view s);

// Implementation of the templates.
size_t skip_string(std::string_view s, size_t pos);

inline size_t skip_known(std::string_view s, size_t pos, const Spans* spans) {
  if (spans && pos < s.size() && (s[pos] == '{' || s[pos] == '[')) {
    size_t end = spans->end_of(pos);
    if (end != kInvalid) return end;
  }
  return skip_value(s, pos);
}

// Walks the items of the container that starts at s[pos] with `open` and ends with `close`, items
// separated by commas: item(pos) reads the item at pos and returns the position after it, or kInvalid.
// Returns the end of the container (one past `close`), or kInvalid.
template <typename Item>
size_t walk_items(std::string_view s, size_t pos, char open, char close, Item&& item) {
  pos = skip_ws(s, pos);
  if (pos >= s.size() || s[pos] != open) return kInvalid;
  pos = skip_ws(s, pos + 1);
  if (pos < s.size() && s[pos] == close) return pos + 1;
  while (true) {
    if (pos >= s.size()) return kInvalid;
    pos = item(pos);
    if (pos == kInvalid) return kInvalid;
    pos = skip_ws(s, pos);
    if (pos >= s.size()) return kInvalid;
    if (s[pos] == close) return pos + 1;
    if (s[pos] != ',') return kInvalid;
    pos = skip_ws(s, pos + 1);
  }
}

template <typename Item>
bool for_each_item(std::string_view s, size_t pos, char open, char close, Item&& item) {
  return walk_items(s, pos, open, close, std::forward<Item>(item)) != kInvalid;
}

template <typename Fn>
bool for_each_member(std::string_view s, size_t pos, const Spans* spans, Fn&& member) {
  return for_each_item(s, pos, '{', '}', [&](size_t at) {
    if (at >= s.size() || s[at] != '"') return kInvalid;
    size_t key_end = skip_string(s, at);
    if (key_end == kInvalid) return kInvalid;
    std::string_view key = s.substr(at + 1, key_end - at - 2);
    at = skip_ws(s, key_end);
    if (at >= s.size() || s[at] != ':') return kInvalid;
    size_t value_begin = skip_ws(s, at + 1);
    size_t value_end = skip_known(s, value_begin, spans);
    if (value_end == kInvalid) return kInvalid;
    if (!member(key, s.substr(value_begin, value_end - value_begin))) return kInvalid;
    return value_end;
  });
}

template <typename Fn>
bool for_each_element(std::string_view s, size_t pos, const Spans* spans, Fn&& element) {
  return for_each_item(s, pos, '[', ']', [&](size_t at) {
    size_t end = skip_known(s, at, spans);
    if (end == kInvalid) return kInvalid;
    element(s.substr(at, end - at));
    return end;
  });
}

}  // namespace kext::json_scan
