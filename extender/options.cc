#include "extender/options.h"

#include <stdexcept>

#include "common/command_line.h"

namespace kext {

std::string usage() {
  const Options d;
  const TransportLimits& l = d.server.limits;
  auto n = [](auto v) { return std::to_string(v); };
  auto secs = [](std::chrono::milliseconds ms) { return std::to_string(ms.count() / 1000); };
  return "usage: kube-extender [flags]\n"
         "  --address ADDR        listen address (default " +
         d.server.address +
         ")\n"
         "  --port N              listen port (default " +
         n(d.server.port) +
         "; 0 = any free port)\n"
         "  --path-prefix PATH    serve the verbs under PATH (for a urlPrefix with a path)\n"
         "  --policy FILE         legacy Policy JSON (default: the embedded policy)\n"
         "  --snapshot FILE       cluster state from `kubectl get nodes,pods,pdb -A -o json` (repeatable)\n"
         "  --metrics-port N      also serve /metrics, /healthz, /readyz (plain HTTP) on port N (default 0 = "
         "off)\n"
         "  --metrics-bind-address ADDR  address of that port (default: --address)\n"
         "  --max-body-bytes N    largest request body accepted (default " +
         n(l.max_body_bytes) +
         ")\n"
         "  --max-header-bytes N  largest request header block accepted (default " +
         n(l.max_header_bytes) +
         ")\n"
         "  --threads N           worker threads that run requests; connections hold none while idle or\n"
         "                        receiving (default " +
         n(l.threads) +
         ")\n"
         "  --max-connections N   open connections at once; more get 503 and are closed (default " +
         n(l.max_connections) +
         ")\n"
         "  --max-queued-requests N  whole requests waiting for a worker; more get 503 + Retry-After "
         "(default " +
         n(l.max_queued_requests) +
         ")\n"
         "  --max-buffered-bytes N  request bytes held across connections; more get 503 (default " +
         n(l.max_buffered_bytes) +
         ")\n"
         "  --request-timeout-seconds N  a request (headers and body) must arrive within N s of its first\n"
         "                        byte, or of the connection's accept (default " +
         secs(l.request_timeout) +
         "; 408)\n"
         "  --idle-timeout-seconds N  idle keep-alive connections are closed after N s (default " +
         secs(l.idle_timeout) +
         ")\n"
         "  --write-timeout-seconds N  a reply not taken by the client within N s closes the connection "
         "(default " +
         secs(l.write_timeout) +
         ")\n"
         "  --node-cache-entries N  decoded full-mode node objects kept between requests (default " +
         n(d.node_cache_entries) +
         "; 0 = off)\n"
         "  --record-dir DIR      append every verb request and reply to DIR/rec-*.jsonl (default: off)\n"
         "  --record-max-bytes N  bound on DIR's recordings; the oldest quarter is deleted first (default " +
         n(d.server.record_max_bytes) +
         ")\n"
         "  --tls-cert-file FILE  serve HTTPS with this PEM certificate (chain); needs "
         "--tls-private-key-file\n"
         "  --tls-private-key-file FILE  the certificate's PEM private key (unencrypted)\n"
         "  --client-ca-file FILE refuse clients without a certificate signed by this CA (mTLS; needs TLS)\n"
         "  --decision-log-size N decisions kept for GET /debug/decisions (default " +
         n(d.decision_log_size) +
         "; 0 = off)\n"
         "  --decision-log-max-bytes N  memory bound of that log; oldest dropped first (default " +
         n(d.decision_log_max_bytes) +
         ")\n"
         "  --shutdown-delay-seconds N  on SIGTERM, /readyz answers 503 at once but requests are still "
         "served\n"
         "                        for N s, so that the Service stops routing here (default " +
         n(d.shutdown_delay_seconds) +
         ")\n"
         "  --shutdown-grace-seconds N  then, time for requests in flight to finish (default " +
         n(d.shutdown_grace_seconds) +
         ")\n"
         "  -v N, --v N           log verbosity: 1 = one JSON line per request on stderr (default " +
         n(d.server.verbosity) + ")\n" + kube::api_flags_usage() + "  --help\n";
}

Options parse_options(int argc, char** argv) {
  Options o;
  TransportLimits& l = o.server.limits;
  for (ArgCursor cursor(argc, argv); cursor.advance();) {
    std::string arg = cursor.flag();
    auto next = [&] { return cursor.value(); };
    if (arg == "-v" && !cursor.has_inline_value()) arg = "--v";  // klog spells it -v
    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--address") {
      o.server.address = non_empty_value(arg, next());
    } else if (arg == "--port") {
      o.server.port = static_cast<int>(parse_flag_integer<int64_t>(arg, next(), 0, 65535));
    } else if (arg == "--path-prefix") {
      o.server.path_prefix = next();
    } else if (arg == "--policy") {
      o.policy_file = next();
    } else if (arg == "--snapshot") {
      o.snapshots.push_back(next());
    } else if (arg == "--metrics-port") {
      const int port = static_cast<int>(parse_flag_integer<int64_t>(arg, next(), 0, 65535));
      o.server.metrics_port = port == 0 ? -1 : port;
    } else if (arg == "--metrics-bind-address") {
      o.server.metrics_address = non_empty_value(arg, next());
    } else if (arg == "--max-body-bytes") {
      l.max_body_bytes =
          static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 1024, int64_t{1} << 34));
    } else if (arg == "--max-header-bytes") {
      l.max_header_bytes =
          static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 1024, int64_t{1} << 24));
    } else if (arg == "--threads") {
      l.threads = static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 1, 1024));
    } else if (arg == "--max-connections") {
      l.max_connections = static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 1, 1'000'000));
    } else if (arg == "--max-queued-requests") {
      l.max_queued_requests = static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 1, 1'000'000));
    } else if (arg == "--max-buffered-bytes") {
      l.max_buffered_bytes =
          static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 1 << 20, int64_t{1} << 40));
    } else if (arg == "--request-timeout-seconds") {
      l.request_timeout = std::chrono::seconds(parse_flag_integer<int64_t>(arg, next(), 1, 3600));
    } else if (arg == "--idle-timeout-seconds") {
      l.idle_timeout = std::chrono::seconds(parse_flag_integer<int64_t>(arg, next(), 1, 86400));
    } else if (arg == "--write-timeout-seconds") {
      l.write_timeout = std::chrono::seconds(parse_flag_integer<int64_t>(arg, next(), 1, 3600));
    } else if (arg == "--node-cache-entries") {
      o.node_cache_entries = static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 0, 10'000'000));
    } else if (arg == "--record-dir") {
      o.server.record_dir = non_empty_value(arg, next());
    } else if (arg == "--record-max-bytes") {
      o.server.record_max_bytes =
          static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 4096, int64_t{1} << 40));
    } else if (arg == "--tls-cert-file") {
      o.server.tls.cert_file = next();
    } else if (arg == "--tls-private-key-file") {
      o.server.tls.key_file = next();
    } else if (arg == "--client-ca-file") {
      o.server.tls.client_ca_file = next();
    } else if (arg == "--decision-log-size") {
      o.decision_log_size = static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 0, 1'000'000));
    } else if (arg == "--decision-log-max-bytes") {
      o.decision_log_max_bytes =
          static_cast<size_t>(parse_flag_integer<int64_t>(arg, next(), 0, int64_t{1} << 40));
    } else if (arg == "--shutdown-delay-seconds") {
      o.shutdown_delay_seconds = static_cast<int>(parse_flag_integer<int64_t>(arg, next(), 0, 3600));
    } else if (arg == "--shutdown-grace-seconds") {
      o.shutdown_grace_seconds = static_cast<int>(parse_flag_integer<int64_t>(arg, next(), 0, 3600));
    } else if (arg == "--v") {
      o.server.verbosity = static_cast<int>(parse_flag_integer<int64_t>(arg, next(), 0, 10));
    } else if (kube::parse_api_flag(arg, next, o.api)) {
    } else {
      throw std::invalid_argument("unknown flag \"" + arg + "\"");
    }
  }
  check_tls_flags(o.server.tls);
  kube::validate_api_flags(o.api, !o.snapshots.empty());
  return o;
}

}  // namespace kext
