#include "extender/kube/mini_yaml.h"

#include "json/json.h"

namespace kext::yaml {

const Node* Node::get(std::string_view key) const {
  if (kind != Kind::Map) return nullptr;
  for (const auto& [k, v] : map)
    if (k == key) return &v;
  return nullptr;
}

std::string Node::str(std::string_view key) const {
  const Node* n = get(key);
  return n && n->kind == Kind::Scalar ? n->scalar : std::string();
}

const Node* Node::at(std::initializer_list<std::string_view> path) const {
  const Node* n = this;
  for (auto k : path) {
    if (!(n = n->get(k))) return nullptr;
  }
  return n;
}

namespace {

struct Line {
  size_t number;  // 1-based, for errors
  size_t indent;
  std::string text;   // without indent and comment
  std::string block;  // for "key: |" / "key: |-": the block scalar's text, read from the raw lines
};

[[noreturn]] void fail(size_t line, const std::string& what) {
  throw YamlError("line " + std::to_string(line) + ": " + what);
}

// The readers below and Node's destructor recurse once per level, so deeper nesting is refused rather
// than allowed to exhaust the stack (a JSON kubeconfig of 100000 '[' did). Kubeconfigs nest 4 levels.
constexpr size_t kMaxDepth = 100;
const std::string kTooDeep = "nested deeper than " + std::to_string(kMaxDepth) + " levels";

// Removes a comment that starts outside quotes.
std::string strip_comment(std::string_view s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"') ++i;
    } else if (c == '\'' || c == '"') {
      if (i == 0 || s[i - 1] == ' ' || s[i - 1] == ':' || s[i - 1] == '-') quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ')) {
      s = s.substr(0, i);
      break;
    }
  }
  std::string out(s);
  while (!out.empty() && (out.back() == ' ' || out.back() == '\r' || out.back() == '\t')) out.pop_back();
  return out;
}

Node scalar_node(std::string_view raw, size_t line) {
  Node n;
  if (raw.empty() || raw == "~" || raw == "null") return n;
  if (raw == "{}") {
    n.kind = Node::Kind::Map;
    return n;
  }
  if (raw.front() == '[' && raw.back() == ']') {  // one-line flow sequence of scalars
    n.kind = Node::Kind::Seq;
    std::string_view inner = raw.substr(1, raw.size() - 2);
    char quote = 0;
    size_t start = 0;
    for (size_t i = 0; i <= inner.size(); ++i) {
      const char c = i < inner.size() ? inner[i] : ',';
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == ',') {
        std::string_view item = inner.substr(start, i - start);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (!item.empty()) {
          if (item.front() == '[' || item.front() == '{') fail(line, "nested flow collections are not supported");
          n.seq.push_back(scalar_node(item, line));
        } else if (i < inner.size()) {
          fail(line, "empty item in a flow sequence");
        }
        start = i + 1;
      }
    }
    if (quote) fail(line, "unterminated quoted string in a flow sequence");
    return n;
  }
  n.kind = Node::Kind::Scalar;
  if (raw.front() == '\'') {
    if (raw.size() < 2 || raw.back() != '\'') fail(line, "unterminated single-quoted string");
    for (size_t i = 1; i + 1 < raw.size(); ++i) {
      n.scalar += raw[i];
      if (raw[i] == '\'' && i + 2 < raw.size() && raw[i + 1] == '\'') ++i;
    }
    return n;
  }
  if (raw.front() == '"') {
    if (raw.size() < 2 || raw.back() != '"') fail(line, "unterminated double-quoted string");
    for (size_t i = 1; i + 1 < raw.size(); ++i) {
      char c = raw[i];
      if (c != '\\') {
        n.scalar += c;
        continue;
      }
      if (i + 2 >= raw.size()) fail(line, "dangling escape");
      char e = raw[++i];
      switch (e) {
        case 'n': n.scalar += '\n'; break;
        case 't': n.scalar += '\t'; break;
        case '"': n.scalar += '"'; break;
        case '\\': n.scalar += '\\'; break;
        case '/': n.scalar += '/'; break;
        default: fail(line, std::string("unsupported escape \\") + e);
      }
    }
    return n;
  }
  if (raw.front() == '&' || raw.front() == '*' || raw.front() == '!' || raw.front() == '|' || raw.front() == '>' ||
      raw.front() == '{' || raw.front() == '[') {
    fail(line, "unsupported YAML construct \"" + std::string(raw.substr(0, 20)) + "\"");
  }
  n.scalar = std::string(raw);
  return n;
}

