#pragma once
// A FakeApiServer, a client configured through a kubeconfig file, and a LiveState feeding a store:
// what the watch, bind and sync tests start from; and what a from-scratch build of the server's
// objects gives, which a cache kept by the watch must equal.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "kube/client/api_config.h"
#include "kube/client/cache_sinks.h"
#include "kube/client/live_state.h"
#include "kube/state/snapshot_loader.h"
#include "kube/state/state_dump.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/wait.h"

namespace kext::testing {

inline std::string write_temp(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() / ("kext-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

// Backoffs and timeouts in milliseconds so that faults resolve quickly in tests.
inline kube::LiveStateOptions fast_live_options() {
  using namespace std::chrono_literals;
  kube::LiveStateOptions o;
  o.reflector.backoff_initial = 20ms;
  o.reflector.backoff_max = 200ms;
  o.reflector.idle_timeout = 600ms;
  o.reflector.page_size = 2;
  o.housekeeping_interval = 20ms;
  return o;
}

inline std::unique_ptr<kube::ApiClient> client_for(const FakeApiServer& api, bool inline_data = false) {
  using namespace std::chrono_literals;
  const std::string kc =
      write_temp(inline_data ? "kubeconfig-inline" : "kubeconfig", api.kubeconfig(inline_data));
  // Connecting includes the TLS handshake, which takes seconds in sanitizer builds under load.
  return std::make_unique<kube::ApiClient>(kube::kubeconfig_config(kc),
                                           kube::ApiClient::Timeouts{10000ms, 10000ms});
}

// dump_state() of the server's objects loaded from scratch, as a snapshot file would be.
inline std::string dump_from_scratch(const FakeApiServer& api) {
  ClusterStateBuilder b;
  for (const kube::WatchedResource& r : kube::watched_resources())
    for (const auto& [_, json] : api.objects(std::string(r.name))) load_snapshot_json(json, b);
  return dump_state(*std::move(b).build());
}

}  // namespace kext::testing
