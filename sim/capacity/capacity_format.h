#pragma once
// extender-sim capacity's answers as text for a terminal and as JSON for tools (--json; the extender's
// POST /capacity answers with the same JSON).
#include <string>
#include <vector>

#include "sim/capacity/add_node.h"
#include "sim/capacity/drain.h"
#include "sim/capacity/how_many_fit.h"
#include "sim/capacity/how_many_groups.h"

namespace kext::simtool {

// Items comma-separated ("a, b"), and nodes with their counts ("node-a 4, node-b 4"), as the answers
// list them.
std::string joined(const std::vector<std::string>& items);
std::string nodes_text(const std::vector<sim::capacity::NodeCount>& per_node);

// For a terminal: the count, one line per node that took copies, and why the next one does not fit.
std::string format_capacity(const sim::capacity::CapacityAnswer& answer);
// For tools: {"pod", "fit", "stoppedAtMax", "perNode": [{"node", "pods"}], "reasons": {reason: nodes},
// "message"}.
std::string capacity_json(const sim::capacity::CapacityAnswer& answer);
// For a terminal: the count of whole groups, where each went, and why the next does not complete.
std::string format_groups(const sim::capacity::GroupAnswer& answer);
// For tools: {"group", "size", "fit", "eachInOne", "groups": [{"perNode": [{"node", "pods"}], "domains"}],
// "stoppedAtMax", "stoppedByBudget", "nodeChecks", "reasons", "message"}.
std::string groups_json(const sim::capacity::GroupAnswer& answer);
// For a terminal: the verdict, each evicted pod and where it lands, the pending ones and why, the budgets.
std::string format_drain(const sim::capacity::DrainAnswer& answer);
// For tools: {"nodes", "safe", "placed": [{"pod", "from", "to", "priority"}], "pending": [{"pod", "from",
// "priority", "reason"}], "unreplaced", "daemonPods", "preempted", "budgets": [{"pdb", "evicted",
// "allowed", "slows", "blocks"}]}.
std::string drain_json(const sim::capacity::DrainAnswer& answer);

// For a terminal: how many nodes of the template place how many pending pods, the pods each lets bind,
// and the pods still pending and why.
std::string format_add_nodes(const sim::capacity::AddNodeAnswer& answer);
// For tools: {"template", "pending", "fitAlready", "needed", "tried", "added": [{"node", "pods"}],
// "elsewhere", "stillPending": [{"pod", "reason"}], "preempted", "stoppedAtMax"}.
std::string add_nodes_json(const sim::capacity::AddNodeAnswer& answer);

}  // namespace kext::simtool
