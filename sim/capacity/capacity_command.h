#pragma once
// extender-sim capacity: what-if questions on a cluster file, a snapshot or a live cluster read once
// (docs/capacity.md). `--pod FILE`: how many more of this pod fit, per node, and why the next does not.
// `--drain NODES`: what draining those nodes does to their pods and the budgets that cover them.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/capacity/drain.h"
#include "sim/capacity/how_many_fit.h"
#include "sim/capacity/how_many_groups.h"
#include "sim/inputs.h"
#include "sim/sim_options.h"

namespace kext::simtool {

struct CapacityCommand {
  // The cluster and the configuration, as extender-sim's own flags of the same names give them:
  // --cluster or --kubeconfig (--context), --config, --scheduler-config, --kubernetes-version,
  // --seed, --percentage-of-nodes-to-score.
  SimCommand inputs;
  std::string pod_file;  // --pod: the pod asked about (JSON or YAML)
  std::string drain;     // --drain: node names or key=value labels, comma-separated
  size_t max_pods = 0;   // --max (0: no limit)
  bool json = false;     // --json: the answer as one JSON object
  bool help = false;
};

// argv[0] is "capacity". Throws std::invalid_argument naming the flag.
CapacityCommand parse_capacity_options(int argc, char** argv);
std::string capacity_usage();
// Every flag's long name, for the docs check (tests/support/doc_flags.h).
std::vector<std::string> capacity_flag_names();

// What --pod's file asks about: one Pod; or one group, the pods of one workload (a Deployment, a
// ReplicaSet, a StatefulSet, a Job) or of one PodGroup (given in the file beside them), which is then
// answered in whole groups.
struct PodQuestion {
  std::vector<Pod> pods;
  std::optional<gang::PodGroupSpec> gang;
  std::vector<WorkloadSelector> replica_sets, stateful_sets;  // the workload's, for default spreading
  bool is_group() const { return pods.size() > 1 || gang.has_value(); }
};
// `text` is YAML or JSON (one object, a List, or several documents). Throws DecodeError naming what is
// wrong: no pod, two PodGroups, a pod not of the PodGroup.
PodQuestion decode_pod_question(const std::string& text);

// The pod of --pod's file (a Pod, or a List of one), its priority resolved against `classes` as the
// Priority admission plugin would. Throws InputError naming --pod and the file.
Pod read_capacity_pod(const std::string& path, const std::vector<PriorityClass>& classes);

// Reads the cluster and the configuration, and answers --pod. Throws InputError (extender-sim exits 2).
sim::capacity::CapacityAnswer run_capacity(const CapacityCommand& command);
// The same for a group in --pod's file (PodQuestion): how many more whole groups fit.
sim::capacity::GroupAnswer run_capacity_groups(const CapacityCommand& command);
// The same for --drain.
sim::capacity::DrainAnswer run_drain(const CapacityCommand& command);
// The answer, as format_capacity or capacity_json (--json) print it, for either question.
std::string capacity_output(const CapacityCommand& command);

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

}  // namespace kext::simtool
