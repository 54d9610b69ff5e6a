#include "sim/topology_fit.h"

#include <algorithm>
#include <map>
#include <set>

#include "algorithms/pod_requests.h"

namespace kext::simtool {

std::string GroupShape::text() const { return std::to_string(size) + " × " + gang::request_text(request); }

namespace {

// The keys the groups' constraints name, by name.
std::set<std::string> constraint_keys(const gang::GroupMap& groups) {
  std::set<std::string> keys;
  for (const auto& [key, g] : groups) {
    if (!g.topology.required.empty()) keys.insert(g.topology.required);
    if (!g.topology.preferred.empty()) keys.insert(g.topology.preferred);
  }
  return keys;
}

// Each group's first member among `pods`, by group key.
std::map<std::string, const Pod*, std::less<>> first_members(const gang::GroupMap& groups,
                                                             std::span<const Pod* const> pods) {
  std::map<std::string, const Pod*, std::less<>> first;
  for (const Pod* p : pods) {
    std::optional<std::string> key = gang::pod_group_key(*p);
    if (key && groups.contains(*key)) first.emplace(std::move(*key), p);
  }
  return first;
}

}  // namespace

TopologyFit plan_topology_fit(std::span<const std::string> configured, const gang::GroupMap& groups,
                              std::span<const Pod* const> pods) {
  TopologyFit plan;
  plan.levels.assign(configured.begin(), configured.end());
  for (const std::string& key : constraint_keys(groups))
    if (std::find(plan.levels.begin(), plan.levels.end(), key) == plan.levels.end())
      plan.levels.push_back(key);
  const auto first = first_members(groups, pods);
  for (const auto& [key, g] : groups) {
    auto member = first.find(key);
    if (member == first.end() || !g.all_or_nothing) continue;
    GroupShape shape{std::max<int32_t>(g.min_member, 1), compute_pod_requests(*member->second, false)};
    if (std::find(plan.shapes.begin(), plan.shapes.end(), shape) == plan.shapes.end())
      plan.shapes.push_back(std::move(shape));
  }
  std::stable_sort(plan.shapes.begin(), plan.shapes.end(),
                   [](const GroupShape& a, const GroupShape& b) { return a.size > b.size; });
  if (plan.empty()) return {};
  return plan;
}

std::vector<std::vector<gang::LevelFit>> fit_shapes(const TopologyFit& plan,
                                                    std::span<const NodeInfo* const> nodes) {
  std::vector<std::vector<gang::LevelFit>> out;
  out.reserve(plan.shapes.size());
  for (const GroupShape& s : plan.shapes)
    out.push_back(gang::fit_by_level(plan.levels, nodes, s.request, s.size));
  return out;
}

std::string level_fit_text(const std::vector<gang::LevelFit>& levels) {
  std::string out;
  for (const gang::LevelFit& f : levels) {
    if (!out.empty()) out += ", ";
    out += std::string(gang::level_name(f.key)) + " " + std::to_string(f.fitting) + " of " +
           std::to_string(f.domains);
    if (!f.best.empty()) out += " (best " + f.best + ": " + std::to_string(f.best_fits) + ")";
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> topology_fit_rows(const TopologyFit& fit) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (size_t i = 0; i < fit.shapes.size(); ++i) {
    const std::string name = "groups of " + fit.shapes[i].text() + " fit in";
    if (i < fit.start.size()) rows.emplace_back(name + ", at start", level_fit_text(fit.start[i]));
    if (i < fit.end.size()) rows.emplace_back(name + ", at end", level_fit_text(fit.end[i]));
  }
  return rows;
}

}  // namespace kext::simtool
