#pragma once
// Where the Kubernetes API is and how to authenticate: from the pod's service account (in-cluster),
// from a kubeconfig file, or from explicit flags. Every problem is a start-up error naming the file,
// the context or the field.
#include <stdexcept>
#include <string>

namespace kext::kube {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ApiConfig {
  std::string scheme = "https";
  std::string host;
  int port = 443;
  std::string base_path;  // a server URL may carry a path (e.g. behind a proxy)

  // PEM text, read at start-up (a kubeconfig's *-data fields are base64 of it).
  std::string ca_pem;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;
  // Re-read whenever it changes: projected service-account tokens rotate.
  std::string token_file;
  bool insecure_skip_tls_verify = false;
  // False: the server's chain is verified against ca_pem (any certificate in it may be the anchor) but
  // not its name. For peers reached by pod IP, which their certificates do not name.
  bool verify_hostname = true;

  std::string server_url() const;
};

// Parses "https://host:port/path"; the port defaults from the scheme.
void set_server_url(ApiConfig& cfg, const std::string& url);

// KUBERNETES_SERVICE_HOST/_PORT plus token and ca.crt under sa_dir.
ApiConfig in_cluster_config(const std::string& sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// The named context, or current-context when context is empty.
ApiConfig kubeconfig_config(const std::string& path, const std::string& context = "");

// Reads a whole file; throws ConfigError "<what> <path>: <reason>".
std::string read_config_file(const std::string& path, const std::string& what);

std::string base64_decode(const std::string& in, const std::string& what);

}  // namespace kext::kube
