#include "yaml/yaml.h"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/emitterstyle.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>

namespace kext::yaml {

YamlError::YamlError(int line_, int column_, const std::string& reason)
    : DecodeError("line " + std::to_string(line_) + ", column " + std::to_string(column_) + ": " + reason),
      line(line_),
      column(column_) {}

namespace {

using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

// yaml-cpp counts from 0; editors, and these messages, from 1.
[[noreturn]] void fail(const YAML::Mark& at, const std::string& reason) {
  throw YamlError(at.line + 1, at.column + 1, reason);
}

// The tags yaml-cpp reports: "?" for a plain scalar or an untagged collection, "!" for a quoted or
// block scalar, the full tag:yaml.org,2002: name for !!str and the like.
constexpr std::string_view kPlain = "?";
constexpr std::string_view kNonPlain = "!";
constexpr std::string_view kStr = "tag:yaml.org,2002:str";
constexpr std::string_view kNull = "tag:yaml.org,2002:null";
constexpr std::string_view kBool = "tag:yaml.org,2002:bool";
constexpr std::string_view kInt = "tag:yaml.org,2002:int";
constexpr std::string_view kFloat = "tag:yaml.org,2002:float";
constexpr std::string_view kSeq = "tag:yaml.org,2002:seq";
constexpr std::string_view kMap = "tag:yaml.org,2002:map";

// What aliases may copy into one document, in Values (a string counts one more per 16 bytes). A few
// lines of nested aliases otherwise expand to billions of values ("billion laughs"); go-yaml refuses
// them the same way (gopkg.in/yaml.v2 decode.go, allowedAliasRatio: "excessive aliasing").
constexpr size_t kAliasBudget = size_t{1} << 18;

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}
bool is_dec(char c) { return c >= '0' && c <= '9'; }
bool is_oct(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, the core schema's float (its int is a subset).
bool is_float(std::string_view s) {
  size_t i = 0, n = s.size();
  auto digits = [&] {
    size_t from = i;
    while (i < n && is_dec(s[i])) ++i;
    return i - from;
  };
  if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
  size_t whole = digits();
  if (i < n && s[i] == '.') {
    ++i;
    if (digits() == 0 && whole == 0) return false;
  } else if (whole == 0) {
    return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == n;
}

Value integer(std::string_view digits, int base, bool negative, std::string_view text, const YAML::Mark& at) {
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    // Too big for 64 bits: decimals become doubles, as RapidJSON reads such JSON numbers.
    double d = 0;
    if (base != 10 || std::from_chars(digits.data(), digits.data() + digits.size(), d).ec != std::errc())
      fail(at, "integer " + std::string(text) + " is out of range");
    return Value(negative ? -d : d);
  }
  if (!negative) {
    if (magnitude <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return Value(static_cast<int64_t>(magnitude));
    return Value(magnitude);
  }
  if (magnitude <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return Value(-static_cast<int64_t>(magnitude));
  if (magnitude == static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1)
    return Value(std::numeric_limits<int64_t>::min());
  return Value(-static_cast<double>(magnitude));
}

// A plain scalar typed by the YAML 1.2 core schema (the table in yaml.h).
Value plain(const std::string& text, const YAML::Mark& at, Allocator& alloc) {
  std::string_view s = text;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return Value();
  if (s == "true" || s == "True" || s == "TRUE") return Value(true);
  if (s == "false" || s == "False" || s == "FALSE") return Value(false);
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o' && all_of(s.substr(2), is_oct))
    return integer(s.substr(2), 8, false, s, at);
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x' && all_of(s.substr(2), is_hex))
    return integer(s.substr(2), 16, false, s, at);
  const bool negative = s[0] == '-';
  std::string_view unsigned_part = (s[0] == '-' || s[0] == '+') ? s.substr(1) : s;
  if (all_of(unsigned_part, is_dec)) return integer(unsigned_part, 10, negative, s, at);
  if (is_float(s)) {
    double d = 0;
    auto [end, ec] = std::from_chars(unsigned_part.data(), unsigned_part.data() + unsigned_part.size(), d);
    if (ec != std::errc() || end != unsigned_part.data() + unsigned_part.size())
      fail(at, "number " + text + " is out of range");
    return Value(negative ? -d : d);
  }
  std::string_view special = unsigned_part;
  if (special == ".inf" || special == ".Inf" || special == ".INF" || s == ".nan" || s == ".NaN" ||
      s == ".NAN")
    fail(at, text + " has no JSON form (quote it to mean the string)");
  return Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

Value scalar(std::string_view tag, const std::string& text, const YAML::Mark& at, Allocator& alloc) {
  if (tag == kNonPlain || tag == kStr)
    return Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
  if (tag != kPlain && tag != kNull && tag != kBool && tag != kInt && tag != kFloat)
    fail(at, "unsupported tag " + std::string(tag));
  Value v = plain(text, at, alloc);
  const bool ok = tag == kPlain || (tag == kNull && v.IsNull()) || (tag == kBool && v.IsBool()) ||
                  (tag == kInt && (v.IsInt64() || v.IsUint64())) || (tag == kFloat && v.IsNumber());
  if (!ok) fail(at, "\"" + text + "\" is not a valid !!" + std::string(tag.substr(tag.rfind(':') + 1)));
  if (tag == kFloat) v.SetDouble(v.GetDouble());
  return v;
}

size_t cost_of_string(size_t bytes) { return 1 + bytes / 16; }

// yaml-cpp ends a quoted scalar that is never closed at the end of the text, taking all that follows
// the quote as its value (`a: "open` then `b: 1` reads as the string "open b: 1 "). False when the
// scalar at `pos` (after its &anchor and !tag, if any) opens a quote that does not close.
bool quote_closes(std::string_view text, size_t pos) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (pos < text.size() && (text[pos] == '&' || text[pos] == '!')) {
    while (pos < text.size() && !space(text[pos])) ++pos;
    while (pos < text.size() && space(text[pos])) ++pos;
  }
  if (pos >= text.size() || (text[pos] != '"' && text[pos] != '\'')) return true;
  const char quote = text[pos];
  for (size_t i = pos + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;
    } else if (text[i] == quote) {
      if (quote == '"' || i + 1 == text.size() || text[i + 1] != '\'') return true;
      ++i;  // '' is an escaped quote
    }
  }
  return false;
}

// Builds one document from yaml-cpp's events with an explicit stack (no recursion; yaml-cpp itself
// stops at a depth of 2000 of its own recursive calls).
class Builder : public YAML::EventHandler {
 public:
  // `text`: what yaml-cpp parses, for the checks below; `first`: whether this is its first document.
  Builder(rapidjson::Document& doc, std::string_view text, bool first)
      : doc_(doc), alloc_(doc.GetAllocator()), text_(text), first_(first) {}

  const YAML::Mark& start() const { return start_; }

  void OnDocumentStart(const YAML::Mark& at) override {
    // yaml-cpp starts a new document where a top-level block sequence is followed by a mapping at
    // its indentation (`- a` then `b: c`), which YAML says is an error; a real one starts at `---`
    // (or at its %directives).
    const std::string_view rest =
        text_.substr(std::min(static_cast<size_t>(std::max(at.pos, 0)), text_.size()));
    if (!first_ && !rest.starts_with("---") && !rest.starts_with("%"))
      fail(at, "a mapping at the indentation of a top-level sequence (or a document without its --- line)");
    start_ = at;
    // yaml-cpp numbers anchors afresh in every document.
    anchors_.clear();
    spent_ = 0;
  }
  void OnDocumentEnd() override {}

  // yaml-cpp reports plain null, Null, NULL, ~ and empty nodes here. As a key it is "null", the
  // key sigs.k8s.io/yaml gives a null key (yaml.go, convertToJSONableObject).
  void OnNull(const YAML::Mark& at, YAML::anchor_t anchor) override {
    if (expecting_key()) return take_key("null", Value(), at, anchor, false);
    add(Value(), 1, at, anchor);
  }

  void OnScalar(const YAML::Mark& at, const std::string& tag, YAML::anchor_t anchor,
                const std::string& text) override {
    if (tag != kPlain && !quote_closes(text_, static_cast<size_t>(std::max(at.pos, 0))))
      fail(at, "a quoted scalar that does not end");
    Value v = scalar(tag, text, at, alloc_);
    if (expecting_key()) return take_key(text, std::move(v), at, anchor, tag == kPlain && text == "<<");
    add(std::move(v), cost_of_string(text.size()), at, anchor);
  }

  void OnAlias(const YAML::Mark& at, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) fail(at, "alias to an unknown anchor");
    const auto& [value, cost] = it->second;
    spend(cost, at);
    Value copy(value, alloc_);
    if (expecting_key()) {
      if (copy.IsObject() || copy.IsArray()) fail(at, "a mapping key must be a scalar");
      return take_key(text_of(copy), std::move(copy), at, YAML::NullAnchor, false);
    }
    add(std::move(copy), cost, at, YAML::NullAnchor);
  }

  void OnSequenceStart(const YAML::Mark& at, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(at, tag, kSeq, anchor, Value(rapidjson::kArrayType));
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& at, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(at, tag, kMap, anchor, Value(rapidjson::kObjectType));
  }
  void OnMapEnd() override {
    Frame& f = stack_.back();
    // `<<: *base` and `<<: [*a, *b]`: the merged mappings' keys that the mapping does not set itself,
    // the first merged mapping winning (yaml.org/type/merge.html, as go-yaml reads it).
    for (Value& source : f.merges) {
      Value* first = source.IsArray() ? source.Begin() : &source;
      Value* last = source.IsArray() ? source.End() : &source + 1;
      for (Value* m = first; m != last; ++m) {
        for (auto& member : m->GetObject()) {
          if (f.keys.insert(std::string(json::view(member.name))).second)
            f.value.AddMember(member.name, member.value, alloc_);
        }
      }
    }
    close();
  }

 private:
  struct Frame {
    Value value;
    YAML::Mark at;
    YAML::anchor_t anchor = YAML::NullAnchor;
    size_t cost = 1;
    // Mappings: the key read and waiting for its value.
    bool have_key = false;
    bool key_is_merge = false;
    Value key;
    std::unordered_set<std::string> keys;
    std::vector<Value> merges;
  };

  bool expecting_key() const {
    return !stack_.empty() && stack_.back().value.IsObject() && !stack_.back().have_key;
  }

  void spend(size_t cost, const YAML::Mark& at) {
    if (cost > kAliasBudget - spent_)
      fail(at, "aliases expand to more than " + std::to_string(kAliasBudget) + " values");
    spent_ += cost;
  }

  static std::string text_of(const Value& v) {
    if (v.IsString()) return std::string(json::view(v));
    if (v.IsNull()) return "null";
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    v.Accept(w);
    return {buf.GetString(), buf.GetSize()};
  }

  void remember(YAML::anchor_t anchor, const Value& v, size_t cost, const YAML::Mark& at) {
    if (anchor == YAML::NullAnchor) return;
    spend(cost, at);
    anchors_[anchor] = {Value(v, alloc_), cost};
  }

  void take_key(const std::string& text, Value value, const YAML::Mark& at, YAML::anchor_t anchor,
                bool merge) {
    remember(anchor, value, cost_of_string(text.size()), at);
    Frame& f = stack_.back();
    if (!merge && !f.keys.insert(text).second) fail(at, "duplicate key \"" + text + "\"");
    f.key.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc_);
    f.key_is_merge = merge;
    f.have_key = true;
    f.cost += cost_of_string(text.size());
  }

  void open(const YAML::Mark& at, const std::string& tag, std::string_view own_tag, YAML::anchor_t anchor,
            Value value) {
    if (tag != kPlain && tag != kNonPlain && tag != own_tag) fail(at, "unsupported tag " + tag);
    if (expecting_key()) fail(at, "a mapping key must be a scalar");
    Frame& f = stack_.emplace_back();
    f.value = std::move(value);
    f.at = at;
    f.anchor = anchor;
  }

  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    add(std::move(f.value), f.cost, f.at, f.anchor);
  }

