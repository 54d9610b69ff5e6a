#include "algorithms/node_selector.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

#include "algorithms/label_selector.h"

namespace kext {
namespace {

// strconv.ParseInt(s, 10, 64): optional sign (Go accepts '+', from_chars does not), digits only,
// no whitespace, range-checked.
std::optional<int64_t> parse_go_int64(std::string_view s) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return std::nullopt;
  }
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

constexpr std::string_view kNameField = "metadata.name";

}  // namespace

bool match_node_selector_requirement(const SelectorRequirement& req, const Node& node) {
  auto it = node.labels.find(req.key);
  const bool present = it != node.labels.end();
  if (req.op == "In") return !req.values.empty() && present && contains_value(req.values, it->second);
  if (req.op == "NotIn") return !req.values.empty() && (!present || !contains_value(req.values, it->second));
  if (req.op == "Exists") return req.values.empty() && present;
  if (req.op == "DoesNotExist") return req.values.empty() && !present;
  if (req.op == "Gt" || req.op == "Lt") {
    // The requirement value is checked first because Kubernetes rejects it at parse time, which
    // fails the term whether or not the node has the label.
    if (req.values.size() != 1) return false;
    auto bound = parse_go_int64(req.values.front());
    if (!bound || !present) return false;
    auto value = parse_go_int64(it->second);
    if (!value) return false;
    return req.op == "Gt" ? *value > *bound : *value < *bound;
  }
  return false;
}

bool match_node_field_requirement(const SelectorRequirement& req, const Node& node) {
  // API validation admits only metadata.name; treating other keys as unparsable keeps a pod that
  // slipped past validation from matching every node through NotIn.
  if (req.key != kNameField || req.values.size() != 1) return false;
  if (req.op == "In") return node.name == req.values.front();
  if (req.op == "NotIn") return node.name != req.values.front();
  return false;
}

bool match_node_selector_term(const NodeSelectorTerm& term, const Node& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  auto expr = [&](const SelectorRequirement& r) { return match_node_selector_requirement(r, node); };
  auto field = [&](const SelectorRequirement& r) { return match_node_field_requirement(r, node); };
  return std::all_of(term.match_expressions.begin(), term.match_expressions.end(), expr) &&
         std::all_of(term.match_fields.begin(), term.match_fields.end(), field);
}

bool match_node_selector_terms(std::span<const NodeSelectorTerm> terms, const Node& node) {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const NodeSelectorTerm& t) { return match_node_selector_term(t, node); });
}

bool match_node_selector_labels(const Labels& selector, const Node& node) {
  return std::all_of(selector.begin(), selector.end(), [&](const auto& kv) {
    auto it = node.labels.find(kv.first);
    return it != node.labels.end() && it->second == kv.second;
  });
}

bool match_required_affinity(const Pod& pod, const Node& node) {
  if (!match_node_selector_labels(pod.node_selector, node)) return false;
  if (!pod.node_affinity || !pod.node_affinity->required) return true;
  return match_node_selector_terms(*pod.node_affinity->required, node);
}

}  // namespace kext
