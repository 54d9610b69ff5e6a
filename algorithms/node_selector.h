#pragma once
// Node selector matching (component-helpers nodeaffinity / v1helper.MatchNodeSelectorTerms): the
// required part of node affinity, spec.nodeSelector, and the terms preferred affinity scores.
#include <span>

#include "algorithms/model.h"

namespace kext {

// One matchExpressions entry against the node's labels (labels.Requirement.Matches). A requirement
// Kubernetes would fail to parse matches nothing: In/NotIn without values, Exists/DoesNotExist with
// values, Gt/Lt without exactly one int64 value, an unknown operator. NotIn and DoesNotExist hold
// when the label is missing; Gt/Lt also need the label value to parse as a base-10 int64.
bool match_node_selector_requirement(const SelectorRequirement& req, const Node& node);

// One matchFields entry. Only metadata.name exists, with In/NotIn and exactly one value; anything
// else is a parse error in Kubernetes and therefore matches nothing here.
bool match_node_field_requirement(const SelectorRequirement& req, const Node& node);

// Expressions and fields ANDed. A term with neither matches nothing ("nil or empty term selects no
// objects"); a term with an unparsable requirement matches nothing (LazyErrorNodeSelector).
bool match_node_selector_term(const NodeSelectorTerm& term, const Node& node);

// Terms ORed; an empty list matches nothing.
bool match_node_selector_terms(std::span<const NodeSelectorTerm> terms, const Node& node);

// spec.nodeSelector: every pair must be a label on the node with exactly that value. Empty = any node.
bool match_node_selector_labels(const Labels& selector, const Node& node);

// GetRequiredNodeAffinity: spec.nodeSelector AND requiredDuringScheduling. A nil required affinity
// is no constraint; an empty (non-nil) term list matches no node.
bool match_required_affinity(const Pod& pod, const Node& node);

}  // namespace kext
