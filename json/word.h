#pragma once
// Eight string bytes at a time: the scanner looks for a string's end and the writer for bytes to escape,
// and both look for the same three kinds of byte.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace kext::json {

// True if any of the 8 bytes of w may be '"', '\\' or a control character (below 0x20). Borrows can flag
// bytes after a real match, never miss one, so a false answer lets the caller pass all 8 at once.
constexpr bool may_need_escape(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  const uint64_t below_space = (w - 0x20 * kOnes) & ~w & kHigh;
  return (has_zero(w ^ (0x22 * kOnes)) | has_zero(w ^ (0x5C * kOnes)) | below_space) != 0;
}

// The first position at or after pos where the 8 bytes from there may hold such a byte (or fewer than 8
// remain): the plain stretch before it needs no byte-by-byte look.
inline size_t skip_plain_words(std::string_view s, size_t pos) {
  while (pos + 8 <= s.size()) {
    uint64_t w;
    std::memcpy(&w, s.data() + pos, 8);
    if (may_need_escape(w)) break;
    pos += 8;
  }
  return pos;
}

}  // namespace kext::json
