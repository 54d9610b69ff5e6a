#pragma once
// Command-line flags.
#include <string>
#include <vector>

#include "extender/kube/api_flags.h"
#include "extender/server/server.h"

namespace kext {

struct Options {
  ServerConfig server;
  std::string policy_file;                           // empty = embedded default
  std::vector<std::string> snapshots;                // --snapshot, repeatable
  size_t node_cache_entries = kDefaultNodeCacheEntries;           // Verbs' NodeDecodeCache capacity
  size_t decision_log_size = 1000;                                // GET /debug/decisions ring (0 = off)
  size_t decision_log_max_bytes = DecisionLog::kDefaultMaxBytes;  // and its memory bound
  int shutdown_delay_seconds = 5;   // SIGTERM: not ready but still serving, so endpoints drop us
  int shutdown_grace_seconds = 10;  // then: how long requests in flight may take to finish
  kube::ApiFlags api;               // --in-cluster / --kubeconfig / --api-server, --enable-bind
  bool help = false;
};

// Throws std::invalid_argument naming the flag.
Options parse_options(int argc, char** argv);
std::string usage();

}  // namespace kext
