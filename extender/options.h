#pragma once
// kube-extender's command line, defined once with CLI11 (common/cli.h): parsing, --help and the test
// that the docs' flag table lists every flag all read that definition.
#include <optional>
#include <string>
#include <vector>

#include "algorithms/kube_version.h"
#include "extender/capacity/capacity_service.h"
#include "extender/gang/coordinator.h"
#include "extender/server/server.h"
#include "kube/client/api_flags.h"

namespace kext {

struct Options {
  ServerConfig server;
  std::string policy_file;                        // --config (--policy); empty = embedded default
  std::string scheduler_name;                     // --scheduler-name: a KubeSchedulerConfiguration's profile
  std::optional<KubeVersion> kubernetes_version;  // --kubernetes-version (policy/version_choice.h)
  std::vector<std::string> snapshots;             // --snapshot, repeatable
  size_t node_cache_entries = kDefaultNodeCacheEntries;           // Verbs' NodeDecodeCache capacity
  size_t decision_log_size = 1000;                                // GET /debug/decisions ring (0 = off)
  size_t decision_log_max_bytes = DecisionLog::kDefaultMaxBytes;  // and its memory bound
  // SIGTERM: not ready but still serving, so endpoints drop us. 0 outside a cluster, where nothing has
  // to notice first; manifests/base/deployment.yaml passes 10.
  int shutdown_delay_seconds = 0;
  int shutdown_grace_seconds = 10;  // then: how long requests in flight may take to finish
  kube::ApiFlags api;               // --in-cluster / --kubeconfig / --api-server, --enable-bind
  GangConfig gang;                  // with --enable-bind: --gang-bind-hold, --gang-backoff, ...
  size_t gang_max_held_binds = 0;   // 0: half of --threads
  bool capacity = true;             // POST /capacity (--no-capacity turns it off)
  capacity::CapacityLimits capacity_limits;
  bool help = false;
  bool write_config = false;  // --write-config: print the effective configuration and exit
  bool version = false;       // --version: print "kube-extender VERSION" and exit
  // For the log at start-up: deprecated flags that were used, and with -v>=1 every flag's value.
  std::vector<std::string> notices;
  std::vector<std::string> flag_values;
};

// Throws std::invalid_argument naming the flag. Reads KUBECONFIG (kube::apply_kubeconfig_env).
Options parse_options(int argc, char** argv);
std::string usage_text();
// Every flag's long name, for the docs check (tests/support/doc_flags.h).
std::vector<std::string> flag_names();

}  // namespace kext
