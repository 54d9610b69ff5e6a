#pragma once
// The in-repo Kubernetes API server (kube/apiserver/api_server.h) as the tests and benchmarks run it:
// on 127.0.0.1 over TLS with the certificates of tests/fixtures/certs, a kubeconfig for it, objects
// put by their own metadata, and the store's test semantics (every put an event; see Options).
#include <string>
#include <vector>

#include "kube/apiserver/api_server.h"

namespace kext::testing {

class FakeApiServer : public kube::ApiServer {
 public:
  struct Options {
    bool tls = true;
    bool require_client_cert = true;  // client.crt from tests/fixtures/certs
    std::string token;                // when set, requests need "Authorization: Bearer <token>"
    // A watch holds a thread until an event, its deadline or a fault: one the client abandoned (idle
    // timeout, reconnect) too, since the socket's close goes unseen while nothing is written. The
    // watched resources, most of them silent in tests, abandon and reopen often with the tests' short
    // idle timeout.
    size_t threads = 256;
  };

  FakeApiServer();
  explicit FakeApiServer(Options o);

  // A kubeconfig for this server with the test certificates (as files, or inline as *-data).
  std::string kubeconfig(bool inline_data = false) const;

  using kube::ApiServer::put;
  // Creates or replaces the object keyed by its metadata ("namespace/name" or "name"); always an event.
  void put(const std::string& resource, const std::string& json);

  struct Binding {
    std::string namespace_, name, node;
  };
  std::vector<Binding> bindings() const;

  // The holder of the Lease "namespace/name": "" when there is no such Lease or nobody holds it.
  std::string lease_holder(const std::string& key) const;

 private:
  Options opts_;
};

}  // namespace kext::testing
