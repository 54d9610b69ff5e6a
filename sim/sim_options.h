#pragma once
// extender-sim's command line, defined once with CLI11 (common/cli.h).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/kube_version.h"
#include "sim/core/simulator.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace kext::simtool {

struct SimCommand {
  std::string cluster_file;   // --cluster; "" with --kubeconfig (exactly one of the two)
  std::string kubeconfig;     // --kubeconfig: the cluster read from its API server (live_input.h)
  std::string kube_context;   // --context: the kubeconfig's context; "" for its current-context
  std::string record_dir;     // --record-dir: pending pods from an extender recording (record_input.h)
  std::string workload_file;  // --workload; "" for none
  // --config: a KubeSchedulerConfiguration (the scheduler's profile), or an extender's configuration
  // (ExtenderConfiguration, legacy Policy) that joins the scheduler profile as kube-scheduler calls an
  // extender; "" for kube-scheduler's default profile alone (with --extender: the extender's
  // configuration, "" for the embedded one).
  std::string config_file;
  // Every --config, in order: with --follow each is one simulated policy (none: the default, named
  // "default"); without it at most one (config_file).
  std::vector<std::string> config_files;
  // --scheduler-config: the KubeSchedulerConfiguration whose profile an extender's configuration
  // joins; "" for kube-scheduler 1.26's default profile (policy/config.h default_scheduler_config_json).
  std::string scheduler_config_file;
  // --extender-weight: the extender's weight in the scheduler's total (KubeSchedulerConfiguration
  // extenders[].weight); nullopt: that of --scheduler-config's one extenders entry, else 1.
  std::optional<int64_t> extender_weight;
  // --kubernetes-version: the kube-scheduler minor every configuration runs; nullopt: each one's
  // kubernetesVersion, else the live cluster's /version (--kubeconfig), else the newest
  // (policy/version_choice.h).
  std::optional<KubeVersion> kubernetes_version;
  std::string log_file;      // --log; "" for none
  std::string compare_file;  // --compare: a second configuration run on the same inputs; "" for none
  std::string html_file;     // --html: the report; "" for none
  uint64_t seed = 1;
  double max_time_seconds = std::chrono::duration<double>(sim::SimulatorOptions{}.max_time).count();
  std::optional<double> runtime_seconds;  // nullopt: pods never complete
  double arrival_interval_seconds = 0;
  // Nodes' usage samples for load-aware plugins (sim/core/usage.h): --usage, the share of their
  // requests pods without a kUsageAnnotation use; --usage-interval, seconds between samples;
  // --usage-estimate-fraction, the share of their requests pods a sample cannot include are taken
  // to use. nullopt: sim::UsageOptions' defaults. Samples are taken when any is given, a pod carries
  // the annotation, or the configuration scores on usage.
  std::optional<double> usage_fraction;
  std::optional<double> usage_interval_seconds;
  std::optional<double> usage_estimate_fraction;
  // KubeSchedulerConfiguration percentageOfNodesToScore (not the extender's configuration); 0:
  // kube-scheduler's adaptive default.
  int32_t percentage_of_nodes_to_score = sim::SimulatorOptions{}.percentage_of_nodes_to_score;
  ScoreScale score_scale = ScoreScale::kSchedulerTotal;  // --rank-by
  // --extender: filter, prioritize and preempt go to a running kube-extender at this URL (kube-scheduler's
  // urlPrefix), which lists and watches the simulated cluster from --api-listen; "" runs in process.
  std::string extender_url;
  bool node_cache_capable = false;         // --node-cache-capable: NodeNames instead of full Nodes
  std::string api_listen = "127.0.0.1:0";  // --api-listen HOST:PORT (0: any free port)
  double extender_timeout_seconds = 60;    // --extender-timeout: how long a cycle waits for it
  // --preempt-verb: kube-scheduler's preemptVerb; "" sends no preempt call (preemption in process).
  std::string preempt_verb = "preempt";
  // --bind-verb: kube-scheduler's bindVerb; "" (the default, as a configuration without one) binds in
  // the simulator, as DefaultBinder.
  std::string bind_verb;
  // --http-timeout: the configuration's httpTimeout for every call to the extender.
  double http_timeout_seconds = 30;
  // --real-time: simulated time is the wall clock's and binds are answered asynchronously
  // (sim::CycleBackend::real_time), as kube-scheduler drives an extender; needs --extender.
  bool real_time = false;
  // --follow: mirror the live cluster of --kubeconfig into one simulation per --config, driven by the
  // wall clock, and compare their placements with production's (sim/follow/).
  bool follow = false;
  std::string listen = "127.0.0.1:10290";  // --listen HOST:PORT: the live page, /metrics, /healthz
  double duration_seconds = 0;             // --duration: stop after this long; 0: at SIGINT or SIGTERM
  bool help = false;
};

// --cluster (described by `cluster_help`), --kubeconfig and --context into `c`, for each command that
// reads a cluster (extender-sim, extender-sim capacity). Returns --kubeconfig's option.
CLI::Option* define_cluster_flags(CLI::App& app, SimCommand& c, const std::string& cluster_help);

// Throws std::invalid_argument naming the flag.
SimCommand parse_sim_options(int argc, char** argv);
std::string sim_usage();
// Every flag's long name, for the docs check (tests/support/doc_flags.h).
std::vector<std::string> sim_flag_names();

}  // namespace kext::simtool
