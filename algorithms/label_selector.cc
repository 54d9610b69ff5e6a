#include "algorithms/label_selector.h"

#include <algorithm>

namespace kext {
bool contains_value(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

namespace {

bool requirement_valid(const SelectorRequirement& r) {
  if (r.op == "In" || r.op == "NotIn") return !r.values.empty();
  if (r.op == "Exists" || r.op == "DoesNotExist") return r.values.empty();
  return false;
}

bool requirement_matches(const SelectorRequirement& r, const Labels& labels) {
  auto it = labels.find(r.key);
  const bool present = it != labels.end();
  if (r.op == "In") return present && contains_value(r.values, it->second);
  if (r.op == "NotIn") return !present || !contains_value(r.values, it->second);
  if (r.op == "Exists") return present;
  if (r.op == "DoesNotExist") return !present;
  return false;
}

}  // namespace

bool label_selector_is_empty(const LabelSelector& selector) {
  return selector.match_labels.empty() && selector.match_expressions.empty();
}

bool label_selector_valid(const LabelSelector& selector) {
  return std::all_of(selector.match_expressions.begin(), selector.match_expressions.end(), requirement_valid);
}

bool label_selector_matches(const LabelSelector& selector, const Labels& labels) {
  // Validate the whole selector before matching: Kubernetes converts it up front, so one bad
  // expression makes the selector unusable even if an earlier requirement already fails.
  if (!label_selector_valid(selector)) return false;
  for (const auto& [key, value] : selector.match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return std::all_of(selector.match_expressions.begin(), selector.match_expressions.end(),
                     [&](const SelectorRequirement& r) { return requirement_matches(r, labels); });
}

}  // namespace kext
