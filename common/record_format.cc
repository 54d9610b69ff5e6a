#include "common/record_format.h"

#include <cstdio>

#include "json/json.h"

namespace kext {

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.reserve(out.size() + s.size() + s.size() / 8 + 2);
  out += '"';
  size_t run = 0;  // start of the pending run of bytes that need no escaping: appended in one go
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

std::string encode_record_line(const RecordView& e) {
  std::string out;
  out.reserve(e.body.size() + e.reply.size() + 256);
  char t[64];
  std::snprintf(t, sizeof t, "%.6f", e.time);
  out += "{\"seq\":" + std::to_string(e.seq) + ",\"t\":" + t + ",\"verb\":";
  append_json_string(out, e.verb);
  out += ",\"headers\":{";
  bool first = true;
  if (!e.content_type.empty()) {
    out += "\"Content-Type\":";
    append_json_string(out, e.content_type);
    first = false;
  }
  if (!e.content_length.empty()) {
    if (!first) out += ',';
    out += "\"Content-Length\":";
    append_json_string(out, e.content_length);
  }
  out += "},\"body\":";
  append_json_string(out, e.body);
  if (e.status != 0) {
    out += ",\"status\":" + std::to_string(e.status) + ",\"reply\":";
    append_json_string(out, e.reply);
  }
  out += "}\n";
  return out;
}

bool decode_record_line(std::string_view line, RecordEntry* out, std::string* error) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (d.HasParseError()) {
    return fail(std::string("invalid JSON at offset ") + std::to_string(d.GetErrorOffset()) + ": " +
                rapidjson::GetParseError_En(d.GetParseError()));
  }
  if (!d.IsObject()) return fail("record is not a JSON object");
  RecordEntry e;
  auto str = [&](const json::Value& obj, const char* key, std::string* dst, bool required) {
    auto it = obj.FindMember(key);
    if (it == obj.MemberEnd() || it->value.IsNull()) return !required;
    if (!it->value.IsString()) return false;
    dst->assign(it->value.GetString(), it->value.GetStringLength());
    return true;
  };
  if (!str(d, "verb", &e.verb, true) || e.verb.empty()) return fail("\"verb\": missing or not a string");
  if (!str(d, "body", &e.body, true)) return fail("\"body\": missing or not a string");
  if (auto it = d.FindMember("seq"); it != d.MemberEnd() && it->value.IsUint64())
    e.seq = it->value.GetUint64();
  if (auto it = d.FindMember("t"); it != d.MemberEnd() && it->value.IsNumber())
    e.time = it->value.GetDouble();
  if (auto it = d.FindMember("headers"); it != d.MemberEnd() && it->value.IsObject()) {
    if (!str(it->value, "Content-Type", &e.content_type, false))
      return fail("\"headers.Content-Type\": not a string");
    if (!str(it->value, "Content-Length", &e.content_length, false)) {
      return fail("\"headers.Content-Length\": not a string");
    }
  }
  if (auto it = d.FindMember("status"); it != d.MemberEnd() && !it->value.IsNull()) {
    if (!it->value.IsInt() || it->value.GetInt() < 100 || it->value.GetInt() > 599) {
      return fail("\"status\": not an HTTP status");
    }
    e.status = it->value.GetInt();
    if (!str(d, "reply", &e.reply, false)) return fail("\"reply\": not a string");
  }
  *out = std::move(e);
  return true;
}

std::string record_file_name(uint64_t index) {
  std::string digits = std::to_string(index);
  if (digits.size() < 6) digits.insert(0, 6 - digits.size(), '0');
  return "rec-" + digits + ".jsonl";
}

bool parse_record_file_name(std::string_view name, uint64_t* index) {
  if (!name.starts_with("rec-") || !name.ends_with(".jsonl") || name.size() <= 10) return false;
  uint64_t v = 0;
  for (size_t i = 4; i + 6 < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  *index = v;
  return true;
}

}  // namespace kext
