#include "algorithms/catalogue.h"

#include <algorithm>
#include <array>

#include "algorithms/filters/check_node_unschedulable.h"
#include "algorithms/filters/match_node_selector.h"
#include "algorithms/filters/pod_fits_host.h"
#include "algorithms/filters/pod_fits_resources.h"
#include "algorithms/filters/pod_tolerates_node_taints.h"
#include "algorithms/scores/balanced_resource_allocation.h"
#include "algorithms/scores/image_locality.h"
#include "algorithms/scores/least_requested.h"
#include "algorithms/scores/most_requested.h"
#include "algorithms/scores/node_affinity.h"
#include "algorithms/scores/requested_to_capacity_ratio.h"
#include "algorithms/scores/taint_toleration.h"

namespace kext {

namespace {

// The factories; each plugin's name is its name(), written once in the plugin. The order they run in
// is filter_rank's, not this table's.
constexpr std::array kFilters{
    &make_check_node_unschedulable_filter,  &make_pod_fits_host_filter,
    &make_match_node_selector_filter,       &make_pod_fits_resources_filter,
    &make_pod_tolerates_node_taints_filter,
};

using ScoreFactory = std::unique_ptr<ScorePlugin> (*)(const ScoreArgs&);
constexpr auto kScores = std::to_array<ScoreFactory>({
    [](const ScoreArgs&) { return make_least_requested_score(); },
    [](const ScoreArgs&) { return make_most_requested_score(); },
    [](const ScoreArgs&) { return make_balanced_resource_allocation_score(); },
    [](const ScoreArgs& a) {
      return make_requested_to_capacity_ratio_score(
          a.requested_to_capacity_ratio.value_or(RequestedToCapacityRatioArgs{}));
    },
    [](const ScoreArgs&) { return make_node_affinity_score(); },
    [](const ScoreArgs&) { return make_taint_toleration_score(); },
    [](const ScoreArgs&) { return make_image_locality_score(); },
});

// One filter under its names: the current plugin, and the legacy predicates that select it ("" = none).
struct FilterNames {
  std::string_view plugin;
  std::array<std::string_view, 2> predicates;
};

constexpr FilterNames kNodeUnschedulable{kNodeUnschedulablePlugin, {kCheckNodeUnschedulablePredicate}};
// v1.16 registered PodFitsHost under the predicate name HostName (HostNamePred).
constexpr FilterNames kNodeName{kNodeNamePlugin, {kPodFitsHostPredicate, "HostName"}};
constexpr FilterNames kTaintToleration{kTaintTolerationPlugin, {kPodToleratesNodeTaintsPredicate}};
constexpr FilterNames kNodeAffinity{kNodeAffinityPlugin, {kMatchNodeSelectorPredicate}};
// Not implemented here; ranked so that a configuration naming it elsewhere keeps its place.
constexpr FilterNames kNodePorts{"NodePorts", {"PodFitsHostPorts"}};
constexpr FilterNames kNodeResourcesFit{kNodeResourcesFitPlugin, {kPodFitsResourcesPredicate}};

// pkg/scheduler/apis/config/v1/default_plugins.go getDefaultPlugins: the MultiPoint plugins that filter,
// in their listed order (the framework runs Filter plugins in that order).
constexpr std::array kCurrentFilterOrder{&kNodeUnschedulable, &kNodeName,  &kTaintToleration,
                                         &kNodeAffinity,      &kNodePorts, &kNodeResourcesFit};
// v1.16 pkg/scheduler/algorithm/predicates/predicates.go predicatesOrdering (ordered by "restrictiveness
// & complexity"), restricted to these filters: taints after resources.
constexpr std::array kV1_16FilterOrder{&kNodeUnschedulable, &kNodeName,         &kNodePorts,
                                       &kNodeAffinity,      &kNodeResourcesFit, &kTaintToleration};

// The names in table order, asked of one instance of each plugin (name() returns a literal).
const std::vector<std::string_view>& filter_table() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (auto make : kFilters) out.push_back(make()->name());
    return out;
  }();
  return names;
}

const std::vector<std::string_view>& score_table() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (auto make : kScores) out.push_back(make(ScoreArgs{})->name());
    return out;
  }();
  return names;
}

}  // namespace

std::unique_ptr<FilterPlugin> make_filter(std::string_view name) {
  const auto& names = filter_table();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return kFilters[i]();
  }
  return nullptr;
}

std::unique_ptr<ScorePlugin> make_score(std::string_view name, const ScoreArgs& args) {
  const auto& names = score_table();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return kScores[i](args);
  }
  return nullptr;
}

std::vector<std::string_view> filter_names() { return filter_table(); }

std::vector<std::string_view> score_names() { return score_table(); }

int filter_rank(std::string_view name, Semantics semantics) {
  const auto& order = semantics == Semantics::kV1_16 ? kV1_16FilterOrder : kCurrentFilterOrder;
  for (size_t i = 0; !name.empty() && i < order.size(); ++i) {
    if (order[i]->plugin == name ||
        std::ranges::find(order[i]->predicates, name) != order[i]->predicates.end())
      return static_cast<int>(i);
  }
  return static_cast<int>(order.size());
}

}  // namespace kext
