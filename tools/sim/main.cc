// extender-sim: simulates kube-scheduler's scheduling loop around the extender's algorithms on a
// cluster snapshot and a workload, writes one JSON line per decision and prints a summary.
#include <fstream>
#include <iostream>

#include "sim/simulator.h"
#include "tools/sim/run.h"
#include "tools/sim/sim_options.h"

int main(int argc, char** argv) {
  kext::simtool::SimCommand cmd;
  try {
    cmd = kext::simtool::parse_sim_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "extender-sim: " << e.what() << "\n(extender-sim --help lists the flags)\n";
    return 2;
  }
  if (cmd.help) {
    std::cout << kext::simtool::sim_usage();
    return 0;
  }
  std::ofstream log;
  if (!cmd.log_file.empty()) {
    log.open(cmd.log_file, std::ios::binary | std::ios::trunc);
    if (!log) {
      std::cerr << "extender-sim: --log " << cmd.log_file << ": cannot create the file" << std::endl;
      return 2;
    }
  }
  try {
    const kext::simtool::SimResult result =
        kext::simtool::run_sim(cmd, cmd.log_file.empty() ? nullptr : &log);
    log.close();
    if (!cmd.log_file.empty() && !log) {
      std::cerr << "extender-sim: --log " << cmd.log_file << ": write failed" << std::endl;
      return 1;
    }
    std::cout << kext::sim::format_summary(result.summary,
                                           cmd.config_file.empty() ? "default" : cmd.config_file)
              << kext::simtool::format_cluster_use(result.use)
              << kext::simtool::format_pending_reasons(result.pending_by_reason);
    return 0;
  } catch (const kext::simtool::InputError& e) {
    std::cerr << "extender-sim: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "extender-sim: " << e.what() << std::endl;
    return 1;
  }
}
