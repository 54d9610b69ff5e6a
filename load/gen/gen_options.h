#pragma once
// extender-gen's command line, defined once with CLI11 (common/cli.h).
#include <string>
#include <vector>

#include "load/gen/cluster.h"

namespace kext::gen {

struct GenCommand {
  GenOptions gen;
  std::string out_dir;
  bool help = false;
};

// Throws std::invalid_argument naming the flag.
GenCommand parse_gen_options(int argc, char** argv);
std::string gen_usage();
// Every flag's long name, for the docs check (tests/support/doc_flags.h).
std::vector<std::string> gen_flag_names();

}  // namespace kext::gen
