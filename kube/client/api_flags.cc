#include "kube/client/api_flags.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "common/cli.h"
#include "kube/client/cache_sinks.h"

namespace kext::kube {

namespace {

const std::string kGroup = "Kubernetes API (cluster state by list+watch of nodes, pods, PDBs)";

// Where the API is and how to authenticate: kubectl's own choices (cli-runtime
// pkg/genericclioptions/config_flags.go ConfigFlags.AddFlags: --kubeconfig, --context, --server,
// --certificate-authority, --client-certificate, --client-key, --token, --insecure-skip-tls-verify).
void add_source_flags(CLI::App& app, ApiFlags& f) {
  app.add_flag("--in-cluster", f.in_cluster,
               "the pod's service account (KUBERNETES_SERVICE_HOST, token, ca.crt)")
      ->group(kGroup);
  app.add_option("--kubeconfig", f.kubeconfig,
                 "a kubeconfig (client certificate, token or tokenFile; no exec plugins); without any "
                 "source flag, the first existing file of $KUBECONFIG")
      ->type_name("FILE")
      ->group(kGroup);
  app.add_option("--context", f.context, "kubeconfig context (default: current-context)")
      ->type_name("NAME")
      ->group(kGroup);
  app.add_option("--api-server", f.server, "explicit API URL, without a kubeconfig")
      ->type_name("URL")
      ->group(kGroup);
  app.add_option("--api-ca-file", f.ca_file, "with --api-server: the CA bundle (PEM)")
      ->type_name("FILE")
      ->group(kGroup);
  app.add_option("--api-token-file", f.token_file, "with --api-server: a bearer token file (re-read)")
      ->type_name("FILE")
      ->group(kGroup);
  app.add_option("--api-client-cert-file", f.client_cert_file,
                 "with --api-server: a client certificate (PEM)")
      ->type_name("FILE")
      ->group(kGroup);
  app.add_option("--api-client-key-file", f.client_key_file, "with --api-server: its private key (PEM)")
      ->type_name("FILE")
      ->group(kGroup);
  app.add_flag("--api-insecure-skip-tls-verify", f.insecure_skip_tls_verify,
               "with --api-server: do not verify the server's certificate")
      ->group(kGroup);
}

// The bind verb: the Binding kube-scheduler's DefaultBinder would create, and how long its pod is
// assumed on the node (pkg/scheduler/internal/cache/cache.go AssumePod, FinishBinding's TTL).
void add_bind_flags(CLI::App& app, ApiFlags& f) {
  app.add_flag("--enable-bind", f.bind,
               "serve /bind: create the Binding through the API (RBAC: pods/binding create)")
      ->group(kGroup);
  cli::add_seconds(app, "--bind-assume-ttl-seconds", f.assume_ttl, 1, 3600,
                   "a bound pod counts against its node until the watch shows it, at most N seconds")
      ->type_name("N")
      ->group(kGroup);
}

// Who binds among replicas: component-base config/options/leaderelectionconfig.go
// BindLeaderElectionFlags' flags, then where the holder takes the binds the others pass on.
void add_leader_election_flags(CLI::App& app, ApiFlags& f) {
  using std::chrono::hours;
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  app.add_flag("--leader-elect", f.leader_elect,
               "only the replica holding a coordination.k8s.io Lease binds; the others answer /bind with an "
               "error and the scheduler retries the pod (RBAC: leases)")
      ->group(kGroup);
  cli::add_duration(app, "--leader-elect-lease-duration", f.election.lease_duration, seconds(1), hours(1),
                    "how long others wait after the holder's last renewal")
      ->type_name("D")
      ->group(kGroup);
  cli::add_duration(app, "--leader-elect-renew-deadline", f.election.renew_deadline, milliseconds(100),
                    hours(1), "the holder stops binding when it could not renew for D")
      ->type_name("D")
      ->group(kGroup);
  cli::add_duration(app, "--leader-elect-retry-period", f.election.retry_period, milliseconds(10), hours(1),
                    "time between attempts to acquire or renew")
      ->type_name("D")
      ->group(kGroup);
  cli::non_empty(app.add_option("--leader-elect-resource-namespace", f.election.lease_namespace,
                                "the Lease's namespace"))
      ->type_name("NS")
      ->group(kGroup);
  cli::non_empty(app.add_option("--leader-elect-resource-name", f.election.lease_name, "the Lease's name"))
      ->type_name("NAME")
      ->group(kGroup);
  cli::non_empty(app.add_option("--leader-elect-identity", f.election.identity,
                                "this replica's name in the Lease (default: hostname_<random>)"))
      ->type_name("ID")
      ->group(kGroup);
  cli::non_empty(app.add_option("--advertise-address", f.advertise_address,
                                "the address the other replicas reach this one at, to pass a /bind on to "
                                "the Lease holder (default: --bind-address when it names one, else the "
                                "hostname; the Deployment passes the pod IP)"))
      ->type_name("ADDR")
      ->group(kGroup);
  cli::add_duration(app, "--bind-forward-timeout", f.election.forward_timeout, milliseconds(100), hours(1),
                    "a /bind that reaches a replica not holding the Lease is passed on to the holder; "
                    "the holder's answer, or an error, within D (keep it below the scheduler's httpTimeout)")
      ->type_name("D")
      ->group(kGroup);
}

}  // namespace

void add_api_flags(CLI::App& app, ApiFlags& f) {
  add_source_flags(app, f);
  add_bind_flags(app, f);
  add_leader_election_flags(app, f);
}

std::string advertise_host(const ApiFlags& f, const std::string& bind_address) {
  if (!f.advertise_address.empty()) return f.advertise_address;
  if (bind_address != "0.0.0.0" && bind_address != "::" && !bind_address.empty()) return bind_address;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "localhost";
  return host;
}

std::string advertise_url(const std::string& host, int port, bool tls, const std::string& path_prefix) {
  const bool ipv6 = host.find(':') != std::string::npos && !host.starts_with("[");
  return std::string(tls ? "https://" : "http://") + (ipv6 ? "[" + host + "]" : host) + ":" +
         std::to_string(port) + path_prefix;
}

void apply_kubeconfig_env(ApiFlags& f, bool have_snapshot, const char* env) {
  if (env == nullptr || *env == '\0' || f.enabled() || have_snapshot) return;
  const std::string list = env;
  for (size_t start = 0; start <= list.size();) {
    size_t colon = list.find(':', start);
    if (colon == std::string::npos) colon = list.size();
    const std::string path = list.substr(start, colon - start);
    std::error_code ec;
    if (!path.empty() && std::filesystem::exists(path, ec)) {
      f.kubeconfig = path;
      f.kubeconfig_env = list;
      return;
    }
    start = colon + 1;
  }
  throw std::invalid_argument("KUBECONFIG=\"" + list +
                              "\": none of its files exists (pass --kubeconfig, "
                              "--in-cluster, --api-server or --snapshot, or unset it)");
}

void validate_api_flags(const ApiFlags& f, bool have_snapshot) {
  std::vector<std::string> sources;
  if (f.in_cluster) sources.push_back("--in-cluster");
  if (!f.kubeconfig.empty()) sources.push_back(f.kubeconfig_env.empty() ? "--kubeconfig" : "KUBECONFIG");
  if (!f.server.empty()) sources.push_back("--api-server");
  if (sources.size() > 1)
    throw std::invalid_argument(sources[0] + " and " + sources[1] + " are alternative API sources: pass one");
  if (sources.size() == 1 && have_snapshot)
    throw std::invalid_argument("--snapshot and " + sources[0] +
                                " are alternative cluster-state sources: pass one");
  if (!f.context.empty() && f.kubeconfig.empty())
    throw std::invalid_argument("--context needs --kubeconfig (or KUBECONFIG)");
  bool api_detail = !f.token_file.empty() || !f.ca_file.empty() || !f.client_cert_file.empty() ||
                    !f.client_key_file.empty() || f.insecure_skip_tls_verify;
  if (api_detail && f.server.empty())
    throw std::invalid_argument(
        "--api-token-file/--api-ca-file/--api-client-*/--api-insecure-skip-tls-verify need --api-server");
  if (f.client_cert_file.empty() != f.client_key_file.empty())
    throw std::invalid_argument("--api-client-cert-file and --api-client-key-file go together");
  if (f.bind && sources.empty())
    throw std::invalid_argument(
        "--enable-bind needs the Kubernetes API (--in-cluster, --kubeconfig, KUBECONFIG or --api-server)");
  if (f.leader_elect && !f.bind)
    throw std::invalid_argument("--leader-elect elects the binder: it needs --enable-bind");
  if (!f.advertise_address.empty() && !f.leader_elect)
    throw std::invalid_argument(
        "--advertise-address is where the Lease holder takes forwarded binds: it needs --leader-elect");
  // client-go tools/leaderelection/leaderelection.go: NewLeaderElector's checks (JitterFactor 1.2).
  if (f.election.lease_duration <= f.election.renew_deadline)
    throw std::invalid_argument(
        "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  if (f.election.renew_deadline.count() * 10 <= f.election.retry_period.count() * 12)
    throw std::invalid_argument(
        "--leader-elect-renew-deadline must be greater than 1.2 x --leader-elect-retry-period");
}

ApiConfig resolve_api_config(const ApiFlags& f) {
  if (f.in_cluster) return in_cluster_config();
  if (!f.kubeconfig.empty()) return kubeconfig_config(f.kubeconfig, f.context);
  ApiConfig cfg;
  set_server_url(cfg, f.server);
  if (!f.ca_file.empty()) cfg.ca_pem = read_config_file(f.ca_file, "--api-ca-file");
  if (!f.client_cert_file.empty())
    cfg.client_cert_pem = read_config_file(f.client_cert_file, "--api-client-cert-file");
  if (!f.client_key_file.empty())
    cfg.client_key_pem = read_config_file(f.client_key_file, "--api-client-key-file");
  if (!f.token_file.empty()) {
    read_config_file(f.token_file, "--api-token-file");
    cfg.token_file = f.token_file;
  }
  cfg.insecure_skip_tls_verify = f.insecure_skip_tls_verify;
  return cfg;
}

void check_api_access(ApiClient& api) {
  // A failure here stops the start-up with its own words: not reported to errors() too.
  ApiResponse r = api.get("/api/v1/nodes?limit=1", Expected::any());
  const std::string where = "Kubernetes API at " + api.config().server_url();
  if (r.status == 0) throw ConfigError("cannot reach the " + where + ": " + r.describe());
  if (r.status == 401) throw ConfigError("the " + where + " rejected the credentials: " + r.describe());
  if (r.status == 403) {
    std::string resources;
    for (const WatchedResource& w : watched_resources())
      resources.append(resources.empty() ? "" : ", ").append(w.name);
    throw ConfigError("the " + where + " forbids listing nodes (RBAC: get/list/watch " + resources +
                      "): " + r.describe());
  }
  if (!r.ok()) throw ConfigError("the " + where + " answered " + r.describe());
}

}  // namespace kext::kube
