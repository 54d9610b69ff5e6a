#pragma once
// extender-load's command line, defined once with CLI11 (common/cli.h).
#include <string>
#include <vector>

#include "load/exchanges.h"
#include "load/replay.h"

namespace kext::load {

struct LoadOptions {
  std::string input;  // recording directory, .jsonl file or fixture directory
  ReadOptions read;
  ReplayOptions replay;
  bool json = false;
  bool quiet = false;
  bool help = false;
};

// Throws std::invalid_argument naming the flag.
LoadOptions parse_load_options(int argc, char** argv);
std::string load_usage();
// Every flag's long name, for the docs check (tests/support/doc_flags.h).
std::vector<std::string> load_flag_names();

}  // namespace kext::load
