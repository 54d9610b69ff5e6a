#pragma once
// extender-sim's run: reads the inputs a SimCommand names, runs the simulator, writes the decision log.
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>

#include "sim/simulator.h"
#include "tools/sim/sim_options.h"

namespace kext::simtool {

// Bad input (a file that cannot be read or does not decode, a configuration that does not load):
// the message names the flag, the file and the field. extender-sim exits 2 on it.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The cluster at the end of a run: how full it is.
struct ClusterUse {
  size_t nodes = 0;
  size_t nodes_used = 0;  // with at least one pod
  int64_t milli_cpu_requested = 0;
  int64_t milli_cpu_allocatable = 0;
  int64_t memory_requested = 0;
  int64_t memory_allocatable = 0;
};

ClusterUse cluster_use(const sim::SimCluster& cluster);

// "nodes used", "cpu requested", "memory requested" lines aligned as format_summary's rows.
std::string format_cluster_use(const ClusterUse& use);

struct SimResult {
  sim::RunSummary summary;
  ClusterUse use;
  // The pods still pending at the end, by each reason of their last failed cycle (a pod counts once
  // for each of its reasons, as kube-scheduler's FailedScheduling event lists them); pods that never
  // had a cycle under kNotTried, pods whose last cycle preempted under kNominated.
  std::map<std::string, size_t> pending_by_reason;
};

inline constexpr std::string_view kNotTried = "(no cycle yet)";
// A pod whose last cycle preempted: nominated, waiting for its victims to go.
inline constexpr std::string_view kNominated = "(nominated, victims terminating)";

// Loads the configuration as kube-extender does (policy/config.h load_scheduling_file; the embedded
// default without --config), the cluster and the workload, runs to the end, and writes each decision
// as one line to `log` when given. Throws InputError.
SimResult run_sim(const SimCommand& command, std::ostream* log);

// "pending by reason" and one aligned line per reason, most pods first (ties by reason); "" for none.
std::string format_pending_reasons(const std::map<std::string, size_t>& pending_by_reason);

// Seconds (as the flags take them) as simulated time, rounded to the microsecond.
sim::SimDuration seconds_to_sim(double seconds);

}  // namespace kext::simtool
