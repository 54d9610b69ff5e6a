#pragma once
// extender-sim --html: one self-contained HTML file (inline CSS, inline SVG drawn here, no script, no
// external reference) with the summary table, the pods pending over simulated time and each node's
// requested share of its allocatable at the end; with --compare, both runs side by side and the pods
// placed differently.
#include <string>
#include <string_view>
#include <vector>

#include "tools/sim/run.h"

namespace kext::simtool {

struct ReportRun {
  std::string name;  // the configuration's file, or "default"
  const SimResult* result = nullptr;
};

// `runs`: one, or two with --compare (then `diffs` is placement_diff of them). The charts of both
// runs share their scales, so that they compare at a glance.
std::string html_report(const std::vector<ReportRun>& runs, const std::vector<PlacementDiff>& diffs);

// Text as HTML element content or attribute value: & < > " ' escaped.
std::string html_escape(std::string_view text);

}  // namespace kext::simtool
