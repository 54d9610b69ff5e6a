// kube-extender: a Kubernetes scheduler extender (filter, prioritize, preempt, bind) with a map/reduce
// engine.
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "common/log.h"
#include "common/read_file.h"
#include "common/shutdown_signals.h"
#include "kube/client/leader_election.h"
#include "kube/client/live_state.h"
#include "extender/malloc_arenas.h"
#include "extender/options.h"
#include "extender/server/server.h"
#include "kube/state/snapshot_loader.h"
#include "extender/verbs/bind.h"
#include "extender/verbs/bind_forward.h"
#include "extender/verbs/gang_replicas.h"
#include "policy/config.h"

namespace {

std::string read_file(const std::string& path, const char* flag) {
  std::string text;
  if (!kext::read_whole_file(path, text))
    throw std::runtime_error(std::string(flag) + " " + path + ": cannot open file");
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread allocates: a thread keeps the arena of its first malloc.
  kext::limit_malloc_arenas();
  // Before any thread exists, so that every thread inherits the blocked SIGTERM/SIGINT.
  kext::ShutdownSignals signals;
  kext::Options opts;
  try {
    opts = kext::parse_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "kube-extender: " << e.what() << "\n(kube-extender --help lists the flags)\n";
    return 2;
  }
  if (opts.help) {
    std::cout << kext::usage();
    return 0;
  }
  if (opts.version) {
    std::cout << "kube-extender " KEXT_VERSION "\n";
    return 0;
  }
  for (const std::string& notice : opts.notices) kext::log_line(notice);
  // As kube-scheduler at -v=1 (k8s.io/component-base/cli/flag/flags.go PrintFlags).
  for (const std::string& flag : opts.flag_values) kext::log_line("FLAG: " + flag);
  if (!opts.api.kubeconfig_env.empty()) {
    kext::log_line("kubeconfig " + opts.api.kubeconfig + " from KUBECONFIG=" + opts.api.kubeconfig_env +
                   " (the first file of the list that exists; kubectl would merge them all)");
  }
  try {
    // An ExtenderConfiguration, a KubeSchedulerConfiguration or a legacy Policy (policy/config.h
    // load_scheduling_file). Its errors and notices name the flag, as the other flags' do.
    const std::string config_name =
        opts.policy_file.empty() ? std::string("the embedded configuration") : "--config " + opts.policy_file;
    const std::string policy_text = opts.policy_file.empty() ? std::string(kext::default_config_json())
                                                             : read_file(opts.policy_file, "--config");
    kext::LoadedFile loaded = [&] {
      try {
        return kext::load_scheduling_file(policy_text, opts.scheduler_name);
      } catch (const kext::PolicyError& e) {
        throw std::runtime_error(config_name + ": " + e.what());
      }
    }();
    if (!loaded.notice.empty()) kext::log_line(config_name + ": " + loaded.notice);
    if (opts.write_config) {
      try {
        std::cout << kext::effective_config_json(loaded) << "\n";
      } catch (const kext::PolicyError& e) {
        throw std::runtime_error("--write-config: " + config_name + ": " + e.what());
      }
      return 0;
    }
    const bool cluster_state = opts.api.enabled() || !opts.snapshots.empty();
    // The scheduler's view of this extender (its extenders entries) against how it was started.
    for (const std::string& warning : kext::extender_entry_warnings(
             loaded.extenders, kext::ExtenderSettings{cluster_state, opts.api.bind, opts.server.tls.enabled(),
                                                      opts.server.path_prefix})) {
      kext::log_line("WARNING: " + config_name + ": " + warning);
    }
    if (!cluster_state) {
      // Verbs answer from the cluster state (kube/state): without one, a NodeNames request finds no
      // node and a full-Nodes one sees nodes without their pods.
      kext::log_line(
          "WARNING: no cluster state (no --in-cluster, --kubeconfig, --api-server or --snapshot): "
          "nodeCacheCapable requests (NodeNames) answer every node \"not found\"; only full-Nodes requests "
          "work, and they see no pods");
    }
    const kext::Profile& profile = loaded.profile;

    kext::StateStore store;
    if (!opts.snapshots.empty()) {
      store.publish(kext::load_snapshot_files(opts.snapshots));
      // The file text and its DOM (several times the size of the cache) were freed in small pieces
      // that glibc keeps; hand them back (RSS with and without it: docs/performance.md "Benchmarks",
      // cluster state).
      malloc_trim(0);
    }

    if (std::string tls_error = kext::validate_tls_files(opts.server.tls); !tls_error.empty()) {
      throw std::runtime_error(tls_error);
    }
    kext::Metrics metrics(KEXT_VERSION);
    std::unique_ptr<kext::DecisionLog> decisions;
    if (opts.decision_log_size > 0) {
      decisions = std::make_unique<kext::DecisionLog>(opts.decision_log_size, opts.decision_log_max_bytes);
    }

    // Live cluster state: fail fast on a wrong address, certificate or permission, then list+watch in
    // the background (/readyz says when the first lists are in).
    std::unique_ptr<kext::kube::ApiClient> api;
    std::unique_ptr<kext::kube::LiveState> live;
    std::unique_ptr<kext::kube::LeaderElector> elector;
    std::unique_ptr<kext::BindForwarder> forwarder;
    std::unique_ptr<kext::BindVerb> binder;
    std::unique_ptr<kext::GangCoordinator> gangs;
    std::unique_ptr<kext::LeaseGangReplicas> gang_replicas;
    if (opts.api.enabled()) {
      api = std::make_unique<kext::kube::ApiClient>(kext::kube::resolve_api_config(opts.api));
      kext::kube::check_api_access(*api);
      kext::kube::LiveStateOptions live_opts;
      live_opts.report_lag = [&metrics](const std::string& resource, double s) {
        metrics.set_watch_lag_seconds(resource, s);
      };
      live = std::make_unique<kext::kube::LiveState>(*api, store, live_opts);
      if (opts.api.leader_elect) {
        kext::kube::LeaderElectionConfig election = opts.api.election;
        if (election.identity.empty()) election.identity = kext::kube::default_identity();
        metrics.set_leader(election.identity, false);
        elector = std::make_unique<kext::kube::LeaderElector>(
            *api, election, [&metrics, id = election.identity](bool held) { metrics.set_leader(id, held); });
      }
      if (elector) {
        kext::ForwardConfig forward;
        forward.max_waiting = std::max<size_t>(1, opts.server.limits.threads / 2);
        if (opts.server.tls.enabled()) {
          // The replicas share their certificate: the holder's must chain to what this one serves, and
          // this one's is presented to a holder that asks for a client certificate (--client-ca-file).
          forward.tls = true;
          forward.ca_pem = read_file(opts.server.tls.cert_file, "--tls-cert-file");
          forward.client_cert_pem = forward.ca_pem;
          forward.client_key_pem = read_file(opts.server.tls.key_file, "--tls-private-key-file");
        }
        forwarder = std::make_unique<kext::BindForwarder>(*elector, std::move(forward), &metrics);
      }
      if (opts.api.bind) {
        // Gang scheduling holds members' binds: it needs the bind verb, and runs wherever it does.
        kext::GangConfig gang = opts.gang;
        gang.max_held_binds = opts.gang_max_held_binds > 0
                                  ? opts.gang_max_held_binds
                                  : std::max<size_t>(1, opts.server.limits.threads / 2);
        if (elector && gang.max_hold >= elector->config().forward_timeout) {
          // A bind forwarded to the holder waits there: the hold must end before the forward gives up.
          gang.max_hold = elector->config().forward_timeout * 3 / 4;
          kext::log_line("--gang-bind-hold lowered to " + std::to_string(gang.max_hold.count()) +
                         " ms: below --bind-forward-timeout");
        }
        gangs = std::make_unique<kext::GangCoordinator>(profile.engine, store, gang, &metrics);
        binder = std::make_unique<kext::BindVerb>(*api, live->cache(), opts.api.assume_ttl, elector.get(),
                                                  forwarder.get(), gangs.get());
        if (elector) gang_replicas = std::make_unique<kext::LeaseGangReplicas>(*elector, *forwarder, *gangs);
      }
    }

    kext::Verbs verbs(profile, store, opts.node_cache_entries, binder.get(), gangs.get(),
                      gang_replicas.get());
    kext::Server server(opts.server, verbs, store, kext::ServerObservers{&metrics, decisions.get()});
    std::string error;
    if (!server.bind(&error)) throw std::runtime_error(error);
    if (live) live->start();
    if (elector) {
      elector->set_advertise_url(
          kext::kube::advertise_url(kext::kube::advertise_host(opts.api, opts.server.address), server.port(),
                                    opts.server.tls.enabled(), server.path_prefix()));
      kext::log_line("bind Lease " + elector->config().lease_namespace + "/" + elector->config().lease_name +
                     ": as " + elector->identity() + ", forwarded binds taken at " +
                     elector->config().advertise_url + "/" + std::string(kext::kHolderBindRoute));
      elector->start();
    }
    const auto delay = std::chrono::seconds(opts.shutdown_delay_seconds);
    const auto grace = std::chrono::seconds(opts.shutdown_grace_seconds);
    signals.start([&server, &elector, &gangs, delay, grace](int sig) {
      // Not ready first: the endpoints controller removes this replica from the Service only after the
      // kubelet's next failed readiness probe, and the scheduler keeps sending until then.
      server.set_terminating();
      if (gangs) gangs->stop();  // held binds answered now: the scheduler retries them elsewhere
      // The Lease goes at once: binds sent here from now on are refused and retried by the scheduler,
      // and another replica takes over at its next retry instead of after a lease duration.
      if (elector) elector->stop();
      kext::log_line(std::string(sig == SIGTERM ? "SIGTERM" : "SIGINT") + ", not ready, serving for " +
                     std::to_string(delay.count()) + " s more");
      std::this_thread::sleep_for(delay);
      kext::log_line("draining (grace " + std::to_string(grace.count()) + " s, " +
                     std::to_string(server.in_flight()) + " requests in flight)");
      server.shutdown(grace);
    });
    auto state = store.current();
    kext::log_line("version " KEXT_VERSION " listening on " + opts.server.address + ":" +
                   std::to_string(server.port()) + opts.server.path_prefix +
                   (opts.server.tls.enabled() ? " (TLS" : " (plain HTTP") +
                   (opts.server.tls.client_ca_file.empty() ? ", " : ", client certificates required, ") +
                   std::to_string(loaded.filters) + " filters, " + std::to_string(loaded.scores) +
                   " scores, " + std::to_string(state->node_object_count()) + " nodes, " +
                   std::to_string(state->pods_by_uid.size()) + " pods)");
    if (server.metrics_port() >= 0) {
      kext::log_line(
          "/metrics, /healthz, /readyz also on " +
          (opts.server.metrics_address.empty() ? opts.server.address : opts.server.metrics_address) + ":" +
          std::to_string(server.metrics_port()) + " (plain HTTP)");
    }
    server.serve();
    signals.stop();  // the drain runs on its thread and uses `server`
    kext::log_line("stopped");
    return 0;
  } catch (const std::exception& e) {
    kext::log_line(e.what());
    return 1;
  }
}
