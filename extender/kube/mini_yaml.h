#pragma once
// The YAML that kubeconfigs and this repository's manifests are written in: block mappings and
// sequences (including "- key: v" items and sequences at their key's indent, as kubectl writes them),
// plain and quoted scalars, `|`/`|-` block scalars, comments, {} and one-line flow sequences of
// scalars, and documents split by `---`. JSON documents are read too. Anchors, tags, folded scalars
// and nested flow collections are not: they are reported as errors rather than misread.
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kext::yaml {

struct YamlError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Node {
  struct Entry;  // one map entry: key `first`, value `second`
  enum class Kind { Null, Scalar, Map, Seq } kind = Kind::Null;
  std::string scalar;
  // Not std::pair<std::string, Node>: clang rejects that pair while Node is still incomplete (the pair's
  // default-constructor constraint asks whether Node is default-constructible, which needs this vector).
  std::vector<Entry> map;
  std::vector<Node> seq;

  // The value under key in a map, or null.
  const Node* get(std::string_view key) const;
  // The scalar under key, or "" when it is missing or not a scalar.
  std::string str(std::string_view key) const;
  // Follows a path of keys through nested maps; null when any step is missing.
  const Node* at(std::initializer_list<std::string_view> path) const;
};

struct Node::Entry {
  Entry(std::string k, Node v) : first(std::move(k)), second(std::move(v)) {}
  std::string first;
  Node second;
};

// One document (a `---` line is skipped). Throws YamlError with the line number.
Node parse(std::string_view text);
// Every document of a stream split by `---` lines; empty documents are dropped.
std::vector<Node> parse_all(std::string_view text);

}  // namespace kext::yaml
