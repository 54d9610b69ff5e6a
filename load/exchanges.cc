#include "load/exchanges.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "common/read_file.h"
#include "json/json.h"

namespace kext::load {

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::string text;
  if (!read_whole_file(p.string(), text)) throw std::runtime_error(p.string() + ": cannot open");
  return text;
}

bool wanted(const ReadOptions& o, const std::string& verb) {
  return o.verbs.empty() || std::find(o.verbs.begin(), o.verbs.end(), verb) != o.verbs.end();
}

void read_jsonl(const fs::path& file, const ReadOptions& o, std::vector<Exchange>& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot open");
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    Exchange ex;
    std::string error;
    ex.source = file.string() + ":" + std::to_string(line_no);
    if (!decode_record_line(line, &ex.record, &error)) {
      // A recording cut short by a crash ends in a partial line: keep what came before it.
      if (in.peek() == std::char_traits<char>::eof()) break;
      throw std::runtime_error(ex.source + ": " + error);
    }
    if (!wanted(o, ex.record.verb)) continue;
    if (!o.keep_replies) {
      ex.record.status = 0;
      ex.record.reply.clear();
    }
    out.push_back(std::move(ex));
  }
}

// "0028-preempt--high-1.json" -> seq 28, verb "preempt"; false for any other name.
bool parse_fixture_name(const std::string& name, uint64_t* seq, std::string* verb) {
  if (!name.ends_with(".json") || name.ends_with(".response.json")) return false;
  size_t dash = name.find('-');
  size_t sep = name.find("--");
  if (dash == 0 || dash == std::string::npos || sep == std::string::npos || sep <= dash) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  *seq = v;
  *verb = name.substr(dash + 1, sep - dash - 1);
  return !verb->empty();
}

struct IndexLine {
  int status = 200;
  std::string content_type = "application/json";
};

std::map<uint64_t, IndexLine> read_index(const fs::path& file) {
  std::map<uint64_t, IndexLine> out;
  std::ifstream in(file, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    rapidjson::Document d;
    d.Parse<json::kParseFlags>(line.data(), line.size());
    if (d.HasParseError() || !d.IsObject()) continue;
    auto seq = d.FindMember("seq");
    if (seq == d.MemberEnd() || !seq->value.IsUint64()) continue;
    IndexLine il;
    if (auto s = d.FindMember("status"); s != d.MemberEnd() && s->value.IsInt()) il.status = s->value.GetInt();
    if (auto h = d.FindMember("headers"); h != d.MemberEnd() && h->value.IsObject()) {
      if (auto ct = h->value.FindMember("Content-Type"); ct != h->value.MemberEnd() && ct->value.IsString()) {
        il.content_type = ct->value.GetString();
      }
    }
    out[seq->value.GetUint64()] = il;
  }
  return out;
}

void read_fixtures(const fs::path& dir, const ReadOptions& o, std::vector<Exchange>& out) {
  auto index = read_index(dir / "index.jsonl");
  std::vector<std::pair<uint64_t, fs::path>> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    uint64_t seq = 0;
    std::string verb;
    if (e.is_regular_file() && parse_fixture_name(e.path().filename().string(), &seq, &verb)) {
      files.emplace_back(seq, e.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& [seq, path] : files) {
    Exchange ex;
    std::string verb;
    parse_fixture_name(path.filename().string(), &ex.record.seq, &verb);
    if (verb == "bind" || !wanted(o, verb)) continue;
    ex.source = path.string();
    ex.record.verb = verb;
    ex.record.body = slurp(path);
    IndexLine il;
    if (auto it = index.find(seq); it != index.end()) il = it->second;
    ex.record.content_type = il.content_type;
    ex.record.content_length = std::to_string(ex.record.body.size());
    fs::path reply = path;
    reply.replace_extension(".response.json");
    if (o.keep_replies && fs::exists(reply)) {
      ex.record.status = il.status;
      ex.record.reply = slurp(reply);
    }
    out.push_back(std::move(ex));
  }
}

}  // namespace

std::vector<Exchange> read_exchanges(const std::string& path, const ReadOptions& options) {
  std::vector<Exchange> out;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    read_jsonl(path, options, out);
    return out;
  }
  if (!fs::is_directory(path, ec)) throw std::runtime_error(path + ": no such file or directory");
  std::vector<fs::path> jsonl;
  for (const auto& e : fs::directory_iterator(path)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.ends_with(".jsonl") && name != "index.jsonl") jsonl.push_back(e.path());
  }
  if (!jsonl.empty()) {
    std::sort(jsonl.begin(), jsonl.end());
    for (const auto& f : jsonl) read_jsonl(f, options, out);
  } else {
    read_fixtures(path, options, out);
  }
  return out;
}

}  // namespace kext::load
