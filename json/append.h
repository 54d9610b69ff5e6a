#pragma once
// JSON text appended to a std::string, for replies written without a rapidjson::Writer. Each function
// writes exactly the bytes the Writer writes for the same value with its default flags, so a reply
// can switch between the two without a byte of difference (tests/json/append_test.cc checks every
// byte value against the Writer).
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "json/word.h"

namespace kext::json {

// Appends s as a JSON string, the same bytes rapidjson::Writer::String writes with its default flags
// (writer.h WriteString's escape table): '"', '\\' and bytes below 0x20 are escaped — \b \t \n \f
// \r by name, the others as \u00XX in upper-case hex — and every other byte, '/', DEL, UTF-8 and
// invalid UTF-8 alike, is copied as it is. A reply written this way appends each plain node name in
// one copy, where the Writer moved it byte by byte (a share of filter's CPU in perf; docs/performance.md
// "Figures behind design choices in the code").
inline void append_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  // The first byte that needs an escape, eight bytes per step: a 40-byte cloud node name was checked
  // byte by byte, a large share of filter's CPU at 500 such names (perf; the reply lists each passing
  // name; docs/performance.md "Figures behind design choices in the code").
  const size_t first = skip_plain(s, 0);
  if (first == s.size()) {  // the usual name: quotes and one copy, no per-byte push_back calls
    const size_t at = out.size();
    out.resize(at + s.size() + 2);
    char* p = out.data() + at;
    p[0] = '"';
    if (!s.empty()) std::memcpy(p + 1, s.data(), s.size());
    p[s.size() + 1] = '"';
    return;
  }
  out.push_back('"');
  size_t plain = 0;  // start of the bytes not yet copied
  for (size_t i = first; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (plain_byte(s[i])) continue;
    out.append(s.data() + plain, i - plain);
    plain = i + 1;
    out.push_back('\\');
    switch (c) {
      case '"':
      case '\\':
        out.push_back(static_cast<char>(c));
        break;
      case '\b':
        out.push_back('b');
        break;
      case '\t':
        out.push_back('t');
        break;
      case '\n':
        out.push_back('n');
        break;
      case '\f':
        out.push_back('f');
        break;
      case '\r':
        out.push_back('r');
        break;
      default:
        out.append("u00");
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xf]);
    }
  }
  out.append(s.data() + plain, s.size() - plain);
  out.push_back('"');
}

// The longest integer write_int writes: -9223372036854775808.
inline constexpr size_t kMaxIntBytes = 20;

// Writes an integer at p as rapidjson::Writer::Int64 writes it (plain decimal, '-' for negatives) and
// returns its end; p must have kMaxIntBytes of room.
inline char* write_int(char* p, int64_t v) { return std::to_chars(p, p + kMaxIntBytes, v).ptr; }

}  // namespace kext::json
