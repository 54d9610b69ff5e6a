#pragma once
// A request to the API server that got no HTTP response, in words an operator acts on ("connection
// refused", "TLS handshake failed: ...") and as the short label /metrics counts it by. cpp-httplib says no
// more than one word (its Error names: "Connection" for a refused, unreachable or unresolvable server
// alike), so ApiClient gathers what else is known first: what a connect to the server meets, OpenSSL's
// reason for a failed handshake, whether a read ran out of time.
#include <chrono>
#include <string>

namespace kext::kube {

// What is known of a request that got no HTTP status.
struct TransportFacts {
  std::string error = {};          // cpp-httplib's Error name: "Connection", "SSLConnection", "Read", ...
  int connect_errno = 0;           // for "Connection": what a connect to the server met; 0: it connected
  std::string resolve_error = {};  // for "Connection": why the host did not resolve (gai_strerror)
  std::string tls_reason = {};     // for the SSL errors: "certificate verify failed: self-signed certificate"
  bool timed_out = false;          // for "Read": the whole timeout passed without a reply
  std::chrono::milliseconds timeout{0};  // the timeout that applied: the connect one, or the read one
};

struct TransportFailure {
  // kube_extender_api_errors_total's status label: refused, unreachable, dns, timeout, tls, closed,
  // cancelled (a request this side ended: not a failure), error (anything else).
  std::string label;
  // "cannot connect to https://10.0.0.1:6443: connection refused"
  std::string words;
};

TransportFailure describe_transport_failure(const TransportFacts& facts, const std::string& server_url);

// What a TCP connect to host:port meets now, within `timeout`: 0 when it connects, else its errno
// (ECONNREFUSED, EHOSTUNREACH, ETIMEDOUT, ...); a host that does not resolve gives -1 and the resolver's
// words in *resolve_error.
int probe_connect(const std::string& host, int port, std::chrono::milliseconds timeout,
                  std::string* resolve_error);

}  // namespace kext::kube
