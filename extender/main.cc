// kube-extender: a Kubernetes scheduler extender (filter, prioritize, preempt, bind) with a map/reduce
// engine.
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include "algorithms/namespaced_key.h"
#include "common/log.h"
#include "common/read_file.h"
#include "common/shutdown_signals.h"
#include "extender/capacity/capacity_service.h"
#include "extender/gpu/gpu_requeue.h"
#include "extender/malloc_arenas.h"
#include "extender/options.h"
#include "extender/server/server.h"
#include "extender/verbs/bind.h"
#include "extender/verbs/bind_forward.h"
#include "extender/verbs/gang_replicas.h"
#include "kube/client/api_client.h"
#include "kube/client/leader_election.h"
#include "kube/client/lease_access.h"
#include "kube/client/live_state.h"
#include "kube/state/snapshot_loader.h"
#include "policy/config.h"
#include "sim/run.h"
#include "usage/service.h"

namespace {

std::string read_file(const std::string& path, const char* flag) {
  std::string text;
  if (!kext::read_whole_file(path, text))
    throw std::runtime_error(std::string(flag) + " " + path + ": cannot open file");
  return text;
}

void log_start_up_notices(const kext::Options& opts) {
  for (const std::string& notice : opts.notices) kext::log_line(notice);
  // As kube-scheduler at -v=1 (k8s.io/component-base/cli/flag/flags.go PrintFlags).
  for (const std::string& flag : opts.flag_values) kext::log_line("FLAG: " + flag);
  if (!opts.api.kubeconfig_env.empty()) {
    kext::log_line("kubeconfig " + opts.api.kubeconfig + " from KUBECONFIG=" + opts.api.kubeconfig_env +
                   " (the first file of the list that exists; kubectl would merge them all)");
  }
}

struct Configuration {
  std::string name;  // how errors and notices name it: "--config FILE" or the embedded one
  std::string text;  // as read
  kext::LoadedFile loaded;
};

// With --in-cluster, --kubeconfig or --api-server: the client every request to the API goes through,
// made before the configuration loads, which may need the server's /version. Null without.
std::unique_ptr<kext::kube::ApiClient> make_api_client(const kext::Options& opts) {
  if (!opts.api.enabled()) return nullptr;
  return std::make_unique<kext::kube::ApiClient>(kext::kube::resolve_api_config(opts.api));
}

// What decides the kube-scheduler minor besides the file (policy/version_choice.h): --kubernetes-version,
// and the API server's /version when there is a server and no flag.
kext::VersionChoice version_choice(const kext::Options& opts, kext::kube::ApiClient* api) {
  kext::VersionChoice choice{opts.kubernetes_version, std::nullopt};
  if (api == nullptr || choice.flag) return choice;
  try {
    choice.server = kext::ServerVersion{kext::kube::server_git_version(*api), ""};
  } catch (const kext::kube::ConfigError& e) {
    choice.server = kext::ServerVersion{"", e.what()};
  }
  return choice;
}

// One line says which minor's semantics run and why (and a warning when the server's was not used as
// it is); /metrics says the same.
void report_version(const kext::VersionInForce& version, kext::Metrics& metrics) {
  if (!version.warning.empty()) kext::log_line("WARNING: " + version.warning);
  kext::log_line(kext::describe(version));
  metrics.set_kubernetes_semantics(version.version.str(), kext::source_label(version.source));
}

// An ExtenderConfiguration, a KubeSchedulerConfiguration or a legacy Policy (policy/config.h
// load_scheduling_file). Its errors and notices name the flag, as the other flags' do.
Configuration load_configuration(const kext::Options& opts, const kext::VersionChoice& version) {
  const std::string name =
      opts.policy_file.empty() ? std::string("the embedded configuration") : "--config " + opts.policy_file;
  const std::string policy_text = opts.policy_file.empty() ? std::string(kext::default_config_json())
                                                           : read_file(opts.policy_file, "--config");
  kext::LoadedFile loaded = [&] {
    try {
      return kext::load_scheduling_file(policy_text, opts.scheduler_name, version);
    } catch (const kext::PolicyError& e) {
      throw std::runtime_error(name + ": " + e.what());
    }
  }();
  if (!loaded.notice.empty()) kext::log_line(name + ": " + loaded.notice);
  return Configuration{name, policy_text, std::move(loaded)};
}

void write_effective_config(const Configuration& c) {
  try {
    std::cout << kext::effective_config_json(c.loaded) << "\n";
  } catch (const kext::PolicyError& e) {
    throw std::runtime_error("--write-config: " + c.name + ": " + e.what());
  }
}

// The scheduler's view of this extender (its extenders entries) against how it was started.
void warn_about_setup(const kext::Options& opts, const Configuration& c) {
  const bool cluster_state = opts.api.enabled() || !opts.snapshots.empty();
  for (const std::string& warning : kext::extender_entry_warnings(
           c.loaded.extenders, kext::ExtenderSettings{cluster_state, opts.api.bind, opts.server.tls.enabled(),
                                                      opts.server.path_prefix, c.loaded.profile.version})) {
    kext::log_line("WARNING: " + c.name + ": " + warning);
  }
  if (!cluster_state) {
    // Verbs answer from the cluster state (kube/state): without one, a NodeNames request finds no
    // node and a full-Nodes one sees nodes without their pods.
    kext::log_line(
        "WARNING: no cluster state (no --in-cluster, --kubeconfig, --api-server or --snapshot): "
        "nodeCacheCapable requests (NodeNames) answer every node \"not found\"; only full-Nodes requests "
        "work, and they see no pods");
  }
}

void load_snapshots(const kext::Options& opts, kext::StateStore& store, kext::KubeVersion version) {
  if (opts.snapshots.empty()) return;
  store.publish(kext::load_snapshot_files(opts.snapshots, version));
  // The file text and its DOM (several times the size of the cache) were freed in small pieces
  // that glibc keeps; hand them back, or RSS keeps them as long as the process runs.
  malloc_trim(0);
}

// What talks to the Kubernetes API, with --in-cluster, --kubeconfig or --api-server; all null without.
// Destroyed from the last member up, as the locals they replace in main were.
struct ClusterClients {
  std::unique_ptr<kext::kube::ApiClient> api;
  std::unique_ptr<kext::GpuRequeue> gpu_requeue;  // before `live`, whose watch calls it: it outlives it
  std::unique_ptr<kext::kube::LiveState> live;
  std::unique_ptr<kext::kube::LeaderElector> elector;
  std::unique_ptr<kext::BindForwarder> forwarder;
  std::unique_ptr<kext::GpuBinder> gpus;
  std::unique_ptr<kext::BindVerb> binder;
  std::unique_ptr<kext::GangCoordinator> gangs;
  std::unique_ptr<kext::LeaseGangReplicas> gang_replicas;
};

// With --leader-elect: the Lease's candidate (client-go tools/leaderelection/leaderelection.go
// NewLeaderElector), its holding reported as a metric.
std::unique_ptr<kext::kube::LeaderElector> make_elector(kext::kube::ApiClient& api, const kext::Options& opts,
                                                        kext::Metrics& metrics) {
  kext::kube::LeaderElectionConfig election = opts.api.election;
  if (election.identity.empty()) election.identity = kext::kube::default_identity();
  metrics.set_leader(election.identity, false);
  return std::make_unique<kext::kube::LeaderElector>(
      api, election, [&metrics, id = election.identity](bool held) { metrics.set_leader(id, held); });
}

// How a replica not holding the Lease passes a /bind on to the one that does.
kext::ForwardConfig forward_config(const kext::Options& opts) {
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
  return forward;
}

kext::GangConfig gang_config(const kext::Options& opts, const kext::kube::LeaderElector* elector,
                             const kext::Profile& profile) {
  kext::GangConfig gang = opts.gang;
  gang.topology_levels = profile.topology_levels;
  gang.max_held_binds = opts.gang_max_held_binds > 0 ? opts.gang_max_held_binds
                                                     : std::max<size_t>(1, opts.server.limits.threads / 2);
  if (elector && gang.max_hold >= elector->config().forward_timeout) {
    // A bind forwarded to the holder waits there: the hold must end before the forward gives up.
    gang.max_hold = elector->config().forward_timeout * 3 / 4;
    kext::log_line("--gang-bind-hold lowered to " + std::to_string(gang.max_hold.count()) +
                   " ms: below --bind-forward-timeout");
  }
  return gang;
}

// Live cluster state: fail fast on a wrong address, certificate or permission, then list+watch in
// the background (/readyz says when the first lists are in); and the bind verb with what it needs.
ClusterClients connect_cluster(const kext::Options& opts, std::unique_ptr<kext::kube::ApiClient> api,
                               kext::StateStore& store, const kext::Profile& profile,
                               kext::Metrics& metrics) {
  ClusterClients c;
  if (!api) return c;
  c.api = std::move(api);
  kext::kube::check_api_access(*c.api);
  metrics.set_api_errors([&errors = c.api->errors()] {
    std::vector<kext::Metrics::ApiErrorSeries> out;
    for (const auto& n : errors.counts()) out.push_back({n.resource, n.status, n.count});
    return out;
  });
  kext::kube::LiveStateOptions live_opts;
  live_opts.version = profile.version;
  live_opts.report_lag = [&metrics](const std::string& resource, double s) {
    metrics.set_watch_lag_seconds(resource, s);
  };
  // GPUShare allocates at bind: a pod's cards freed sends the GPU pods just refused back to the queue.
  if (profile.gpu_sharing && opts.api.bind) {
    c.gpu_requeue = std::make_unique<kext::GpuRequeue>(*c.api, &metrics);
    live_opts.on_pod_gone = [r = c.gpu_requeue.get()](const kext::kube::PodGone& gone) {
      if (gone.held_gpus) r->cards_freed();
    };
  }
  c.live = std::make_unique<kext::kube::LiveState>(*c.api, store, live_opts);
  if (opts.api.leader_elect) {
    c.elector = make_elector(*c.api, opts, metrics);
    c.forwarder = std::make_unique<kext::BindForwarder>(*c.elector, forward_config(opts), &metrics);
  }
  if (opts.api.bind) {
    // Gang scheduling holds members' binds: it needs the bind verb, and runs wherever it does.
    c.gangs = std::make_unique<kext::GangCoordinator>(profile.engine, store,
                                                      gang_config(opts, c.elector.get(), profile), &metrics);
    // GPUShare in the profile: the pods' GPUs are allocated at bind, as HAMi's device plugin expects.
    if (profile.gpu_sharing) {
      c.gpus = std::make_unique<kext::GpuBinder>(*c.api, c.live->cache(),
                                                 kext::GpuBindOptions{*profile.gpu_sharing}, &metrics);
      metrics.set_gpu_allocations_undecoded([gpus = c.gpus.get()] { return gpus->undecoded_allocations(); });
    }
    c.binder = std::make_unique<kext::BindVerb>(*c.api, c.live->cache(), opts.api.assume_ttl, c.elector.get(),
                                                c.forwarder.get(), c.gangs.get(), c.gpus.get());
    if (c.elector)
      c.gang_replicas = std::make_unique<kext::LeaseGangReplicas>(*c.elector, *c.forwarder, *c.gangs);
  }
  return c;
}

// With a `usage:` section: its source polled into the store the verbs read (StateStore::usage), its
// sample age and errors in /metrics. Null without one: the load-aware plugins stay neutral.
std::unique_ptr<kext::usage::Service> start_usage(const kext::LoadedFile& loaded, kext::kube::ApiClient* api,
                                                  kext::StateStore& store, kext::Metrics& metrics) {
  if (!loaded.usage) return nullptr;
  auto service = std::make_unique<kext::usage::Service>(*loaded.usage, api, store,
                                                        [&metrics] { metrics.count_usage_fetch_error(); });
  const kext::usage::Store& usage_store = service->store();
  metrics.set_usage_source(service->source_name(),
                           [&usage_store] { return usage_store.newest_sample_age_seconds(); });
  kext::log_line("node usage from " + std::string(service->source_name()) + " every " +
                 std::to_string(loaded.usage->interval_seconds) + " s");
  service->start();
  return service;
}

// Publishes where this replica takes forwarded binds, says what keeps it from taking the Lease (a
// missing namespace or RBAC rule: it keeps trying, and binds once that is put right), then runs for it.
void start_elector(kext::kube::LeaderElector& elector, kext::kube::ApiClient& api, const kext::Options& opts,
                   const kext::Server& server) {
  for (const std::string& problem : kext::kube::lease_access_problems(api, elector.config())) {
    kext::log_line("--leader-elect: " + problem);
  }
  elector.set_advertise_url(
      kext::kube::advertise_url(kext::kube::advertise_host(opts.api, opts.server.address), server.port(),
                                opts.server.tls.enabled(), server.path_prefix()));
  kext::log_line("bind Lease " +
                 kext::namespaced_key(elector.config().lease_namespace, elector.config().lease_name) +
                 ": as " + elector.identity() + ", forwarded binds taken at " +
                 elector.config().advertise_url + "/" + std::string(kext::kHolderBindRoute));
  elector.start();
}

// On SIGTERM or SIGINT, as kube-apiserver's graceful termination (k8s.io/apiserver
// pkg/server/genericapiserver.go preparedGenericAPIServer.Run: ShutdownDelayDuration, then drain).
void drain_on_signal(kext::ShutdownSignals& signals, const kext::Options& opts, kext::Server& server,
                     const ClusterClients& cluster) {
  const auto delay = std::chrono::seconds(opts.shutdown_delay_seconds);
  const auto grace = std::chrono::seconds(opts.shutdown_grace_seconds);
  signals.start(
      [&server, elector = cluster.elector.get(), gangs = cluster.gangs.get(), delay, grace](int sig) {
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
}

void log_listening(const kext::Options& opts, const kext::LoadedFile& loaded, const kext::StateStore& store,
                   const kext::Server& server) {
  auto state = store.current();
  kext::log_line("version " KEXT_VERSION " listening on " + opts.server.address + ":" +
                 std::to_string(server.port()) + opts.server.path_prefix +
                 (opts.server.tls.enabled() ? " (TLS" : " (plain HTTP") +
                 (opts.server.tls.client_ca_file.empty() ? ", " : ", client certificates required, ") +
                 std::to_string(loaded.filters) + " filters, " + std::to_string(loaded.scores) + " scores, " +
                 std::to_string(state->node_object_count()) + " nodes, " +
                 std::to_string(state->pods_by_uid.size()) + " pods)");
  if (server.metrics_port() >= 0) {
    kext::log_line("/metrics, /healthz, /readyz also on " +
                   (opts.server.metrics_address.empty() ? opts.server.address : opts.server.metrics_address) +
                   ":" + std::to_string(server.metrics_port()) + " (plain HTTP)");
  }
}

}  // namespace

// POST /capacity (docs/capacity.md): questions answered under kube-scheduler's default profile of the
// minor in force with this extender's configuration beside it, as extender-sim answers them. Null with
// --no-capacity.
std::unique_ptr<kext::capacity::CapacityService> serve_capacity(const kext::Options& opts,
                                                                const Configuration& config,
                                                                const kext::StateStore& store,
                                                                kext::Metrics& metrics,
                                                                kext::Server& server) {
  if (!opts.capacity) return nullptr;
  auto service = std::make_unique<kext::capacity::CapacityService>(
      kext::simtool::sim_config_of_text(config.text, config.name, config.loaded.profile.version), store,
      opts.capacity_limits, &metrics);
  server.add_route("POST", "/capacity", kext::capacity::capacity_handler(*service));
  return service;
}

// cmd/kube-scheduler/app/server.go in two steps: Setup (flags, the configuration, the clients) and
// Run (the informers, leader election, serving until a signal drains it).
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
    std::cout << kext::usage_text();
    return 0;
  }
  if (opts.version) {
    std::cout << "kube-extender " KEXT_VERSION "\n";
    return 0;
  }
  log_start_up_notices(opts);
  try {
    if (opts.write_config) {
      // The file as it is, with --kubernetes-version: no server is asked.
      write_effective_config(
          load_configuration(opts, kext::VersionChoice{opts.kubernetes_version, std::nullopt}));
      return 0;
    }
    std::unique_ptr<kext::kube::ApiClient> api = make_api_client(opts);
    const Configuration config = load_configuration(opts, version_choice(opts, api.get()));
    kext::Metrics metrics(KEXT_VERSION);
    report_version(config.loaded.version, metrics);
    warn_about_setup(opts, config);
    const kext::Profile& profile = config.loaded.profile;
    kext::StateStore store;
    load_snapshots(opts, store, profile.version);
    if (std::string tls_error = kext::validate_tls_files(opts.server.tls); !tls_error.empty()) {
      throw std::runtime_error(tls_error);
    }
    std::unique_ptr<kext::DecisionLog> decisions;
    if (opts.decision_log_size > 0) {
      decisions = std::make_unique<kext::DecisionLog>(opts.decision_log_size, opts.decision_log_max_bytes);
    }
    ClusterClients cluster = connect_cluster(opts, std::move(api), store, profile, metrics);

    kext::Verbs verbs(profile, store, opts.node_cache_entries, cluster.binder.get(), cluster.gangs.get(),
                      cluster.gang_replicas.get());
    if (kext::GpuRequeue* r = cluster.gpu_requeue.get())
      verbs.set_gpu_rejected([r](const std::string& ns, const std::string& name) { r->rejected(ns, name); });
    kext::Server server(opts.server, verbs, store,
                        kext::ServerObservers{&metrics, decisions.get(), cluster.elector.get()});
    const std::unique_ptr<kext::capacity::CapacityService> capacity =
        serve_capacity(opts, config, store, metrics, server);
    std::string error;
    if (!server.bind(&error)) throw std::runtime_error(error);
    if (cluster.live) cluster.live->start();
    const std::unique_ptr<kext::usage::Service> usage =
        start_usage(config.loaded, cluster.api.get(), store, metrics);
    if (cluster.elector) start_elector(*cluster.elector, *cluster.api, opts, server);
    drain_on_signal(signals, opts, server, cluster);
    log_listening(opts, config.loaded, store, server);
    server.serve();
    signals.stop();  // the drain runs on its thread and uses `server`
    if (usage) usage->stop();
    kext::log_line("stopped");
    return 0;
  } catch (const std::exception& e) {
    kext::log_line(e.what());
    return 1;
  }
}
