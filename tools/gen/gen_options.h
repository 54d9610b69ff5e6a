#pragma once
// extender-gen's command line.
#include <string>

#include "tools/gen/cluster.h"

namespace kext::gen {

struct GenCommand {
  GenOptions gen;
  std::string out_dir;
  bool help = false;
};

// Throws std::invalid_argument naming the flag.
GenCommand parse_gen_options(int argc, char** argv);
std::string gen_usage();

}  // namespace kext::gen
