#include "extender/options.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <stdexcept>

#include "common/cli.h"
#include "policy/version_choice.h"

namespace kext {

namespace {

CLI::Option* add_bytes(CLI::App& app, const std::string& name, size_t& v, size_t lo, size_t hi,
                       const std::string& what) {
  return app.add_option(name, v, what)->check(CLI::Range(lo, hi))->type_name("N");
}

// Where the verbs are served (apiserver pkg/server/options/serving.go SecureServingOptions.AddFlags:
// --bind-address, --secure-port). Returns --bind-address, which --address stands for.
CLI::Option* add_listen_flags(CLI::App& app, ServerConfig& s) {
  CLI::Option* bind_address =
      cli::non_empty(app.add_option("--bind-address", s.address, "listen address"))->type_name("ADDR");
  app.add_option("--port", s.port, "listen port (0 = any free port)")
      ->check(CLI::Range(0, 65535))
      ->type_name("N");
  app.add_option("--path-prefix", s.path_prefix, "serve the verbs under PATH (for a urlPrefix with a path)")
      ->type_name("PATH");
  return bind_address;
}

// What to schedule with and from (kube-scheduler cmd/kube-scheduler/app/options/options.go Flags:
// --config, --write-config-to). Returns --config, which --policy stands for.
CLI::Option* add_configuration_flags(CLI::App& app, Options& o) {
  CLI::Option* config =
      app.add_option("--config", o.policy_file,
                     "an ExtenderConfiguration or KubeSchedulerConfiguration (YAML or JSON), or a legacy "
                     "Policy (default: the embedded one)")
          ->type_name("FILE");
  cli::non_empty(app.add_option("--scheduler-name", o.scheduler_name,
                                "the KubeSchedulerConfiguration profile (schedulerName) to run (default: its "
                                "only one)"))
      ->type_name("NAME");
  cli::add_parsed(
      app, "--kubernetes-version",
      [&o](const std::string& v) { o.kubernetes_version = parse_version_flag(v); }, "", version_flag_help())
      ->type_name("VERSION");
  app.add_flag(
      "--write-config", o.write_config,
      "print the effective configuration (--config's or the embedded one, defaults filled in) and exit");
  cli::repeatable(
      app.add_option("--snapshot", o.snapshots,
                     "cluster state from `kubectl get nodes,pods,pdb,ns,svc,rc,rs,sts -A -o json` "
                     "(repeatable; files merge)"))
      ->type_name("FILE");
  return config;
}

void add_metrics_listen_flags(CLI::App& app, ServerConfig& s) {
  app.add_option_function<int>(
         "--metrics-port", [&s](int port) { s.metrics_port = port == 0 ? -1 : port; },
         "also serve /metrics, /healthz, /readyz (plain HTTP) on port N (0 = off)")
      ->check(CLI::Range(0, 65535))
      ->default_str("0")
      ->type_name("N");
  cli::non_empty(app.add_option("--metrics-bind-address", s.metrics_address,
                                "address of that port (default: --bind-address)"))
      ->type_name("ADDR");
}

// The transport's bounds on what clients may hold: sizes, workers, connections, queue and deadlines.
void add_transport_limit_flags(CLI::App& app, TransportLimits& l) {
  add_bytes(app, "--max-body-bytes", l.max_body_bytes, 1024, size_t{1} << 34,
            "largest request body accepted; a larger one gets 413");
  add_bytes(app, "--max-header-bytes", l.max_header_bytes, 1024, size_t{1} << 24,
            "largest request header block accepted; a larger one gets 431");
  app.add_option("--threads", l.threads,
                 "worker threads that run requests; connections hold none while idle or receiving")
      ->check(CLI::Range(size_t{1}, size_t{1024}))
      ->type_name("N");
  app.add_option("--max-connections", l.max_connections,
                 "open connections at once; more get 503 and are closed")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}))
      ->type_name("N");
  app.add_option("--max-queued-requests", l.max_queued_requests,
                 "whole requests waiting for a worker; more get 503 + Retry-After")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000}))
      ->type_name("N");
  add_bytes(app, "--max-buffered-bytes", l.max_buffered_bytes, size_t{1} << 20, size_t{1} << 40,
            "request bytes held across connections; more get 503");
  cli::add_seconds(app, "--request-timeout-seconds", l.request_timeout, 1, 3600,
                   "a request (headers and body) must arrive within N s of its first byte, or of the "
                   "connection's accept (else 408)")
      ->type_name("N");
  cli::add_seconds(app, "--idle-timeout-seconds", l.idle_timeout, 1, 86400,
                   "idle keep-alive connections are closed after N s")
      ->type_name("N");
  cli::add_seconds(app, "--write-timeout-seconds", l.write_timeout, 1, 3600,
                   "a reply not taken by the client within N s closes the connection")
      ->type_name("N");
}

