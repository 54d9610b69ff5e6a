#pragma once
// Prometheus text exposition format 0.0.4, the pieces every /metrics writer here appends: a family's
// HELP and TYPE lines, an escaped label value, a sample value.
#include <charconv>
#include <string>
#include <string_view>

namespace kext::prom {

// Shortest round-trip form (integers below 2^53 print as integers); `fixed` never uses an exponent.
inline void append_number(std::string& out, double v, bool fixed = false) {
  char buf[64];
  auto res = fixed ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                   : std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

// A label value as the exposition format wants it: \ " and newline escaped.
inline void append_label_value(std::string& out, std::string_view v) {
  for (const char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

inline void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

}  // namespace kext::prom
