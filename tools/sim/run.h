#pragma once
// extender-sim's run: reads the inputs a SimCommand names, runs the simulator, writes the decision log.
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

// Loads the configuration as kube-extender does (policy/config.h load_scheduling_file; the embedded
// default without --config), the cluster and the workload, runs to the end, and writes each decision
// as one line to `log` when given. Throws InputError.
sim::RunSummary run_sim(const SimCommand& command, std::ostream* log);

// Seconds (as the flags take them) as simulated time, rounded to the microsecond.
sim::SimDuration seconds_to_sim(double seconds);

}  // namespace kext::simtool
