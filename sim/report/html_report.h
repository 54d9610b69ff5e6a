#pragma once
// extender-sim --html: one self-contained HTML file (inline CSS, inline SVG drawn here, no script, no
// external reference): the run's inputs, seed and configuration(s) (with --compare, their difference),
// the summary table, the pods pending over simulated time, each node's requested share of its
// allocatable at the end (labelled bars), the evictions; with --compare, both runs side by side and
// the pods placed differently (counted by namespace and by owner, then listed in order).
#include <string>
#include <string_view>
#include <vector>

#include "sim/report/html_parts.h"  // html_escape
#include "sim/run.h"
#include "sim/sim_options.h"

namespace kext::simtool {

struct ReportRun {
  std::string name;  // the configuration's file, or "default"
  const SimResult* result = nullptr;
};

// Nodes drawn as labelled bars (name and value) per chart; with more, the fullest this many, and the
// whole cluster's distribution as unlabelled bars above them.
inline constexpr size_t kLabelledBarsMax = 40;

// `runs`: one, or two with --compare (then `diffs` is placement_diff of them). The charts of both
// runs share their scales, so that they compare at a glance. `command`: the inputs and seed shown.
std::string html_report(const std::vector<ReportRun>& runs, const std::vector<PlacementDiff>& diffs,
                        const SimCommand& command = SimCommand());

// The lines of `a` and `b` as a unified diff: a line of `a` only is "-line", of `b` only "+line", of
// both " line"; only changed lines with `context` lines around them, "…" where lines are left out.
// Empty when they are equal.
std::vector<std::string> line_diff(std::string_view a, std::string_view b, size_t context = 3);

// a < b with runs of digits compared as numbers ("web-2" < "web-10"), for sorted pod lists.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace kext::simtool