// Splits "key: value" (or "key:"); returns false if the text is not a mapping entry.
bool split_key(const std::string& text, std::string* key, std::string* value) {
  size_t start = 0;
  char quote = 0;
  if (!text.empty() && (text[0] == '"' || text[0] == '\'')) {
    quote = text[0];
    size_t end = text.find(quote, 1);
    if (end == std::string::npos) return false;
    *key = text.substr(1, end - 1);
    start = end + 1;
    if (start >= text.size() || text[start] != ':') return false;
  } else {
    size_t p = 0;
    for (;;) {
      p = text.find(':', p);
      if (p == std::string::npos) return false;
      if (p + 1 == text.size() || text[p + 1] == ' ') break;
      ++p;
    }
    *key = text.substr(0, p);
    start = p;
  }
  size_t v = start + 1;
  while (v < text.size() && text[v] == ' ') ++v;
  *value = text.substr(v);
  return true;
}

class Parser {
 public:
  explicit Parser(std::vector<Line> lines) : lines_(std::move(lines)) {}

  Node document() {
    if (lines_.empty()) return {};
    Node n = block(lines_[0].indent);
    if (pos_ < lines_.size()) fail(lines_[pos_].number, "unexpected indentation");
    return n;
  }

 private:
  Node block(size_t indent) {
    const Line& first = lines_[pos_];
    if (is_item(first.text)) return sequence(indent);
    return mapping(indent);
  }

  static bool is_item(const std::string& t) { return t == "-" || t.rfind("- ", 0) == 0; }

  // Counts the levels of mapping/sequence being read.
  struct Level {
    explicit Level(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxDepth) fail(p_.lines_[p_.pos_].number, kTooDeep);
    }
    ~Level() { --p_.depth_; }
    Parser& p_;
  };

  Node sequence(size_t indent) {
    Level level(*this);
    Node n;
    n.kind = Node::Kind::Seq;
    while (pos_ < lines_.size() && lines_[pos_].indent == indent && is_item(lines_[pos_].text)) {
      Line& l = lines_[pos_];
      std::string rest = l.text.size() > 2 ? l.text.substr(2) : std::string();
      size_t lead = 0;
      while (lead < rest.size() && rest[lead] == ' ') ++lead;
      rest = rest.substr(lead);
      if (rest.empty()) {
        ++pos_;
        n.seq.push_back(nested_or_null(indent, l.number));
        continue;
      }
      std::string key, value;
      if (split_key(rest, &key, &value)) {
        // "- key: v" opens a mapping at the key's column: re-read this line as that mapping's first.
        l.indent = indent + 2 + lead;
        l.text = rest;
        n.seq.push_back(mapping(l.indent));
      } else {
        ++pos_;
        n.seq.push_back(scalar_node(rest, l.number));
      }
    }
    return n;
  }

  Node mapping(size_t indent) {
    Level level(*this);
    Node n;
    n.kind = Node::Kind::Map;
    while (pos_ < lines_.size() && lines_[pos_].indent == indent && !is_item(lines_[pos_].text)) {
      const Line& l = lines_[pos_];
      std::string key, value;
      if (!split_key(l.text, &key, &value)) fail(l.number, "expected \"key: value\", got \"" + l.text + "\"");
      ++pos_;
      if (value == "|" || value == "|-") {
        n.map.emplace_back(key, Node{Node::Kind::Scalar, l.block, {}, {}});
        continue;
      }
      if (!value.empty()) {
        n.map.emplace_back(key, scalar_node(value, l.number));
        continue;
      }
      // A sequence may sit at its key's own indent (kubectl's style).
      if (pos_ < lines_.size() && lines_[pos_].indent == indent && is_item(lines_[pos_].text)) {
        n.map.emplace_back(key, sequence(indent));
      } else {
        n.map.emplace_back(key, nested_or_null(indent, l.number));
      }
    }
    if (pos_ < lines_.size() && lines_[pos_].indent > indent) fail(lines_[pos_].number, "unexpected indentation");
    return n;
  }

  Node nested_or_null(size_t indent, size_t) {
    if (pos_ < lines_.size() && lines_[pos_].indent > indent) return block(lines_[pos_].indent);
    return {};
  }

  std::vector<Line> lines_;
  size_t pos_ = 0;
  size_t depth_ = 0;
};

