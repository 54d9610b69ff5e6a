#pragma once
// The flags that choose and authenticate the Kubernetes API source, and bind.
#include <chrono>
#include <functional>
#include <string>

#include "extender/kube/api_client.h"
#include "extender/kube/api_config.h"
#include "extender/kube/leader_election.h"

namespace kext::kube {

struct ApiFlags {
  std::string kubeconfig;
  std::string context;
  bool in_cluster = false;
  // A kubeconfig-like set of flags, for when there is no kubeconfig file.
  std::string server;
  std::string token_file;
  std::string ca_file;
  std::string client_cert_file;
  std::string client_key_file;
  bool insecure_skip_tls_verify = false;

  bool bind = false;  // serve /bind (needs pods/binding create permission)
  std::chrono::milliseconds assume_ttl{30000};
  // Only the replica holding the Lease binds; the others refuse /bind (the scheduler retries the pod).
  bool leader_elect = false;
  LeaderElectionConfig election;

  bool enabled() const { return in_cluster || !kubeconfig.empty() || !server.empty(); }
};

// Consumes arg if it is one of these flags (value() fetches its value); false if it is not.
bool parse_api_flag(const std::string& arg, const std::function<std::string()>& value, ApiFlags& f);
// Conflicting or incomplete combinations; throws std::invalid_argument naming the flags.
void validate_api_flags(const ApiFlags& f, bool have_snapshot);
std::string api_flags_usage();

// Reads the files the flags name; throws ConfigError naming the flag and file.
ApiConfig resolve_api_config(const ApiFlags& f);

// One request at start-up so that a wrong address, certificate or permission stops the process with
// a clear message instead of a silent retry loop. Throws ConfigError.
void check_api_access(ApiClient& api);

}  // namespace kext::kube
