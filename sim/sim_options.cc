#include "sim/sim_options.h"

#include <CLI/CLI.hpp>
#include <map>
#include <stdexcept>
#include <string>

#include "common/cli.h"
#include "policy/version_choice.h"

namespace kext::simtool {

namespace {

// Simulated times are microseconds in an int64: a bound far inside it (~31 years).
constexpr double kMaxSeconds = 1e9;

// The scheduler profile an extender's configuration joins, and the extender's weight in it
// (sim/run.h load_sim_config).
void define_profile_flags(CLI::App& app, SimCommand& c) {
  cli::non_empty(app.add_option("--scheduler-config", c.scheduler_config_file,
                                "a KubeSchedulerConfiguration: the scheduler profile that an extender's "
                                "--config joins (default: kube-scheduler 1.26's default profile); with "
                                "--extender, its profile runs beside the extender at URL"))
      ->type_name("FILE");
  app.add_option("--extender-weight", c.extender_weight,
                 "the extender's weight: its prioritize reply (0..10) counts x 10 x this in the scheduler's "
                 "total (default: the weight of --scheduler-config's one extenders entry, else 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}))
      ->type_name("N");
}

// --extender and its companions (sim/remote_extender.h).
void define_extender_flags(CLI::App& app, SimCommand& c) {
  cli::non_empty(app.add_option("--extender", c.extender_url,
                                "send filter, prioritize and preempt to a running kube-extender at this URL "
                                "(kube-scheduler's urlPrefix) instead of running its algorithms in "
                                "process; it must list and watch the cluster from --api-listen"))
      ->type_name("URL");
  app.add_flag("--node-cache-capable", c.node_cache_capable,
               "with --extender: send NodeNames (nodeCacheCapable: true) instead of full Node objects");
  cli::non_empty(app.add_option("--api-listen", c.api_listen,
                                "with --extender: serve the simulated cluster's Kubernetes API (list and "
                                "watch of nodes, pods, PDBs) here, for kube-extender --api-server "
                                "http://HOST:PORT (port 0: any, printed on stderr)"))
      ->type_name("HOST:PORT");
  app.add_option("--preempt-verb", c.preempt_verb,
                 "with --extender: the scheduler configuration's preemptVerb; \"\" (none) keeps preemption's "
                 "choice in process, as kube-scheduler does for an extender without one")
      ->type_name("VERB");
  app.add_option("--bind-verb", c.bind_verb,
                 "with --extender: the scheduler configuration's bindVerb; binds go to the extender, which "
                 "holds gang members until their group is complete (needs kube-extender --enable-bind)")
      ->type_name("VERB");
  app.add_option("--extender-timeout", c.extender_timeout_seconds,
                 "with --extender: seconds a cycle waits for the extender to apply the cluster's changes "
                 "(the first: to start and list)")
      ->check(CLI::Range(0.001, kMaxSeconds))
      ->type_name("SECONDS");
  app.add_option("--http-timeout", c.http_timeout_seconds,
                 "with --extender: the scheduler configuration's httpTimeout, in seconds, for each call "
                 "(with --real-time a bind call past it is a bind error, as in kube-scheduler)")
      ->check(CLI::Range(0.001, kMaxSeconds))
      ->type_name("SECONDS");
  app.add_flag("--real-time", c.real_time,
               "with --extender: run on the wall clock as kube-scheduler does: queue backoff in real "
               "seconds, and each bind answered asynchronously while the next cycles run");
}

// --follow and its companions (sim/follow/follower.h). The flags that give the simulation its
// pods or its algorithms elsewhere make no sense with it and are refused.
void define_follow_flags(CLI::App& app, SimCommand& c, CLI::Option* kubeconfig) {
  CLI::Option* follow = app.add_flag(
      "--follow", c.follow,
      "follow the live cluster of --kubeconfig (GET only: list and watch) with one simulation per "
      "--config on the wall clock, comparing their placements with production's; serves --listen");
  follow->needs(kubeconfig);
  for (const char* name :
       {"--cluster", "--workload", "--record-dir", "--compare", "--extender", "--max-time", "--runtime",
        "--arrival-interval", "--usage", "--usage-interval", "--usage-estimate-fraction"}) {
    follow->excludes(app.get_option(name));
  }
  cli::non_empty(app.add_option("--listen", c.listen,
                                "with --follow: serve the live page at /, Prometheus metrics at /metrics and "
                                "/healthz here (port 0: any, printed on stderr)"))
      ->type_name("HOST:PORT")
      ->needs(follow);
  app.add_option("--duration", c.duration_seconds,
                 "with --follow: stop after this many seconds (0: at SIGINT or SIGTERM); --html and --log "
                 "are written then")
      ->check(CLI::Range(0.0, kMaxSeconds))
      ->type_name("SECONDS")
      ->needs(follow);
}

// The nodes' usage samples (sim/core/usage.h) the load-aware plugins read.
void define_usage_flags(CLI::App& app, SimCommand& c) {
  app.add_option("--usage", c.usage_fraction,
                 "the share of their requests pods use, unless their sim.kube-extender.io/usage "
                 "annotation says otherwise (default: 1, requests are what pods use)")
      ->check(CLI::Range(0.0, 1e6))
      ->type_name("FRACTION");
  app.add_option("--usage-interval", c.usage_interval_seconds,
                 "seconds between the nodes' usage samples the load-aware plugins read (default: 30)")
      ->check(CLI::Range(0.001, kMaxSeconds))
      ->type_name("SECONDS");
  app.add_option("--usage-estimate-fraction", c.usage_estimate_fraction,
                 "the share of their requests that pods started since a node's last sample are taken "
                 "to use (default: 1; 0 turns the lag protection off)")
      ->check(CLI::Range(0.0, 1e6))
      ->type_name("FRACTION");
}

// The one definition of extender-sim's flags, bound to `c`.
void define_flags(CLI::App& app, SimCommand& c) {
  cli::configure(app);
  CLI::Option* kubeconfig = define_cluster_flags(app, c,
                                                 "the cluster: what `kubectl get nodes,pods,pdb -A -o json` "
                                                 "prints; its pods without a node arrive at time 0");
  cli::non_empty(app.add_option("--record-dir", c.record_dir,
                                "pending pods from a kube-extender --record-dir recording: each pod of its "
                                "filter (else prioritize, preempt) requests once, arriving at its first "
                                "request's time after the recording's first"))
      ->type_name("DIR");
  cli::non_empty(
      app.add_option("--workload", c.workload_file,
                     "pods to schedule: a List or array of Pods, Deployments, ReplicaSets and Jobs"))
      ->type_name("FILE");
  CLI::Option* config = cli::non_empty(cli::repeatable(app.add_option(
      "--config", c.config_files,
      "a KubeSchedulerConfiguration (the scheduler's profile), or an extender's configuration "
      "(ExtenderConfiguration, legacy Policy) that joins the scheduler profile as kube-scheduler calls "
      "an extender (default: kube-scheduler's default profile alone; with --extender: the extender's "
      "configuration, default the embedded one); with --follow repeatable, each one a simulated policy")));
  config->type_name("FILE");
  define_profile_flags(app, c);
  cli::add_parsed(
      app, "--kubernetes-version",
      [&c](const std::string& v) { c.kubernetes_version = parse_version_flag(v); }, "", version_flag_help())
      ->type_name("VERSION");
  cli::non_empty(app.add_option("--log", c.log_file, "writes one JSON line per scheduling cycle"))
      ->type_name("FILE");
  cli::non_empty(app.add_option("--compare", c.compare_file,
                                "a second configuration (as --config) run on the same inputs and seed: two "
                                "summary columns and the pods placed differently (its log: --log's name "
                                "with .compare.jsonl)"))
      ->type_name("FILE");
  cli::non_empty(app.add_option("--html", c.html_file,
                                "writes a self-contained HTML report: the summary, pending pods over "
                                "time, each node's requested share (both runs with --compare)"))
      ->type_name("FILE");
  app.add_option("--seed", c.seed, "same seed, same run (selectHost's ties, preemption's offset)")
      ->type_name("S");
  app.add_option("--max-time", c.max_time_seconds, "stop at this simulated time, in seconds")
      ->check(CLI::Range(0.0, kMaxSeconds))
      ->type_name("SECONDS");
  app.add_option("--runtime", c.runtime_seconds,
                 "pods the simulation binds complete this many seconds later (default: never)")
      ->check(CLI::Range(0.0, kMaxSeconds))
      ->type_name("SECONDS");
  app.add_option("--arrival-interval", c.arrival_interval_seconds,
                 "seconds between successive workload pods (the first arrives at 0)")
      ->check(CLI::Range(0.0, kMaxSeconds))
      ->type_name("SECONDS");
  app.add_option("--percentage-of-nodes-to-score", c.percentage_of_nodes_to_score,
                 "kube-scheduler's percentageOfNodesToScore: the filter stops at this share of the nodes "
                 "feasible, at least 100 (0: its adaptive default, 50 % - nodes/125, at least 5 %)")
      ->check(CLI::Range(0, 100))
      ->type_name("PERCENT");
  const std::map<std::string, ScoreScale> scales{{"total", ScoreScale::kSchedulerTotal},
                                                 {"extender-reply", ScoreScale::kExtenderReply}};
  app.add_option("--rank-by", c.score_scale,
                 "what selectHost ranks nodes on: total (kube-scheduler's sum of weight x score on 0..100, "
                 "plus an --extender's reply x 10 x its weight) or extender-reply (the prioritize reply's "
                 "0..10 alone, as a scheduler whose only score is this extender sees it)")
      ->transform(CLI::CheckedTransformer(scales))
      ->type_name("total|extender-reply");
  define_usage_flags(app, c);
  define_extender_flags(app, c);
  define_follow_flags(app, c, kubeconfig);
}

}  // namespace

CLI::Option* define_cluster_flags(CLI::App& app, SimCommand& c, const std::string& cluster_help) {
  CLI::Option* cluster =
      cli::non_empty(app.add_option("--cluster", c.cluster_file, cluster_help))->type_name("FILE");
  CLI::Option* kubeconfig =
      cli::non_empty(app.add_option("--kubeconfig", c.kubeconfig,
                                    "instead of --cluster: the cluster listed once (GET only) from this "
                                    "kubeconfig's API server, as kube-extender --kubeconfig"))
          ->type_name("FILE")
          ->excludes(cluster);
  cli::non_empty(app.add_option("--context", c.kube_context,
                                "the kubeconfig context to use (default: its current-context)"))
      ->type_name("NAME")
      ->needs(kubeconfig);
  return kubeconfig;
}

namespace {

CLI::App make_app() {
  return CLI::App("extender-sim: simulates kube-scheduler's loop around the extender's algorithms",
                  "extender-sim");
}

}  // namespace

std::string sim_usage() {
  SimCommand c;
  CLI::App app = make_app();
  define_flags(app, c);
  return cli::help_text(app);
}

std::vector<std::string> sim_flag_names() {
  SimCommand c;
  CLI::App app = make_app();
  define_flags(app, c);
  return cli::flag_names(app);
}

SimCommand parse_sim_options(int argc, char** argv) {
  SimCommand c;
  CLI::App app = make_app();
  define_flags(app, c);
  if (!cli::parse(app, argc, argv)) {
    c.help = true;
    return c;
  }
  if (c.cluster_file.empty() && c.kubeconfig.empty())
    throw std::invalid_argument("the cluster: one of --cluster FILE and --kubeconfig FILE is required");
  if (!c.follow && c.config_files.size() > 1) {
    throw std::invalid_argument("--config: given " + std::to_string(c.config_files.size()) +
                                " times; several configurations are for --follow (else see --compare)");
  }
  if (c.real_time && c.extender_url.empty())
    throw std::invalid_argument(
        "--real-time needs --extender: only a running extender answers on the wall clock");
  if (!c.config_files.empty()) c.config_file = c.config_files.front();
  return c;
}

}  // namespace kext::simtool
