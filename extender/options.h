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
  size_t node_cache_entries = 20000;  // Verbs' NodeDecodeCache capacity
  bool help = false;
};

// Throws std::invalid_argument naming the flag.
Options parse_options(int argc, char** argv);
std::string usage();

}  // namespace kext
