#pragma once
// extender-sim's decision log: one JSON object per line per scheduling cycle (sim::Decision), what
// kube-scheduler's Scheduled / FailedScheduling / Preempted events and its nominations would say.
#include <string>

#include "sim/cycle.h"

namespace kext::simtool {

// "scheduled", "preempted" or "unschedulable".
std::string_view outcome_name(sim::Outcome outcome);

// One line of the log, without its newline:
//   {"time":5.0,"cycle":1,"namespace":"default","name":"vip","uid":"...","priority":100,"attempts":1,
//    "outcome":"preempted","node":"n2","victims":["<uid>"],"victimNames":["default/low"],
//    "feasibleNodes":0,"evaluatedNodes":2,
//    "reasons":{"Insufficient cpu":2},"message":"0/2 nodes are available: 2 Insufficient cpu."}
// time is simulated seconds. node is left out when empty, score and runnerUpScore when the node was
// not chosen by scoring, reasons and message on success; victims and victimNames are always there
// (empty when none).
std::string decision_json(const sim::Decision& d);

}  // namespace kext::simtool
