#pragma once
// The flags that choose and authenticate the Kubernetes API source, and bind.
#include <chrono>
#include <string>

#include "kube/client/api_client.h"
#include "kube/client/api_config.h"
#include "kube/client/leader_election.h"

namespace CLI {
class App;
}  // namespace CLI

namespace kext::kube {

struct ApiFlags {
  std::string kubeconfig;
  // Set when `kubeconfig` came from the KUBECONFIG variable rather than --kubeconfig: its value.
  std::string kubeconfig_env;
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
  // The host the other replicas reach this one at (bind forwarding); empty = advertise_host()'s default.
  std::string advertise_address;

  bool enabled() const { return in_cluster || !kubeconfig.empty() || !server.empty(); }
};

// Defines these flags on kube-extender's command line (group "Kubernetes API"), bound to `f`.
void add_api_flags(CLI::App& app, ApiFlags& f);
// KUBECONFIG as kubectl reads it, when no flag names a cluster-state source (--in-cluster, --kubeconfig,
// --api-server, --snapshot): client-go tools/clientcmd/loader.go NewDefaultClientConfigLoadingRules
// splits it with filepath.SplitList (':') and merges the files, the first to set a value winning.
// Here the first file of the list that exists is the kubeconfig (no merge); none existing is an error
// naming KUBECONFIG. `env` is getenv("KUBECONFIG"), null when unset.
void apply_kubeconfig_env(ApiFlags& f, bool have_snapshot, const char* env);
// Conflicting or incomplete combinations; throws std::invalid_argument naming the flags.
void validate_api_flags(const ApiFlags& f, bool have_snapshot);

// --advertise-address, else --bind-address when it names one address, else this machine's hostname.
std::string advertise_host(const ApiFlags& f, const std::string& bind_address);
// The URL the holder publishes for forwarded binds: scheme, host (bracketed when IPv6), port, and the
// verbs' path prefix as the server serves it ("" or "/path", Server::path_prefix()).
std::string advertise_url(const std::string& host, int port, bool tls, const std::string& path_prefix);

// Reads the files the flags name; throws ConfigError naming the flag and file.
ApiConfig resolve_api_config(const ApiFlags& f);

// One request at start-up so that a wrong address, certificate or permission stops the process with
// a clear message instead of a silent retry loop. Throws ConfigError.
void check_api_access(ApiClient& api);

}  // namespace kext::kube
