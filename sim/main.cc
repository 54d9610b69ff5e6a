// extender-sim: simulates kube-scheduler's scheduling loop around the extender's algorithms on a
// cluster snapshot and a workload, writes one JSON line per decision and prints a summary.
#include <fstream>
#include <iostream>
#include <memory>
#include <string_view>

#include "common/shutdown_signals.h"
#include "sim/capacity/capacity_command.h"
#include "sim/cluster_summary.h"
#include "sim/core/simulator.h"
#include "sim/follow/follower.h"
#include "sim/report/html_report.h"
#include "sim/run.h"
#include "sim/sim_options.h"

namespace {

// --follow: until SIGINT, SIGTERM or --duration, then --html, --log and the summary.
int follow(const kext::simtool::SimCommand& cmd) {
  // Before any thread starts (the follower's server, the reflectors, TBB), so that they all leave
  // the signals to the watcher thread.
  kext::ShutdownSignals signals;
  std::unique_ptr<kext::simtool::follow::Follower> follower;
  try {
    follower = std::make_unique<kext::simtool::follow::Follower>(cmd, std::cerr);
  } catch (const kext::simtool::InputError& e) {
    std::cerr << "extender-sim: " << e.what() << std::endl;
    return 2;
  }
  signals.start([&](int) { follower->stop(); });
  try {
    follower->run();
  } catch (const kext::simtool::InputError& e) {  // the cluster could not be listed
    signals.stop();
    std::cerr << "extender-sim: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    signals.stop();
    std::cerr << "extender-sim: " << e.what() << std::endl;
    return 1;
  }
  signals.stop();
  try {
    std::cout << follower->finish();
    return 0;
  } catch (const std::exception& e) {  // --html or --log could not be written
    std::cerr << "extender-sim: " << e.what() << std::endl;
    return 1;
  }
}

// extender-sim capacity ... (argv[0] is "capacity"): the answer on stdout.
int capacity(int argc, char** argv) {
  kext::simtool::CapacityCommand cmd;
  try {
    cmd = kext::simtool::parse_capacity_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "extender-sim capacity: " << e.what()
              << "\n(extender-sim capacity --help lists the flags)\n";
    return 2;
  }
  if (cmd.help) {
    std::cout << kext::simtool::capacity_usage();
    return 0;
  }
  try {
    std::cout << kext::simtool::capacity_output(cmd);
    return 0;
  } catch (const kext::simtool::InputError& e) {
    std::cerr << "extender-sim capacity: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "extender-sim capacity: " << e.what() << std::endl;
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "capacity") return capacity(argc - 1, argv + 1);
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
  if (cmd.follow) return follow(cmd);
  // Opens `path` for writing (nothing to open for ""); false after printing the error.
  auto open_out = [](std::ofstream& out, const std::string& flag, const std::string& path) {
    if (path.empty()) return true;
    out.open(path, std::ios::binary | std::ios::trunc);
    if (out) return true;
    std::cerr << "extender-sim: " << flag << " " << path << ": cannot create the file" << std::endl;
    return false;
  };
  // Closes `out`; false after printing the error if a write failed.
  auto close_out = [](std::ofstream& out, const std::string& flag, const std::string& path) {
    if (path.empty()) return true;
    out.close();
    if (out) return true;
    std::cerr << "extender-sim: " << flag << " " << path << ": write failed" << std::endl;
    return false;
  };
  const bool compare = !cmd.compare_file.empty();
  const std::string compare_log =
      compare && !cmd.log_file.empty() ? kext::simtool::compare_log_file(cmd.log_file) : "";
  std::ofstream log, log_b, html;
  if (!open_out(log, "--log", cmd.log_file) || !open_out(log_b, "--log", compare_log) ||
      !open_out(html, "--html", cmd.html_file))
    return 2;
  try {
    const std::string name = cmd.config_file.empty() ? "default" : cmd.config_file;
    const kext::simtool::SimResult result =
        kext::simtool::run_sim(cmd, cmd.log_file.empty() ? nullptr : &log);
    if (!close_out(log, "--log", cmd.log_file)) return 1;
    if (!compare) {
      if (!cmd.html_file.empty()) html << kext::simtool::html_report({{name, &result}}, {}, cmd);
      if (!close_out(html, "--html", cmd.html_file)) return 1;
      std::cout << kext::simtool::format_result_summary(result, name)
                << kext::simtool::format_node_use(result.use)
                << kext::simtool::format_node_usage(result.summary.node_usage)
                << kext::simtool::format_pending_reasons(result.pending_by_reason);
      return 0;
    }
    const kext::simtool::SimResult other = kext::simtool::run_sim(
        kext::simtool::compare_command(cmd), compare_log.empty() ? nullptr : &log_b, "--compare");
    if (!close_out(log_b, "--log", compare_log)) return 1;
    const std::string& other_name = cmd.compare_file;
    const std::vector<kext::simtool::PlacementDiff> diffs = kext::simtool::placement_diff(result, other);
    if (!cmd.html_file.empty())
      html << kext::simtool::html_report({{name, &result}, {other_name, &other}}, diffs, cmd);
    if (!close_out(html, "--html", cmd.html_file)) return 1;
    std::cout << kext::simtool::format_result_summary(result, name, &other, other_name) << "\n"
              << name << "\n"
              << kext::simtool::format_node_use(result.use)
              << kext::simtool::format_node_usage(result.summary.node_usage)
              << kext::simtool::format_pending_reasons(result.pending_by_reason) << "\n"
              << other_name << "\n"
              << kext::simtool::format_node_use(other.use)
              << kext::simtool::format_node_usage(other.summary.node_usage)
              << kext::simtool::format_pending_reasons(other.pending_by_reason) << "\n"
              << kext::simtool::format_placement_diff(diffs, name, other_name);
    return 0;
  } catch (const kext::simtool::InputError& e) {
    std::cerr << "extender-sim: " << e.what() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "extender-sim: " << e.what() << std::endl;
    return 1;
  }
}