Node from_json(const json::Value& v, size_t depth = 1) {
  Node n;
  if ((v.IsObject() || v.IsArray()) && depth > kMaxDepth) throw YamlError("JSON " + kTooDeep);
  if (v.IsObject()) {
    n.kind = Node::Kind::Map;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it)
      n.map.emplace_back(std::string(it->name.GetString(), it->name.GetStringLength()),
                         from_json(it->value, depth + 1));
  } else if (v.IsArray()) {
    n.kind = Node::Kind::Seq;
    for (const auto& e : v.GetArray()) n.seq.push_back(from_json(e, depth + 1));
  } else if (v.IsString()) {
    n.kind = Node::Kind::Scalar;
    n.scalar.assign(v.GetString(), v.GetStringLength());
  } else if (v.IsBool()) {
    n.kind = Node::Kind::Scalar;
    n.scalar = v.GetBool() ? "true" : "false";
  } else if (v.IsNumber()) {
    n.kind = Node::Kind::Scalar;
    n.scalar = v.IsInt64() ? std::to_string(v.GetInt64()) : std::to_string(v.GetDouble());
  }
  return n;
}

}  // namespace

namespace {

// The value of a "key: |" or "key: |-" line (comments are text inside a block scalar, so this reads the
// raw lines): every following line indented deeper than the key, or blank.
std::string block_scalar(std::string_view text, size_t& pos, size_t key_indent, bool keep_final_newline,
                         size_t& number) {
  std::vector<std::string_view> body;
  size_t block_indent = std::string_view::npos;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const size_t indent = raw.find_first_not_of(' ');
    const bool blank = indent == std::string_view::npos;
    if (!blank) {
      if (indent <= key_indent) break;
      if (block_indent == std::string_view::npos) block_indent = indent;
      if (indent < block_indent) break;
    }
    body.push_back(blank ? std::string_view() : raw.substr(block_indent));
    pos = end + 1;
    ++number;
  }
  while (!body.empty() && body.back().empty()) body.pop_back();
  std::string out;
  for (size_t k = 0; k < body.size(); ++k) {
    out += body[k];
    if (k + 1 < body.size() || keep_final_newline) out += '\n';
  }
  return out;
}

// Parses lines [first line number `number`) of one YAML document.
Node parse_document(std::string_view text, size_t number) {
  std::vector<Line> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    size_t indent = 0;
    while (indent < raw.size() && raw[indent] == ' ') ++indent;
    if (indent < raw.size() && raw[indent] == '\t') fail(number, "tabs are not allowed for indentation");
    std::string body = strip_comment(raw.substr(indent));
    if (body.empty() || body == "---") continue;
    Line line{number, indent, std::move(body), {}};
    if (line.text.ends_with(": |") || line.text.ends_with(": |-")) {
      line.block = block_scalar(text, pos, indent, line.text.back() == '|', number);
    }
    lines.push_back(std::move(line));
    if (end == text.size()) break;
  }
  return Parser(std::move(lines)).document();
}

}  // namespace

Node parse(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    rapidjson::Document d;
    d.Parse<json::kParseFlags>(text.data(), text.size());
    if (d.HasParseError()) throw YamlError("invalid JSON at offset " + std::to_string(d.GetErrorOffset()));
    return from_json(d);
  }
  return parse_document(text, 0);
}

std::vector<Node> parse_all(std::string_view text) {
  std::vector<Node> docs;
  size_t start = 0, start_number = 0, number = 0, pos = 0;
  auto flush = [&](size_t end) {
    Node d = parse_document(text.substr(start, end - start), start_number);
    if (d.kind != Node::Kind::Null) docs.push_back(std::move(d));
  };
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    if (line == "---" || line.starts_with("--- ")) {
      flush(pos);
      start = end + 1;
      start_number = number;
    }
    pos = end + 1;
  }
  if (start <= text.size()) flush(text.size());
  return docs;
}

}  // namespace kext::yaml
