#pragma once
// The YAML a kubeconfig is written in: block mappings and sequences (including "- key: v" items and
// sequences at their key's indent, as kubectl writes them), plain and quoted scalars, comments, and
// the flow forms {} and []. JSON documents are read too. Anchors, tags and block scalars are not:
// they are reported as errors rather than misread.
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
  enum class Kind { Null, Scalar, Map, Seq } kind = Kind::Null;
  std::string scalar;
  std::vector<std::pair<std::string, Node>> map;
  std::vector<Node> seq;

  // The value under key in a map, or null.
  const Node* get(std::string_view key) const;
  // The scalar under key, or "" when it is missing or not a scalar.
  std::string str(std::string_view key) const;
};

// Throws YamlError with the line number.
Node parse(std::string_view text);

}  // namespace kext::yaml
