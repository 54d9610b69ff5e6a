// extender-gen: writes a synthetic cluster and scheduler traffic for extender-load, from a seed.
#include <iostream>

#include "load/gen/gen_options.h"
#include "load/gen/workload.h"

int main(int argc, char** argv) {
  kext::gen::GenCommand cmd;
  try {
    cmd = kext::gen::parse_gen_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "extender-gen: " << e.what() << "\n(extender-gen --help lists the flags)\n";
    return 2;
  }
  if (cmd.help) {
    std::cout << kext::gen::gen_usage();
    return 0;
  }
  try {
    auto s = kext::gen::write_workload(cmd.gen, cmd.out_dir);
    std::cerr << "extender-gen: " << cmd.out_dir << ": " << s.nodes << " nodes (~" << s.average_node_bytes
              << " B each), " << s.pods << " pods, " << s.pdbs << " PDBs, cluster.json " << s.cluster_bytes
              << " B; " << s.requests_per_mode << " requests per mode, " << s.nodes_per_request
              << " nodes per filter/prioritize" << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "extender-gen: " << e.what() << std::endl;
    return 1;
  }
}
