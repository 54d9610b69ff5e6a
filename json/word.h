#pragma once
// Eight string bytes at a time: the scanner looks for a string's end and the writer for bytes to escape,
// and both look for the same three kinds of byte.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kext::json {

static_assert(std::endian::native == std::endian::little, "the first byte of a word is its lowest");

// The high bit of each byte of w that may be '"', '\\' or a control character (below 0x20). Borrows can
// flag bytes after a real match, never before one nor miss one: the lowest flag is always exact.
constexpr uint64_t escape_mask(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  auto has_zero = [](uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  const uint64_t below_space = (w - 0x20 * kOnes) & ~w & kHigh;
  return has_zero(w ^ (0x22 * kOnes)) | has_zero(w ^ (0x5C * kOnes)) | below_space;
}

// True if any of the 8 bytes of w may need escaping: a false answer lets the caller pass all 8 at once.
constexpr bool may_need_escape(uint64_t w) { return escape_mask(w) != 0; }

// The first position at or after pos of a '"', '\\' or control byte, or of the last fewer-than-8 bytes if
// none comes before them: the plain stretch before it needs no byte-by-byte look. Exact, so that a
// string's closing quote is found in the word that holds it: stopping at the word's start instead cost
// up to seven byte steps per string (a 38-byte node name stepped six times before its quote;
// bench/codec_bench.cc BM_DecodeNames measures it).
inline size_t skip_plain_words(std::string_view s, size_t pos) {
#if defined(__SSE2__)
  // Sixteen bytes a step where x86-64 always has SSE2: a byte is below 0x20 when min(byte, 0x1F) is
  // itself. A 40-byte node name is two steps and the one holding its quote, where eight-byte words took
  // five.
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), below = _mm_set1_epi8(0x1F);
  while (pos + 16 <= s.size()) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + pos));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                     _mm_cmpeq_epi8(_mm_min_epu8(v, below), v));
    if (const auto m = static_cast<unsigned>(_mm_movemask_epi8(hit))) {
      return pos + static_cast<size_t>(std::countr_zero(m));
    }
    pos += 16;
  }
#endif
  while (pos + 8 <= s.size()) {
    uint64_t w;
    std::memcpy(&w, s.data() + pos, 8);
    if (const uint64_t m = escape_mask(w)) return pos + static_cast<size_t>(std::countr_zero(m)) / 8;
    pos += 8;
  }
  return pos;
}

// True for a byte a JSON string holds as it is: not '"', not '\\', not a control character.
constexpr bool plain_byte(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return c >= 0x20 && c != '"' && c != '\\';
}

// The first position at or after pos whose byte is not plain_byte, or s.size(): skip_plain_words, then
// the last few bytes one at a time.
inline size_t skip_plain(std::string_view s, size_t pos) {
  pos = skip_plain_words(s, pos);
  while (pos < s.size() && plain_byte(s[pos])) ++pos;
  return pos;
}

// How many bytes of s are c. std::count over chars vectorises with a 64-bit counter per byte (widening
// shuffles for every 16 bytes) and was a quarter of decode_names' time, which counts a body's commas to
// size its lists. Here each 16 bytes are one compare into 16 byte-wide counters, summed every 255 steps
// (a popcount of the compare's mask is a libgcc call on the baseline x86-64 target).
inline size_t count_byte(std::string_view s, char c) {
  size_t n = 0, pos = 0;
#if defined(__SSE2__)
  const __m128i want = _mm_set1_epi8(c), zero = _mm_setzero_si128();
  while (pos + 16 <= s.size()) {
    __m128i counts = zero;
    for (int step = 0; step < 255 && pos + 16 <= s.size(); ++step, pos += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + pos));
      counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(v, want));  // a match is -1
    }
    const __m128i sums = _mm_sad_epu8(counts, zero);  // two 64-bit sums of eight counters each
    n += static_cast<size_t>(_mm_cvtsi128_si64(sums)) + static_cast<size_t>(_mm_extract_epi16(sums, 4));
  }
#endif
  for (; pos < s.size(); ++pos) n += s[pos] == c;
  return n;
}

}  // namespace kext::json
