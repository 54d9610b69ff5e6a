#pragma once
// The one way this project includes RapidJSON. Its asserts become exceptions so that hostile JSON can
// never abort the server (every accessor is type-checked first; this is the safety net), and lookups
// fall back to case-insensitive keys as Go's encoding/json does.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace kext {
// Thrown for any malformed or wrongly-typed input; the message names the offending field.
struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
}  // namespace kext

#ifndef RAPIDJSON_ASSERT
#define RAPIDJSON_ASSERT(x)                                                       \
  do {                                                                            \
    if (!(x)) throw ::kext::DecodeError("internal JSON invariant violated: " #x); \
  } while (0)
#endif
#define RAPIDJSON_HAS_STDSTRING 1
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace kext::json {

using Value = rapidjson::Value;

// Depth-bounded iterative parse: hostile nesting cannot exhaust the stack.
inline constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseStopWhenDoneFlag;

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

inline std::string_view view(const Value& v) { return {v.GetString(), v.GetStringLength()}; }

// Exact match first, then case-insensitive (Go's rule). nullptr when absent or when obj is not an object.
inline const Value* find(const Value& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  const Value* folded = nullptr;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    std::string_view name = view(it->name);
    if (name == key) return &it->value;
    if (!folded && iequals(name, key)) folded = &it->value;
  }
  return folded;
}

// Like find, but JSON null counts as absent (Go decodes null into the zero value).
inline const Value* find_non_null(const Value& obj, std::string_view key) {
  const Value* v = find(obj, key);
  return (v && !v->IsNull()) ? v : nullptr;
}

// A key as an error message shows it: control characters as JSON escapes, since a key that starts
// with "\u0000" would otherwise end the message at its first byte for every C-string reader (the
// policy fuzz harness found one).
inline std::string printable_key(std::string_view key) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

inline std::string join_path(std::string_view parent, std::string_view key) {
  std::string p(parent);
  if (!p.empty()) p += '.';
  p += printable_key(key);
  return p;
}

inline const char* type_name(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "unknown";
}

[[noreturn]] inline void fail_type(std::string_view path, const char* want, const Value& got) {
  throw DecodeError(std::string(path) + ": expected " + want + ", got " + type_name(got));
}

inline const Value& expect_object(const Value& v, std::string_view path) {
  if (!v.IsObject()) fail_type(path, "object", v);
  return v;
}
inline const Value& expect_array(const Value& v, std::string_view path) {
  if (!v.IsArray()) fail_type(path, "array", v);
  return v;
}
inline std::string_view expect_string(const Value& v, std::string_view path) {
  if (!v.IsString()) fail_type(path, "string", v);
  return view(v);
}

// Optional string member: "" when absent or null. The path is joined only for the error: a pod's
// decode joined ~30 paths that no message used (json::join_path showed in filter's user time;
// docs/performance.md "Figures behind design choices in the code").
inline std::string get_string(const Value& obj, std::string_view key, std::string_view path) {
  const Value* v = find_non_null(obj, key);
  if (!v) return {};
  if (!v->IsString()) fail_type(join_path(path, key), "string", *v);
  return std::string(view(*v));
}

inline bool get_bool(const Value& obj, std::string_view key, std::string_view path) {
  const Value* v = find_non_null(obj, key);
  if (!v) return false;
  if (!v->IsBool()) fail_type(join_path(path, key), "boolean", *v);
  return v->GetBool();
}

// Integer member (Go rejects 5.0 and "5" for integer fields); nullopt when absent or null.
inline std::optional<int64_t> get_int(const Value& obj, std::string_view key, std::string_view path) {
  const Value* v = find_non_null(obj, key);
  if (!v) return std::nullopt;
  if (!v->IsInt64()) fail_type(join_path(path, key), "integer", *v);
  return v->GetInt64();
}

// The whole string, a NUL byte included (writing c_str() would stop at it). Any RapidJSON writer: the
// compact one of the replies and the PrettyWriter of --write-config.
template <class Writer>
void write_string(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

inline void write_member(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key, std::string_view s) {
  w.Key(key);
  write_string(w, s);
}

// "key": a number or a boolean, written as its own type: Bool, Double, Int64 for signed and Uint64 for
// unsigned integers (the text is the same as Int/Uint for the narrower types).
template <typename T>
requires std::is_arithmetic_v<T>
inline void write_member(rapidjson::Writer<rapidjson::StringBuffer>& w, const char* key, T v) {
  w.Key(key);
  if constexpr (std::is_same_v<T, bool>) {
    w.Bool(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    w.Double(v);
  } else if constexpr (std::is_signed_v<T>) {
    w.Int64(v);
  } else {
    w.Uint64(v);
  }
}

// {"Error":"..."} — the reply shape for every error.
inline std::string error_body(std::string_view message) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("Error");
  write_string(w, message);
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

}  // namespace kext::json
