#pragma once
// Test-only reader for the YAML this repository's manifests use: documents split by `---`, block
// mappings and sequences (items may sit at their key's indent), `- key: v` items, plain and quoted
// scalars, `|`/`|-` block scalars, comments, and one-line flow sequences of scalars. Anything else
// is read as a plain scalar, so a test comparing values fails instead of the reader guessing.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kext::testing::yaml {

struct Node {
  enum class Kind { Null, Scalar, Map, Seq } kind = Kind::Null;
  std::string scalar;
  std::vector<std::pair<std::string, Node>> map;
  std::vector<Node> seq;

  const Node* get(std::string_view key) const {
    for (const auto& [k, v] : map) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  std::string str(std::string_view key) const {
    const Node* n = get(key);
    return n && n->kind == Kind::Scalar ? n->scalar : std::string();
  }
  // Follows a path of keys through nested maps; null when any step is missing.
  const Node* at(std::initializer_list<std::string_view> path) const {
    const Node* n = this;
    for (auto k : path) {
      if (!(n = n->get(k))) return nullptr;
    }
    return n;
  }
};

namespace detail {

inline std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(b, e - b));
}

// Cuts a ` #` comment that is outside quotes.
inline std::string strip_comment(std::string_view s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ')) {
      return trim(s.substr(0, i));
    }
  }
  return trim(s);
}

inline Node scalar(std::string_view raw) {
  std::string s = strip_comment(raw);
  Node n;
  if (s.empty() || s == "~" || s == "null") return n;
  n.kind = Node::Kind::Scalar;
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    n.scalar = s.substr(1, s.size() - 2);
  } else if (s == "{}") {
    n.kind = Node::Kind::Map;
  } else if (s.size() >= 2 && s.front() == '[' && s.back() == ']') {
    n.kind = Node::Kind::Seq;
    std::string inner = s.substr(1, s.size() - 2);
    size_t start = 0;
    while (start <= inner.size()) {
      size_t comma = inner.find(',', start);
      if (comma == std::string::npos) comma = inner.size();
      std::string item = trim(std::string_view(inner).substr(start, comma - start));
      if (!item.empty()) n.seq.push_back(scalar(item));
      start = comma + 1;
    }
  } else {
    n.scalar = s;
  }
  return n;
}

// The position of the `:` that ends a mapping key, or npos.
inline size_t key_colon(std::string_view s) {
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ')) {
      return std::string_view::npos;
    } else if (c == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) {
      return i;
    }
  }
  return std::string_view::npos;
}

class Parser {
 public:
  explicit Parser(std::vector<std::string> lines) : lines_(std::move(lines)) {}

  Node document() { return node(0); }

 private:
  static size_t indent(const std::string& l) { return l.find_first_not_of(' '); }
  static bool is_item(std::string_view content) { return content == "-" || content.starts_with("- "); }

  void skip_blank() {
    while (i_ < lines_.size()) {
      const std::string t = trim(lines_[i_]);
      if (!t.empty() && t[0] != '#') return;
      ++i_;
    }
  }

  Node node(size_t min_indent) {
    skip_blank();
    if (i_ >= lines_.size()) return {};
    const size_t ind = indent(lines_[i_]);
    if (ind < min_indent) return {};
    const std::string_view content = std::string_view(lines_[i_]).substr(ind);
    if (is_item(content)) return sequence(ind);
    if (key_colon(content) != std::string_view::npos) return mapping(ind);
    ++i_;
    return scalar(content);
  }

  Node sequence(size_t ind) {
    Node n;
    n.kind = Node::Kind::Seq;
    while (true) {
      skip_blank();
      if (i_ >= lines_.size() || indent(lines_[i_]) != ind) break;
      std::string& line = lines_[i_];
      if (!is_item(std::string_view(line).substr(ind))) break;
      const size_t col = line.find_first_not_of(' ', ind + 1);
      if (col == std::string::npos || line[col] == '#') {
        ++i_;
        n.seq.push_back(node(ind + 1));
      } else {
        // "- key: v": the item is a block starting at the column after the dash.
        line = std::string(col, ' ') + line.substr(col);
        n.seq.push_back(node(col));
      }
    }
    return n;
  }

  Node block_scalar(size_t key_indent, bool keep_final_newline) {
    std::vector<std::string> body;
    size_t block_indent = std::string::npos;
    while (i_ < lines_.size()) {
      const std::string& l = lines_[i_];
      const bool blank = trim(l).empty();
      if (!blank) {
        const size_t ind = indent(l);
        if (ind <= key_indent) break;
        if (block_indent == std::string::npos) block_indent = ind;
        if (ind < block_indent) break;
      }
      body.push_back(blank ? std::string() : l.substr(block_indent));
      ++i_;
    }
    while (!body.empty() && body.back().empty()) body.pop_back();
    Node n;
    n.kind = Node::Kind::Scalar;
    for (size_t k = 0; k < body.size(); ++k) {
      n.scalar += body[k];
      if (k + 1 < body.size() || keep_final_newline) n.scalar += '\n';
    }
    return n;
  }

  Node mapping(size_t ind) {
    Node n;
    n.kind = Node::Kind::Map;
    while (true) {
      skip_blank();
      if (i_ >= lines_.size() || indent(lines_[i_]) != ind) break;
      const std::string line = lines_[i_];
      const std::string_view content = std::string_view(line).substr(ind);
      const size_t colon = key_colon(content);
      if (is_item(content) || colon == std::string_view::npos) break;
      std::string key = scalar(content.substr(0, colon)).scalar;
      const std::string rest = strip_comment(content.substr(colon + 1));
      ++i_;
      Node value;
      if (rest == "|" || rest == "|-") {
        value = block_scalar(ind, rest == "|");
      } else if (!rest.empty()) {
        value = scalar(rest);
      } else {
        skip_blank();
        // A sequence may sit at its key's own indent.
        if (i_ < lines_.size() && indent(lines_[i_]) == ind && is_item(std::string_view(lines_[i_]).substr(ind))) {
          value = sequence(ind);
        } else {
          value = node(ind + 1);
        }
      }
      n.map.emplace_back(std::move(key), std::move(value));
    }
    return n;
  }

  std::vector<std::string> lines_;
  size_t i_ = 0;
};

}  // namespace detail

// Every document of a stream; empty documents are dropped.
inline std::vector<Node> parse_all(std::string_view text) {
  std::vector<Node> docs;
  std::vector<std::string> lines;
  auto flush = [&] {
    Node d = detail::Parser(std::move(lines)).document();
    if (d.kind != Node::Kind::Null) docs.push_back(std::move(d));
    lines.clear();
  };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string line(text.substr(pos, eol - pos));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "---" || line.starts_with("--- ")) {
      flush();
    } else {
      lines.push_back(std::move(line));
    }
    pos = eol + 1;
  }
  flush();
  return docs;
}

}  // namespace kext::testing::yaml
