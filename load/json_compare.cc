#include "load/json_compare.h"

#include "json/json.h"

namespace kext::load {

namespace {

using json::Value;

std::string brief(const Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  std::string s(buf.GetString(), buf.GetSize());
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

std::string member_path(const std::string& path, std::string_view key) {
  std::string p = path + "[";
  p += '"';
  p += key;
  p += "\"]";
  return p;
}

bool numbers_equal(const Value& a, const Value& b) {
  if (a.IsInt64() && b.IsInt64()) return a.GetInt64() == b.GetInt64();
  if (a.IsUint64() && b.IsUint64()) return a.GetUint64() == b.GetUint64();
  return a.GetDouble() == b.GetDouble();
}

bool values_equal(const Value& a, const Value& b, const std::string& path, std::string* diff) {
  auto differ = [&](const std::string& what) {
    if (diff) *diff = path + ": " + what;
    return false;
  };
  if (a.IsNumber() && b.IsNumber()) {
    return numbers_equal(a, b) || differ(brief(a) + " vs " + brief(b));
  }
  if (a.GetType() != b.GetType()) return differ(brief(a) + " vs " + brief(b));
  switch (a.GetType()) {
    case rapidjson::kObjectType: {
      if (a.MemberCount() != b.MemberCount()) {
        // Name the first member one side lacks rather than just the counts.
        for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
          if (!b.HasMember(it->name)) return differ(brief(it->name) + " missing");
        }
        for (auto it = b.MemberBegin(); it != b.MemberEnd(); ++it) {
          if (!a.HasMember(it->name)) return differ(brief(it->name) + " unexpected");
        }
        return differ(std::to_string(a.MemberCount()) + " members vs " + std::to_string(b.MemberCount()));
      }
      for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
        auto other = b.FindMember(it->name);
        std::string p = member_path(path, json::view(it->name));
        if (other == b.MemberEnd()) {
          if (diff) *diff = p + ": " + brief(it->value) + " vs missing";
          return false;
        }
        if (!values_equal(it->value, other->value, p, diff)) return false;
      }
      return true;
    }
    case rapidjson::kArrayType: {
      const auto n = std::min(a.Size(), b.Size());
      for (rapidjson::SizeType i = 0; i < n; ++i) {
        if (!values_equal(a[i], b[i], path + "[" + std::to_string(i) + "]", diff)) return false;
      }
      if (a.Size() != b.Size()) {
        return differ(std::to_string(a.Size()) + " elements vs " + std::to_string(b.Size()));
      }
      return true;
    }
    case rapidjson::kStringType:
      return json::view(a) == json::view(b) || differ(brief(a) + " vs " + brief(b));
    default:
      return true;  // null, true, false: equal types are equal values
  }
}

}  // namespace

bool same_json(std::string_view expected, std::string_view actual, std::string* difference) {
  rapidjson::Document a, b;
  a.Parse<json::kParseFlags>(expected.data(), expected.size());
  b.Parse<json::kParseFlags>(actual.data(), actual.size());
  if (a.HasParseError() || b.HasParseError()) {
    if (expected == actual) return true;
    if (difference) {
      *difference = std::string("$: ") + (a.HasParseError() ? "recorded" : "received") + " reply is not JSON";
      if (!a.HasParseError() || !b.HasParseError()) *difference += " (the other is)";
    }
    return false;
  }
  return values_equal(a, b, "$", difference);
}

}  // namespace kext::load
