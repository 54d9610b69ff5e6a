#include "algorithms/catalogue.h"

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

struct FilterEntry {
  std::string_view name;
  std::unique_ptr<FilterPlugin> (*make)();
};

// In Kubernetes' predicatesOrdering: cheap, unresolvable checks first.
constexpr std::array kFilters{
    FilterEntry{"CheckNodeUnschedulable", &make_check_node_unschedulable_filter},
    FilterEntry{"PodFitsHost", &make_pod_fits_host_filter},
    FilterEntry{"MatchNodeSelector", &make_match_node_selector_filter},
    FilterEntry{"PodFitsResources", &make_pod_fits_resources_filter},
    FilterEntry{"PodToleratesNodeTaints", &make_pod_tolerates_node_taints_filter},
};

struct ScoreEntry {
  std::string_view name;
  std::unique_ptr<ScorePlugin> (*make)(const ScoreArgs&);
};

constexpr std::array kScores{
    ScoreEntry{"LeastRequestedPriority", [](const ScoreArgs&) { return make_least_requested_score(); }},
    ScoreEntry{"MostRequestedPriority", [](const ScoreArgs&) { return make_most_requested_score(); }},
    ScoreEntry{"BalancedResourceAllocation",
               [](const ScoreArgs&) { return make_balanced_resource_allocation_score(); }},
    ScoreEntry{"RequestedToCapacityRatioPriority",
               [](const ScoreArgs& a) {
                 return make_requested_to_capacity_ratio_score(a.requested_to_capacity_ratio.value_or(
                     RequestedToCapacityRatioArgs{}));
               }},
    ScoreEntry{"NodeAffinityPriority", [](const ScoreArgs&) { return make_node_affinity_score(); }},
    ScoreEntry{"TaintTolerationPriority", [](const ScoreArgs&) { return make_taint_toleration_score(); }},
    ScoreEntry{"ImageLocalityPriority", [](const ScoreArgs&) { return make_image_locality_score(); }},
};

}  // namespace

std::unique_ptr<FilterPlugin> make_filter(std::string_view name) {
  for (const auto& e : kFilters) {
    if (e.name == name) return e.make();
  }
  return nullptr;
}

std::unique_ptr<ScorePlugin> make_score(std::string_view name, const ScoreArgs& args) {
  for (const auto& e : kScores) {
    if (e.name == name) return e.make(args);
  }
  return nullptr;
}

std::vector<std::string_view> filter_names() {
  std::vector<std::string_view> out;
  for (const auto& e : kFilters) out.push_back(e.name);
  return out;
}

std::vector<std::string_view> score_names() {
  std::vector<std::string_view> out;
  for (const auto& e : kScores) out.push_back(e.name);
  return out;
}

int filter_rank(std::string_view name) {
  for (size_t i = 0; i < kFilters.size(); ++i) {
    if (kFilters[i].name == name) return static_cast<int>(i);
  }
  return static_cast<int>(kFilters.size());
}

}  // namespace kext
