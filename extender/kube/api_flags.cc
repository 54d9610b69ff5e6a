#include "extender/kube/api_flags.h"

#include <stdexcept>

#include "common/command_line.h"

namespace kext::kube {

bool parse_api_flag(const std::string& arg, const std::function<std::string()>& value, ApiFlags& f) {
  if (arg == "--kubeconfig") f.kubeconfig = value();
  else if (arg == "--context") f.context = value();
  else if (arg == "--in-cluster") f.in_cluster = true;
  else if (arg == "--api-server") f.server = value();
  else if (arg == "--api-token-file") f.token_file = value();
  else if (arg == "--api-ca-file") f.ca_file = value();
  else if (arg == "--api-client-cert-file") f.client_cert_file = value();
  else if (arg == "--api-client-key-file") f.client_key_file = value();
  else if (arg == "--api-insecure-skip-tls-verify") f.insecure_skip_tls_verify = true;
  else if (arg == "--enable-bind") f.bind = true;
  else if (arg == "--bind-assume-ttl-seconds") {
    f.assume_ttl = std::chrono::seconds(parse_flag_integer<int64_t>(arg, value(), 1, 3600));
  } else if (arg == "--leader-elect") {
    f.leader_elect = true;
  } else if (arg == "--leader-elect-lease-duration") {
    f.election.lease_duration = parse_flag_duration(arg, value(), std::chrono::seconds(1), std::chrono::hours(1));
  } else if (arg == "--leader-elect-renew-deadline") {
    f.election.renew_deadline =
        parse_flag_duration(arg, value(), std::chrono::milliseconds(100), std::chrono::hours(1));
  } else if (arg == "--leader-elect-retry-period") {
    f.election.retry_period = parse_flag_duration(arg, value(), std::chrono::milliseconds(10), std::chrono::hours(1));
  } else if (arg == "--leader-elect-resource-name") {
    f.election.lease_name = non_empty_value(arg, value());
  } else if (arg == "--leader-elect-resource-namespace") {
    f.election.lease_namespace = non_empty_value(arg, value());
  } else if (arg == "--leader-elect-identity") {
    f.election.identity = non_empty_value(arg, value());
  } else {
    return false;
  }
  return true;
}

void validate_api_flags(const ApiFlags& f, bool have_snapshot) {
  int sources = f.in_cluster + !f.kubeconfig.empty() + !f.server.empty();
  if (sources > 1) throw std::invalid_argument("--in-cluster, --kubeconfig and --api-server are alternatives: pass one");
  if (sources == 1 && have_snapshot)
    throw std::invalid_argument("--snapshot and the Kubernetes API (--in-cluster/--kubeconfig/--api-server) are alternative cluster-state sources: pass one");
  if (!f.context.empty() && f.kubeconfig.empty()) throw std::invalid_argument("--context needs --kubeconfig");
  bool api_detail = !f.token_file.empty() || !f.ca_file.empty() || !f.client_cert_file.empty() ||
                    !f.client_key_file.empty() || f.insecure_skip_tls_verify;
  if (api_detail && f.server.empty())
    throw std::invalid_argument("--api-token-file/--api-ca-file/--api-client-*/--api-insecure-skip-tls-verify need --api-server");
  if (f.client_cert_file.empty() != f.client_key_file.empty())
    throw std::invalid_argument("--api-client-cert-file and --api-client-key-file go together");
  if (f.bind && sources == 0) throw std::invalid_argument("--enable-bind needs the Kubernetes API (--in-cluster, --kubeconfig or --api-server)");
  if (f.leader_elect && !f.bind) throw std::invalid_argument("--leader-elect elects the binder: it needs --enable-bind");
  // client-go tools/leaderelection/leaderelection.go: NewLeaderElector's checks (JitterFactor 1.2).
  if (f.election.lease_duration <= f.election.renew_deadline)
    throw std::invalid_argument("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  if (f.election.renew_deadline.count() * 10 <= f.election.retry_period.count() * 12)
    throw std::invalid_argument("--leader-elect-renew-deadline must be greater than 1.2 x --leader-elect-retry-period");
}

std::string api_flags_usage() {
  const ApiFlags d;
  return std::string() +
         "  cluster state from the Kubernetes API (list+watch of nodes, pods, poddisruptionbudgets):\n"
         "  --in-cluster          the pod's service account (KUBERNETES_SERVICE_HOST, token, ca.crt)\n"
         "  --kubeconfig FILE     a kubeconfig (client certificate, token or tokenFile; no exec plugins)\n"
         "  --context NAME        kubeconfig context (default: current-context)\n"
         "  --api-server URL      explicit API URL, with --api-ca-file, --api-token-file,\n"
         "                        --api-client-cert-file, --api-client-key-file, "
         "--api-insecure-skip-tls-verify\n"
         "  --enable-bind         serve /bind: create the Binding through the API (RBAC: pods/binding "
         "create)\n"
         "  --bind-assume-ttl-seconds N  a bound pod counts against its node until the watch shows it,\n"
         "                        at most N seconds (default " +
         std::to_string(d.assume_ttl.count() / 1000) +
         ")\n"
         "  --leader-elect        only the replica holding a coordination.k8s.io Lease binds; the others\n"
         "                        answer /bind with an error and the scheduler retries the pod (RBAC: "
         "leases)\n"
         "  --leader-elect-lease-duration D  how long others wait after the holder's last renewal (default " +
         std::to_string(d.election.lease_duration.count() / 1000) +
         "s)\n"
         "  --leader-elect-renew-deadline D  the holder stops binding when it could not renew for D "
         "(default " +
         std::to_string(d.election.renew_deadline.count() / 1000) +
         "s)\n"
         "  --leader-elect-retry-period D  time between attempts to acquire or renew (default " +
         std::to_string(d.election.retry_period.count() / 1000) +
         "s)\n"
         "  --leader-elect-resource-namespace NS, --leader-elect-resource-name NAME  the Lease (default " +
         d.election.lease_namespace + "/" + d.election.lease_name +
         ")\n"
         "  --leader-elect-identity ID  this replica's name in the Lease (default: hostname_<random>)\n";
}

ApiConfig resolve_api_config(const ApiFlags& f) {
  if (f.in_cluster) return in_cluster_config();
  if (!f.kubeconfig.empty()) return kubeconfig_config(f.kubeconfig, f.context);
  ApiConfig cfg;
  set_server_url(cfg, f.server);
  if (!f.ca_file.empty()) cfg.ca_pem = read_config_file(f.ca_file, "--api-ca-file");
  if (!f.client_cert_file.empty()) cfg.client_cert_pem = read_config_file(f.client_cert_file, "--api-client-cert-file");
  if (!f.client_key_file.empty()) cfg.client_key_pem = read_config_file(f.client_key_file, "--api-client-key-file");
  if (!f.token_file.empty()) {
    read_config_file(f.token_file, "--api-token-file");
    cfg.token_file = f.token_file;
  }
  cfg.insecure_skip_tls_verify = f.insecure_skip_tls_verify;
  return cfg;
}

void check_api_access(ApiClient& api) {
  ApiResponse r = api.get("/api/v1/nodes?limit=1");
  const std::string where = "Kubernetes API at " + api.config().server_url();
  if (r.status == 0) throw ConfigError("cannot reach the " + where + ": " + r.describe());
  if (r.status == 401) throw ConfigError("the " + where + " rejected the credentials: " + r.describe());
  if (r.status == 403)
    throw ConfigError("the " + where + " forbids listing nodes (RBAC: get/list/watch nodes, pods, "
                      "poddisruptionbudgets): " + r.describe());
  if (!r.ok()) throw ConfigError("the " + where + " answered " + r.describe());
}

}  // namespace kext::kube
