#pragma once
// extender-sim capacity --html FILE: the answer as a page in the style of extender-sim's report
// (sim/report/html_parts.h): the question, its first line as the terminal prints it, and its tables.
#include <string>

#include "sim/capacity/add_node.h"
#include "sim/capacity/drain.h"
#include "sim/capacity/how_many_fit.h"
#include "sim/capacity/how_many_groups.h"

namespace kext::simtool {

// Each answer's section: a heading, the verdict, and its tables (HTML-escaped).
std::string capacity_html(const sim::capacity::CapacityAnswer& answer);
std::string groups_html(const sim::capacity::GroupAnswer& answer);
std::string drain_html(const sim::capacity::DrainAnswer& answer);
std::string add_nodes_html(const sim::capacity::AddNodeAnswer& answer);

// The page: `question` (the command line's question and inputs, as rows name: value) above `section`.
std::string capacity_page(const std::vector<std::pair<std::string, std::string>>& question,
                          const std::string& section);

}  // namespace kext::simtool
