#pragma once
// metav1.LabelSelector matching (apimachinery LabelSelectorAsSelector + labels.Selector.Matches).
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/model.h"

namespace kext {

// True when `values` holds `v`: an In/NotIn requirement's values (label and node selectors alike), an
// affinity term's namespaces.
bool contains_value(const std::vector<std::string>& values, std::string_view v);

// True when the selector has neither matchLabels nor matchExpressions. metav1 turns such a selector
// into labels.Everything(); callers that follow the scheduler's PDB reading must check this first,
// because there an empty selector matches nothing.
bool label_selector_is_empty(const LabelSelector& selector);

// False when LabelSelectorAsSelector would reject the selector: an operator other than In, NotIn,
// Exists, DoesNotExist (Gt/Lt belong to node selectors only), In/NotIn without values, or
// Exists/DoesNotExist with values. Label key/value syntax is not checked: the API server already
// validated the objects we receive.
bool label_selector_valid(const LabelSelector& selector);

// metav1 semantics: every matchLabels pair and every expression must hold (AND). An empty selector
// matches every label set; an invalid one matches nothing (the scheduler treats a conversion error as
// "no match"). NotIn and DoesNotExist hold when the key is absent.
bool label_selector_matches(const LabelSelector& selector, const Labels& labels);

}  // namespace kext
