#include "json/scan.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "json/word.h"

namespace kext::json_scan {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

size_t skip_digits(std::string_view s, size_t pos) {
  while (pos < s.size() && is_digit(s[pos])) ++pos;
  return pos;
}

size_t skip_number(std::string_view s, size_t pos) {
  if (pos < s.size() && s[pos] == '-') ++pos;
  if (pos >= s.size()) return kInvalid;
  if (s[pos] == '0') {
    ++pos;
  } else if (is_digit(s[pos])) {
    pos = skip_digits(s, pos);
  } else {
    return kInvalid;
  }
  if (pos < s.size() && s[pos] == '.') {
    size_t after = skip_digits(s, pos + 1);
    if (after == pos + 1) return kInvalid;
    pos = after;
  }
  if (pos < s.size() && (s[pos] == 'e' || s[pos] == 'E')) {
    ++pos;
    if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) ++pos;
    size_t after = skip_digits(s, pos);
    if (after == pos) return kInvalid;
    pos = after;
  }
  return pos;
}

size_t skip_literal(std::string_view s, size_t pos, std::string_view word) {
  return s.substr(pos, word.size()) == word ? pos + word.size() : kInvalid;
}

// A scalar, or kInvalid; containers are handled by skip_value's loop.
size_t skip_scalar(std::string_view s, size_t pos) {
  switch (s[pos]) {
    case '"':
      return skip_string(s, pos);
    case 't':
      return skip_literal(s, pos, "true");
    case 'f':
      return skip_literal(s, pos, "false");
    case 'n':
      return skip_literal(s, pos, "null");
    default:
      return skip_number(s, pos);
  }
}

}  // namespace

size_t skip_ws(std::string_view s, size_t pos) {
  while (pos < s.size() && is_ws(s[pos])) ++pos;
  return pos;
}

size_t skip_string(std::string_view s, size_t pos) {
  // s[pos] == '"'
  ++pos;
  while (pos < s.size()) {
    // Strings are most of a Kubernetes object's bytes: skip 8 plain bytes at a time.
    pos = json::skip_plain(s, pos);
    if (pos >= s.size()) break;
    if (s[pos] == '"') return pos + 1;
    if (s[pos] != '\\') return kInvalid;  // a control character
    if (pos + 1 >= s.size()) return kInvalid;
    switch (s[pos + 1]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        pos += 2;
        break;
      case 'u':
        if (pos + 6 > s.size()) return kInvalid;
        for (size_t i = pos + 2; i < pos + 6; ++i) {
          if (!is_hex(s[i])) return kInvalid;
        }
        pos += 6;
        break;
      default:
        return kInvalid;
    }
  }
  return kInvalid;
}

size_t Spans::end_of(size_t begin) const {
  auto it = std::lower_bound(spans_.begin(), spans_.end(), std::pair<size_t, size_t>{begin, 0});
  return it != spans_.end() && it->first == begin ? it->second : kInvalid;
}

size_t skip_value(std::string_view s, size_t pos, Spans* spans, size_t max_depth) {
  // One byte per open container ('{' or '['), and for the recorded ones their index in spans.
  std::string stack;
  std::vector<size_t> open_spans;
  auto close = [&] {
    if (spans && stack.size() <= max_depth) {
      spans->spans_[open_spans.back()].second = pos + 1;
      open_spans.pop_back();
    }
    stack.pop_back();
  };
  while (true) {
    pos = skip_ws(s, pos);
    if (pos >= s.size()) return kInvalid;
    const char c = s[pos];
    if (c == '{' || c == '[') {
      stack.push_back(c);
      if (spans && stack.size() <= max_depth) {
        open_spans.push_back(spans->spans_.size());
        spans->spans_.emplace_back(pos, kInvalid);
      }
      pos = skip_ws(s, pos + 1);
      if (pos >= s.size()) return kInvalid;
      if (s[pos] == (c == '{' ? '}' : ']')) {
        close();
        ++pos;
      } else if (c == '{') {
        // First key.
        if (s[pos] != '"') return kInvalid;
        pos = skip_string(s, pos);
        if (pos == kInvalid) return kInvalid;
        pos = skip_ws(s, pos);
        if (pos >= s.size() || s[pos] != ':') return kInvalid;
        ++pos;
        continue;  // to the member's value
      } else {
        continue;  // to the first element
      }
    } else {
      pos = skip_scalar(s, pos);
      if (pos == kInvalid) return kInvalid;
    }
    // A value just ended: close containers or move to the next member/element.
    while (true) {
      if (stack.empty()) return pos;
      pos = skip_ws(s, pos);
      if (pos >= s.size()) return kInvalid;
      const char open = stack.back();
      if (s[pos] == (open == '{' ? '}' : ']')) {
        close();
        ++pos;
        continue;
      }
      if (s[pos] != ',') return kInvalid;
      pos = skip_ws(s, pos + 1);
      if (open == '{') {
        if (pos >= s.size() || s[pos] != '"') return kInvalid;
        pos = skip_string(s, pos);
        if (pos == kInvalid) return kInvalid;
        pos = skip_ws(s, pos);
        if (pos >= s.size() || s[pos] != ':') return kInvalid;
        ++pos;
      }
      break;  // to the next value
    }
  }
}

uint64_t hash_bytes(std::string_view s) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  uint64_t h = s.size() * kMul;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, s.data() + i, s.size() - i);
  h = (h ^ tail) * kMul;
  h ^= h >> 32;
  return h;
}

}  // namespace kext::json_scan
