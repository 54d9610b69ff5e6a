#pragma once
// extender-sim's decision log: one JSON object per line per scheduling cycle (sim::CycleRecord), what
// kube-scheduler's Scheduled / FailedScheduling / Preempted events and its nominations would say.
#include <string>

#include "sim/core/cycle.h"

namespace kext::simtool {

// "scheduled", "preempted" or "unschedulable".
std::string_view outcome_name(sim::Outcome outcome);

// One line of the log, without its newline:
//   {"time":5.0,"cycle":1,"namespace":"default","name":"vip","uid":"...","priority":100,"attempts":1,
//    "outcome":"preempted","node":"n2","victims":["<uid>"],"victimNames":["default/low"],
//    "feasibleNodes":0,"evaluatedNodes":2,
//    "reasons":{"Insufficient cpu":2},"message":"0/2 nodes are available: 2 Insufficient cpu.",
//    "moves":[{"time":0.0,"to":"activeQ","event":"PodAdd"},
//             {"time":5.0,"to":"unschedulablePods","event":"ScheduleAttemptFailure","nominatedNode":"n2"}]}
// time is simulated seconds. node is left out when empty, score and runnerUpScore when the node was
// not chosen by scoring, reasons and message on success; victims, victimNames and moves are always
// there (empty when none).
// moves (CycleRecord::moves, when the run recorded them): the pod's moves between the queues since its
// previous line, up to this cycle's own return to the queue after a failure: time (simulated
// seconds), from (left out when the pod was in no queue: created, or in flight in this cycle), to
// ("activeQ", "backoffQ", "unschedulablePods"), event (kube-scheduler's label: PodAdd,
// ScheduleAttemptFailure, BackoffComplete, UnschedulableTimeout, NodeAdd, NodeChange,
// AssignedPodDelete, AssignedPodUpdate), nominatedNode while the pod is nominated. Every move of a pod
// is on exactly one line, except those after its last cycle when the run stops at --max-time or
// the pod is deleted while pending.
std::string decision_json(const sim::CycleRecord& d);

}  // namespace kext::simtool
