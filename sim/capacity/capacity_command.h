#pragma once
// extender-sim capacity: what-if questions on a cluster file, a snapshot or a live cluster read once
// (docs/capacity.md). `--pod FILE`: how many more of this pod fit, per node, and why the next does not.
// `--drain NODES`: what draining those nodes does to their pods and the budgets that cover them.
// `--add-node FILE`: which pending pods nodes like this one let bind, and how few of them place all.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/capacity/add_node.h"
#include "sim/capacity/capacity_format.h"
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
  std::string pod_file;   // --pod: the pod asked about (JSON or YAML)
  std::string drain;      // --drain: node names or key=value labels, comma-separated
  std::string add_node;   // --add-node: the template Node (JSON or YAML)
  size_t count = 0;       // --count: the most nodes --add-node adds (0: one per pending pod)
  size_t max_pods = 0;    // --max (0: no limit)
  bool json = false;      // --json: the answer as one JSON object
  std::string html_file;  // --html: the answer as an HTML page too
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
// --add-node's file: the one Node it holds (JSON or YAML; a List of one too). Throws InputError naming
// --add-node and the file.
Node read_template_node(const std::string& path);
// The same for --add-node.
sim::capacity::AddNodeAnswer run_add_node(const CapacityCommand& command);
// The answer, as capacity_format.h prints it (text, or JSON with --json), for any question; with --html,
// written as a page too (capacity_html.h). Throws std::runtime_error when the page cannot be written.
std::string capacity_output(const CapacityCommand& command);

}  // namespace kext::simtool