// The decoded-node cache, and the recordings of the verbs' exchanges.
void add_cache_and_record_flags(CLI::App& app, Options& o) {
  app.add_option("--node-cache-entries", o.node_cache_entries,
                 "decoded full-mode node objects kept between requests (0 = off)")
      ->check(CLI::Range(size_t{0}, size_t{10'000'000}))
      ->type_name("N");
  cli::non_empty(app.add_option("--record-dir", o.server.record_dir,
                                "append every verb request and reply to DIR/rec-*.jsonl (default: off)"))
      ->type_name("DIR");
  add_bytes(app, "--record-max-bytes", o.server.record_max_bytes, 4096, size_t{1} << 40,
            "bound on DIR's recordings; the oldest file is deleted first");
}

// HTTPS and client certificates (apiserver pkg/server/options/serving.go --tls-cert-file,
// --tls-private-key-file; authentication.go ClientCertAuthenticationOptions --client-ca-file).
void add_tls_flags(CLI::App& app, TlsConfig& tls) {
  app.add_option("--tls-cert-file", tls.cert_file,
                 "serve HTTPS with this PEM certificate (chain); needs --tls-private-key-file")
      ->type_name("FILE");
  app.add_option("--tls-private-key-file", tls.key_file, "the certificate's PEM private key (unencrypted)")
      ->type_name("FILE");
  app.add_option("--client-ca-file", tls.client_ca_file,
                 "refuse clients without a certificate signed by this CA (mTLS; needs TLS)")
      ->type_name("FILE");
}

// The decision log, the shutdown sequence (apiserver's --shutdown-delay-duration, then a drain) and
// the log verbosity.
void add_operation_flags(CLI::App& app, Options& o) {
  app.add_option("--decision-log-size", o.decision_log_size,
                 "decisions kept for GET /debug/decisions (0 = off)")
      ->check(CLI::Range(size_t{0}, size_t{1'000'000}))
      ->type_name("N");
  add_bytes(app, "--decision-log-max-bytes", o.decision_log_max_bytes, 0, size_t{1} << 40,
            "memory bound of that log; the oldest dropped first");
  app.add_option("--shutdown-delay-seconds", o.shutdown_delay_seconds,
                 "on SIGTERM, /readyz answers 503 at once but requests are still served for N s, so that "
                 "the Service stops routing here")
      ->check(CLI::Range(0, 3600))
      ->type_name("N");
  app.add_option("--shutdown-grace-seconds", o.shutdown_grace_seconds,
                 "then, time for requests in flight to finish")
      ->check(CLI::Range(0, 3600))
      ->type_name("N");
  // klog's verbosity flag (k8s.io/klog/v2 klog.go InitFlags: "v"), spelled -v=N or --v=N as there.
  app.add_option("-v,--v", o.server.verbosity,
                 "log verbosity: 1 = every flag's value at start-up and one JSON line per request on stderr")
      ->check(CLI::Range(0, 10))
      ->type_name("N");
}