  void add(Value v, size_t cost, const YAML::Mark& at, YAML::anchor_t anchor) {
    remember(anchor, v, cost, at);
    if (stack_.empty()) {
      static_cast<Value&>(doc_).Swap(v);
      return;
    }
    Frame& f = stack_.back();
    f.cost += cost;
    if (f.value.IsArray()) {
      f.value.PushBack(v, alloc_);
      return;
    }
    f.have_key = false;
    if (f.key_is_merge) {
      bool mappings = v.IsObject();
      if (v.IsArray()) {
        mappings = true;
        for (const auto& item : v.GetArray()) mappings = mappings && item.IsObject();
      }
      if (!mappings) fail(at, "<< merges a mapping or a sequence of mappings");
      f.merges.push_back(std::move(v));
      return;
    }
    f.value.AddMember(f.key, v, alloc_);
  }

  rapidjson::Document& doc_;
  Allocator& alloc_;
  std::string_view text_;
  bool first_;
  YAML::Mark start_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, std::pair<Value, size_t>> anchors_;
  size_t spent_ = 0;
};

// Runs fn(parser) translating yaml-cpp's exceptions into YamlError.
template <typename Fn>
auto parse(std::string_view text, Fn fn) {
  // Without its byte-order mark, so that yaml-cpp's positions index `text`.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::istringstream in{std::string(text)};
  try {
    YAML::Parser parser(in);
    return fn(parser, text);
  } catch (const YAML::DeepRecursion& e) {
    // Its guard counts parser calls (several per level), not levels: flow collections stop near 500.
    fail(e.mark, "nested too deeply");
  } catch (const YAML::Exception& e) {
    fail(e.mark, e.msg);
  }
}

}  // namespace

rapidjson::Document to_json(std::string_view text) {
  return parse(text, [](YAML::Parser& parser, std::string_view parsed) {
    rapidjson::Document doc;
    Builder builder(doc, parsed, true);
    parser.HandleNextDocument(builder);
    rapidjson::Document next;
    Builder after(next, parsed, false);
    while (parser.HandleNextDocument(after)) {
      if (!next.IsNull()) fail(after.start(), "a second YAML document; expected one");
    }
    return doc;
  });
}

std::vector<rapidjson::Document> to_json_all(std::string_view text) {
  return parse(text, [](YAML::Parser& parser, std::string_view parsed) {
    std::vector<rapidjson::Document> docs;
    for (bool first = true;; first = false) {
      rapidjson::Document doc;
      Builder builder(doc, parsed, first);
      if (!parser.HandleNextDocument(builder)) break;
      if (!doc.IsNull()) docs.push_back(std::move(doc));
    }
    return docs;
  });
}

}  // namespace kext::yaml
