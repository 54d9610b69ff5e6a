#pragma once
// Command-line flags.
#include <string>
#include <vector>

#include "extender/http/server.h"

namespace kext {

struct Options {
  ServerConfig server;
  std::string policy_file;             // empty = embedded default
  std::vector<std::string> snapshots;  // --snapshot, repeatable
  bool help = false;
};

// Throws std::invalid_argument naming the flag.
Options parse_options(int argc, char** argv);
std::string usage();

}  // namespace kext