void add_gang_flags(CLI::App& app, Options& o) {
  const std::string gang = "Gang scheduling (with --enable-bind; docs/gang-scheduling.md)";
  cli::add_duration(app, "--gang-bind-hold", o.gang.max_hold, std::chrono::milliseconds(100),
                    std::chrono::hours(1),
                    "a gang member's bind waits at most D for the rest of its group, then gets an error and "
                    "is retried (keep it below the scheduler's httpTimeout)")
      ->type_name("D")
      ->group(gang);
  cli::add_duration(app, "--gang-backoff", o.gang.backoff, std::chrono::milliseconds(0),
                    std::chrono::hours(1), "a pod group that timed out is not admitted again for D")
      ->type_name("D")
      ->group(gang);
  app.add_option("--gang-max-held-binds", o.gang_max_held_binds,
                 "binds held at once waiting for their groups; more are answered with an error (0 = half of "
                 "--threads)")
      ->check(CLI::Range(size_t{0}, size_t{100'000}))
      ->type_name("N")
      ->group(gang);
}

// POST /capacity's bounds (docs/capacity.md, "From the running extender").
void add_capacity_flags(CLI::App& app, Options& o) {
  const std::string group = "Capacity questions (POST /capacity; docs/capacity.md)";
  app.add_flag("!--no-capacity", o.capacity, "do not serve POST /capacity (it answers 404)")->group(group);
  cli::add_duration(app, "--capacity-max-time", o.capacity_limits.max_time, std::chrono::milliseconds(1),
                    std::chrono::minutes(10),
                    "a capacity question's time budget; one that runs out answers what it placed so far "
                    "(a lower bound)")
      ->type_name("D")
      ->group(group);
  app.add_option("--capacity-max-node-checks", o.capacity_limits.max_node_checks,
                 "a capacity question's node budget: nodes checked, one per copy tried on a node, every "
                 "node per scheduling cycle")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000'000}))
      ->type_name("N")
      ->group(group);
}

// The one definition of kube-extender's flags, bound to `o` (whose values are the defaults --help shows),
// in the order --help lists them.
void define_flags(CLI::App& app, Options& o) {
  cli::configure(app);
  CLI::Option* bind_address = add_listen_flags(app, o.server);
  CLI::Option* config = add_configuration_flags(app, o);
  add_metrics_listen_flags(app, o.server);
  add_transport_limit_flags(app, o.server.limits);
  add_cache_and_record_flags(app, o);
  add_tls_flags(app, o.server.tls);
  add_operation_flags(app, o);
  kube::add_api_flags(app, o.api);
  add_gang_flags(app, o);
  add_capacity_flags(app, o);
  app.add_flag("--version", o.version, "print the version and exit");
  // The old names, still accepted so that deployments and scripts that use them keep working.
  cli::deprecate(cli::non_empty(app.add_option("--address", o.server.address))->type_name("ADDR"),
                 bind_address);
  cli::deprecate(app.add_option("--policy", o.policy_file)->type_name("FILE"), config);
}

CLI::App make_app() { return CLI::App("kube-extender: a Kubernetes scheduler extender", "kube-extender"); }

}  // namespace

std::string usage_text() {
  Options defaults;
  CLI::App app = make_app();
  define_flags(app, defaults);
  return cli::help_text(app);
}

std::vector<std::string> flag_names() {
  Options defaults;
  CLI::App app = make_app();
  define_flags(app, defaults);
  return cli::flag_names(app);
}

Options parse_options(int argc, char** argv) {
  Options o;
  CLI::App app = make_app();
  define_flags(app, o);
  if (!cli::parse(app, argc, argv)) {
    o.help = true;
    return o;
  }
  if (o.version) return o;  // whatever else is given, as --help
  o.notices = cli::deprecation_notices(app);
  if (o.server.verbosity >= 1) o.flag_values = cli::flag_values(app);
  check_tls_flags(o.server.tls);
  kube::apply_kubeconfig_env(o.api, !o.snapshots.empty(), std::getenv("KUBECONFIG"));
  kube::validate_api_flags(o.api, !o.snapshots.empty());
  return o;
}

}  // namespace kext
