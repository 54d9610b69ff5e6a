#pragma once
// One recorded verb exchange as one JSON Lines record, shared by the server's recorder, extender-gen
// and extender-load, so all three agree on the format byte for byte (docs/load-testing.md).
#include <cstdint>
#include <string>
#include <string_view>

namespace kext {

struct RecordEntry {
  uint64_t seq = 0;
  double time = 0;  // Unix seconds when the request arrived
  std::string verb;
  std::string content_type;    // "" = header absent
  std::string content_length;  // as sent; "" = header absent
  std::string body;
  int status = 0;  // 0 = no reply recorded (generated traffic)
  std::string reply;
};

// Appends s as a JSON string. Bytes >= 0x80 are copied raw rather than validated, so a body that is
// not UTF-8 still survives a round trip through a reader that does not validate encodings (RapidJSON's
// default).
void append_json_string(std::string& out, std::string_view s);

// What a record line is written from: the server records request and reply bodies without copying
// them into a RecordEntry first.
struct RecordView {
  uint64_t seq = 0;
  double time = 0;
  std::string_view verb, content_type, content_length, body;
  int status = 0;
  std::string_view reply;
};

// The record as one line, '\n' included.
std::string encode_record_line(const RecordView& e);
inline std::string encode_record_line(const RecordEntry& e) {
  return encode_record_line(
      RecordView{e.seq, e.time, e.verb, e.content_type, e.content_length, e.body, e.status, e.reply});
}

// "rec-000042.jsonl": a recording directory's files, zero-padded so that name order is recording order.
std::string record_file_name(uint64_t index);
// The index of a record_file_name(); false for any other name.
bool parse_record_file_name(std::string_view name, uint64_t* index);

// Parses one line; false with the reason in *error on malformed input (never throws).
bool decode_record_line(std::string_view line, RecordEntry* out, std::string* error);

}  // namespace kext
