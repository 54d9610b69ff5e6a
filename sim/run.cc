#include "sim/run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <unordered_map>
#include <unordered_set>

#include "algorithms/gpu/device_fit.h"
#include "algorithms/namespaced_key.h"
#include "algorithms/plugin_args.h"
#include "algorithms/pod_requests.h"
#include "common/read_file.h"
#include "common/url_path.h"
#include "json/json.h"
#include "policy/config.h"
#include "sim/cluster_summary.h"
#include "sim/decision_log.h"
#include "sim/in_process_extender.h"
#include "sim/inputs.h"
#include "sim/live_input.h"
#include "sim/record_input.h"
#include "sim/remote_extender.h"

namespace kext::simtool {

namespace {

std::string read_input(const std::string& flag, const std::string& path) {
  std::string text;
  if (!read_whole_file(path, text)) throw InputError(flag + " " + path + ": cannot read the file");
  return text;
}

// Runs `decode` on the file's text; its DecodeError or ClusterError becomes an InputError naming the
// flag and the file.
template <typename F>
auto decode_file(const std::string& flag, const std::string& path, F decode) {
  const std::string text = read_input(flag, path);
  try {
    return decode(text);
  } catch (const DecodeError& e) {
    throw InputError(flag + " " + path + ": " + e.what());
  } catch (const sim::ClusterError& e) {
    throw InputError(flag + " " + path + ": " + e.what());
  }
}

sim::Lifecycle lifecycle_of(const PodTraits& traits, std::optional<sim::SimDuration> runtime) {
  sim::Lifecycle l;
  l.runtime = traits.runtime.has_value() ? traits.runtime : runtime;
  l.grace_period = traits.grace_period.value_or(sim::kDefaultGracePeriod);
  l.recreate_when_preempted = traits.controlled;
  l.usage = traits.usage;
  return l;
}

// The weight of the --extender URL's entry among a KubeSchedulerConfiguration's extenders (urlPrefix
// compared without trailing slashes), else the only entry's, else 1.
int64_t extender_weight(const std::vector<SchedulerExtender>& entries, const std::string& url) {
  for (const SchedulerExtender& e : entries) {
    if (without_trailing_slashes(e.url_prefix) == without_trailing_slashes(url)) return e.weight;
  }
  return entries.size() == 1 ? entries.front().weight : 1;
}

// One configuration file (or an embedded document, for "") loaded as kube-extender loads it.
struct LoadedConfig {
  std::string text;
  std::shared_ptr<const LoadedFile> loaded;
  std::string file;  // where the text came from ("" for the embedded document)
};

LoadedConfig load_config_file(std::string_view flag, const std::string& file, std::string_view embedded,
                              const VersionChoice& version) {
  LoadedConfig c;
  c.file = file;
  c.text = file.empty() ? std::string(embedded) : read_input(std::string(flag), file);
  try {
    c.loaded = std::make_shared<const LoadedFile>(load_scheduling_file(c.text, {}, version));
  } catch (const PolicyError& e) {
    throw InputError(std::string(flag) + " " + (file.empty() ? "(embedded)" : file) + ": " + e.what());
  }
  return c;
}

std::shared_ptr<const Engine> engine_of(const LoadedConfig& c) {
  return std::shared_ptr<const Engine>(c.loaded, &c.loaded->profile.engine);
}

// What the HTML report shows: the effective configuration, or the file's own text when no
// ExtenderConfiguration equals it (a legacy Policy with arguments only it has).
std::string effective_text(const LoadedConfig& c) {
  return c.loaded->effective_config.empty() ? c.text : c.loaded->effective_config;
}

// The scheduler profile an extender's configuration joins: --scheduler-config's, which must be a
// KubeSchedulerConfiguration, else kube-scheduler's default profile.
LoadedConfig load_scheduler_profile(const SimCommand& command, const VersionChoice& version) {
  const std::string& file = command.scheduler_config_file;
  LoadedConfig profile =
      load_config_file("--scheduler-config", file, default_scheduler_config_json(), version);
  if (!profile.loaded->scheduler_configuration) {
    const std::string kind = profile.loaded->notice.empty() ? "an ExtenderConfiguration" : "a legacy Policy";
    throw InputError("--scheduler-config " + file + ": " + kind +
                     ", not a KubeSchedulerConfiguration (apiVersion kubescheduler.config.k8s.io/v1); an "
                     "extender's configuration goes to --config");
  }
  return profile;
}

// Whether `engine` scores on what nodes use (scheduler-plugins pkg/trimaran's scores).
bool scores_usage(const Engine& engine) {
  return std::any_of(engine.scores().begin(), engine.scores().end(), [](const WeightedScore& s) {
    return s.plugin->name() == kTargetLoadPackingPlugin ||
           s.plugin->name() == kLoadVariationRiskBalancingPlugin;
  });
}

// The sampling a configuration's `usage:` section asks for; nullopt without one.
std::optional<sim::UsageOptions> usage_section(const LoadedConfig& c) {
  if (!c.loaded->usage) return std::nullopt;
  const UsageConfig& config = *c.loaded->usage;
  sim::UsageOptions u;
  u.enabled = true;
  u.interval = std::chrono::seconds(config.interval_seconds);
  u.window = static_cast<size_t>(
      std::max<int64_t>(1, config.window_seconds / std::max<int64_t>(1, config.interval_seconds)));
  u.estimate_fraction = config.estimate_fraction;
  return u;
}

// What decides the kube-scheduler minor besides the files (policy/version_choice.h): --kubernetes-version,
// and the live cluster's /version with --kubeconfig when there is no flag.
VersionChoice version_choice(const SimCommand& command) {
  VersionChoice choice{command.kubernetes_version, std::nullopt};
  if (command.kubeconfig.empty() || choice.flag) return choice;
  try {
    choice.server = ServerVersion{live_git_version(command.kubeconfig, command.kube_context), ""};
  } catch (const InputError& e) {
    choice.server = ServerVersion{"", e.what()};
  }
  return choice;
}

// The minor `c` runs, and why, for the summary and the operator.
void take_version(SimConfig& out, const LoadedConfig& c) {
  const VersionInForce& v = c.loaded->version;
  out.version = v.version;
  out.version_source = std::string(source_label(v.source));
  out.version_line = describe(v);
  out.version_warning = v.warning;
}

// The run's engine, preemption and shown configuration from `c`.
void take_profile(SimConfig& out, const LoadedConfig& c) {
  take_version(out, c);
  out.text = c.text;
  out.configuration = effective_text(c);
  out.engine = engine_of(c);
  out.preemption = c.loaded->profile.preemption.select;
  out.topology_levels = c.loaded->profile.topology_levels;
  out.usage = usage_section(c);
  out.scores_usage = scores_usage(*out.engine);
  out.gpu_sharing = c.loaded->profile.gpu_sharing;
}

// --extender-weight where no extender is weighed, `why`: an error for a run of its own; with
// --compare or --follow it weighs the runs that have an extender and this one ignores it.
void check_nothing_to_weigh(const SimCommand& command, std::string_view flag, const std::string& why) {
  if (!command.extender_weight || command.follow || !command.compare_file.empty() || flag == "--compare")
    return;
  throw InputError("--extender-weight " + std::to_string(*command.extender_weight) +
                   ": this run has no extender to weigh (" + why + ")");
}

// With --extender (the running extender's configuration is its own): `file` is the extender's
// configuration, as kube-extender --config reads it, for the nominated-pods pass and preemption's
// dry runs; a KubeSchedulerConfiguration there, or --scheduler-config, is the scheduler's profile,
// whose plugins filter before the extender and score beside it.
void load_beside_remote(const SimCommand& command, const std::string& file, std::string_view flag,
                        const VersionChoice& version, SimConfig& out) {
  if (!command.scheduler_config_file.empty() && !file.empty()) {
    throw InputError(std::string(flag) + " " + file + ": with --extender and --scheduler-config " +
                     command.scheduler_config_file +
                     " the simulation runs that scheduler profile and the running extender its own "
                     "configuration; " +
                     std::string(flag) + " has no part (give it to kube-extender --config)");
  }
  const LoadedConfig c = command.scheduler_config_file.empty()
                             ? load_config_file(flag, file, default_config_json(), version)
                             : load_scheduler_profile(command, version);
  take_profile(out, c);
  out.scoring.in_tree = c.loaded->scheduler_configuration;
  out.scoring.extender_weight =
      command.extender_weight.value_or(extender_weight(c.loaded->extenders, command.extender_url));
}

}  // namespace

sim::SimDuration seconds_to_sim(double seconds) {
  return std::chrono::duration_cast<sim::SimDuration>(
      std::chrono::duration<double>(std::round(seconds * 1e6) / 1e6));
}

namespace {

// A loaded configuration as a run's: a KubeSchedulerConfiguration's profile alone, or an extender's
// configuration beside the scheduler profile (in process, as kube-scheduler calls an extender).
SimConfig sim_config_of(const SimCommand& command, const LoadedConfig& own, std::string_view flag) {
  SimConfig out;
  out.file = own.file;
  out.scheduler_config_file = command.scheduler_config_file;
  out.extender_weight_flag = command.extender_weight;
  out.scoring.scale = command.score_scale;
  const std::string& file = own.file;
  if (own.loaded->scheduler_configuration) {
    if (!command.scheduler_config_file.empty()) {
      throw InputError(std::string(flag) + " " + file + " is a KubeSchedulerConfiguration, and so is " +
                       "--scheduler-config " + command.scheduler_config_file +
                       ": a run has one scheduler profile (give an extender's configuration to --config to "
                       "join --scheduler-config's profile)");
    }
    take_profile(out, own);  // that scheduler's profile, as kube-scheduler given this file runs it
    check_nothing_to_weigh(command, flag,
                           std::string(flag) + " " + file + " is a KubeSchedulerConfiguration");
    return out;
  }
  // An extender's configuration: beside the scheduler profile, as kube-scheduler calls an extender. The
  // scheduler runs the minor the extender's configuration chose (its kubernetesVersion, say): one
  // cluster, one kube-scheduler.
  const LoadedConfig profile =
      load_scheduler_profile(command, VersionChoice{own.loaded->version.version, {}});
  take_profile(out, profile);
  take_version(out, own);
  out.text = own.text;
  out.configuration = effective_text(own);
  out.extender = std::make_shared<InProcessExtender>(engine_of(own));
  out.topology_levels = own.loaded->profile.topology_levels;
  out.usage = usage_section(own);
  out.scores_usage = out.scores_usage || scores_usage(*engine_of(own));
  if (own.loaded->profile.gpu_sharing) out.gpu_sharing = own.loaded->profile.gpu_sharing;
  out.scoring.in_tree = true;
  const std::vector<SchedulerExtender>& entries = profile.loaded->extenders;
  out.scoring.extender_weight =
      command.extender_weight.value_or(entries.size() == 1 ? entries.front().weight : 1);
  return out;
}

}  // namespace

SimConfig load_sim_config(const SimCommand& command, const std::string& file, std::string_view flag) {
  SimConfig out;
  out.file = file;
  out.scheduler_config_file = command.scheduler_config_file;
  out.extender_weight_flag = command.extender_weight;
  out.scoring.scale = command.score_scale;
  const VersionChoice version = version_choice(command);
  if (!command.extender_url.empty()) {
    load_beside_remote(command, file, flag, version, out);
    return out;
  }
  if (file.empty()) {
    // kube-scheduler's default profile, or --scheduler-config's, with no extender.
    take_profile(out, load_scheduler_profile(command, version));
    check_nothing_to_weigh(command, flag, "no " + std::string(flag) + " runs the scheduler profile alone");
    return out;
  }
  return sim_config_of(command, load_config_file(flag, file, {}, version), flag);
}

SimConfig load_sim_config(const std::string& file, std::string_view flag) {
  return load_sim_config(SimCommand{}, file, flag);
}

SimConfig sim_config_of_text(const std::string& text, std::string_view name, KubeVersion version) {
  LoadedConfig own;
  own.text = text;
  own.file = std::string(name);
  try {
    own.loaded =
        std::make_shared<const LoadedFile>(load_scheduling_file(text, {}, VersionChoice{version, {}}));
  } catch (const PolicyError& e) {
    throw InputError(std::string(name) + ": " + e.what());
  }
  SimCommand command;
  command.kubernetes_version = version;
  return sim_config_of(command, own, name);
}

void apply(const SimConfig& config, sim::SimulatorOptions& options) {
  options.preemption = config.preemption;
  options.backend = config.extender.get();
  options.scoring = config.scoring;
  options.topology_levels = config.topology_levels;
}

namespace {

// The files one run reads: --cluster (or --kubeconfig), --record-dir and --workload. The workload's
// pods have their priorities as the Priority admission plugin sets them, from either file's classes;
// a recorded pod the cluster has already (running or pending: a snapshot taken after the recording)
// is the cluster's, and left out of `recorded`.
struct RunInputs {
  ClusterInput cluster;
  std::vector<RecordedPod> recorded;
  WorkloadInput workload;
};

RunInputs read_inputs(const SimCommand& command) {
  RunInputs in{read_cluster(command), {}, {}};  // --cluster or --kubeconfig
  if (!command.record_dir.empty()) in.recorded = read_recording(command.record_dir);
  if (!command.workload_file.empty())
    in.workload = decode_file("--workload", command.workload_file, decode_workload);
  std::vector<PriorityClass> classes = in.cluster.priority_classes;
  classes.insert(classes.end(), in.workload.priority_classes.begin(), in.workload.priority_classes.end());
  try {
    resolve_priorities(in.workload.pods, classes);
  } catch (const DecodeError& e) {
    throw InputError("--workload " + command.workload_file + ": " + e.what());
  }
  std::unordered_set<std::string> cluster_uids;
  for (const auto& [uid, traits] : in.cluster.running) cluster_uids.insert(uid);
  for (const auto& p : in.cluster.pending) cluster_uids.insert(p.pod.uid);
  std::erase_if(in.recorded, [&](const RecordedPod& r) { return cluster_uids.contains(r.pod.pod.uid); });
  return in;
}

sim::SimulatorOptions simulator_options(const SimCommand& command, const SimConfig& loaded,
                                        int64_t epoch_unix_seconds, bool logged) {
  sim::SimulatorOptions options;
  options.seed = command.seed;
  options.percentage_of_nodes_to_score = command.percentage_of_nodes_to_score;
  apply(loaded, options);
  options.epoch_unix_seconds = epoch_unix_seconds;
  options.max_time = seconds_to_sim(command.max_time_seconds);
  options.record_moves = logged;  // only the log shows them
  return options;
}

// Whether the run samples usage (SimCommand::usage_fraction), and how: the configuration's `usage:`
// section, then the flags.
sim::UsageOptions usage_options(const SimCommand& command, const RunInputs& in, const SimConfig& config) {
  sim::UsageOptions u = config.usage.value_or(sim::UsageOptions{});
  u.enabled = u.enabled || config.scores_usage;
  if (command.usage_fraction) u.default_fraction = *command.usage_fraction;
  if (command.usage_interval_seconds) u.interval = seconds_to_sim(*command.usage_interval_seconds);
  if (command.usage_estimate_fraction) u.estimate_fraction = *command.usage_estimate_fraction;
  u.enabled = u.enabled || command.usage_fraction || command.usage_interval_seconds ||
              command.usage_estimate_fraction;
  for (const auto& [uid, traits] : in.cluster.running) u.enabled = u.enabled || traits.usage != nullptr;
  for (const auto* pods : {&in.cluster.pending, &in.workload.pods})
    for (const InputPod& p : *pods) u.enabled = u.enabled || p.traits.usage != nullptr;
  for (const RecordedPod& r : in.recorded) u.enabled = u.enabled || r.pod.traits.usage != nullptr;
  return u;
}

// The requests of the pods the run is given to place, for typical_pod.
std::vector<Resources> requests_to_place(const RunInputs& in) {
  std::vector<Resources> requests;
  for (const auto* pods : {&in.cluster.pending, &in.workload.pods})
    for (const InputPod& p : *pods) requests.push_back(compute_pod_requests(p.pod, false));
  for (const RecordedPod& r : in.recorded) requests.push_back(compute_pod_requests(r.pod.pod, false));
  return requests;
}

// The pods the run is given to place, in the order given, for the groups' shapes (plan_topology_fit).
std::vector<const Pod*> pods_to_place(const RunInputs& in) {
  std::vector<const Pod*> pods;
  for (const InputPod& p : in.cluster.pending) pods.push_back(&p.pod);
  for (const RecordedPod& r : in.recorded) pods.push_back(&r.pod.pod);
  for (const InputPod& p : in.workload.pods) pods.push_back(&p.pod);
  return pods;
}

// Both files' PodGroups, the workload's replacing the cluster's of the same name.
gang::GroupMap pod_groups_of(RunInputs& in) {
  gang::GroupMap groups = std::move(in.cluster.pod_groups);
  for (auto& [key, g] : in.workload.pod_groups) groups.insert_or_assign(key, std::move(g));
  return groups;
}

// Which minor the run reproduces and why, on stderr (the summary's kube-scheduler row has the minor):
// after the inputs are read, so that an input error stays the only line.
void report_version(const SimConfig& config, std::string_view config_flag) {
  const std::string run = config_flag == "--config" ? "" : std::string(config_flag) + ": ";
  if (!config.version_warning.empty())
    std::clog << "extender-sim: " << run << "WARNING: " << config.version_warning << "\n";
  std::clog << "extender-sim: " << run << config.version_line << "\n";
}

// --extender: filter and prioritize over HTTP to a kube-extender watching the API served here, whose
// /version says the minor the run reproduces (an extender that reads it runs the same); null without it.
std::unique_ptr<ExtenderLink> connect_extender(const SimCommand& command, int64_t epoch_unix_seconds,
                                               NodeImagesJson node_images, KubeVersion version) {
  try {
    return make_extender_link(command, epoch_unix_seconds, &std::clog, std::move(node_images),
                              "v" + version.str() + ".0");
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
}

// What selects pods, from the cluster and the workload, onto the cluster: PodTopologySpread's default
// constraints and InterPodAffinity's namespaceSelector read them.
void hand_selectors(RunInputs& in) {
  auto append = [](std::vector<WorkloadSelector>& to, std::vector<WorkloadSelector>& from) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    return std::move(to);
  };
  ClusterInput& c = in.cluster;
  c.cluster.set_namespace_labels(std::move(c.namespace_labels));
  c.cluster.set_workloads(append(c.services, in.workload.services), std::move(c.replication_controllers),
                          append(c.replica_sets, in.workload.replica_sets),
                          append(c.stateful_sets, in.workload.stateful_sets));
}

// The run's PodGroups (pod_groups_of), to the simulator's own gang scheduling; with --extender the
// extender's decides: its filter admits groups from the PodGroups served to it, and its bindVerb holds
// their members.
void hand_pod_groups(const SimCommand& command, gang::GroupMap groups, ExtenderLink* extender,
                     sim::Simulator& simulator) {
  if (extender == nullptr || groups.empty()) {
    simulator.set_pod_groups(std::move(groups));
    return;
  }
  if (command.bind_verb.empty()) {
    throw InputError(
        "--extender with PodGroups needs --bind-verb: the extender holds a gang's members at "
        "its bind (docs/gang-scheduling.md)");
  }
  extender->backend->serve_pod_groups(groups);
}

// Pods already running keep running (their runtime is unknown), until their deletionTimestamp when
// they have one. Events after max_time never happen: times past it are clamped to `after_end`, just
// after it, so that no input (a deletionTimestamp in year 9999, a long interval times many pods)
// overflows the clock.
void keep_running(const RunInputs& in, sim::SimTime after_end, sim::Simulator& simulator, SimResult& result) {
  const int64_t after_end_seconds = std::chrono::ceil<std::chrono::seconds>(after_end).count();
  for (const auto& [uid, traits] : in.cluster.running) {
    if (!traits.owner.empty()) {
      if (auto pod = simulator.cluster().pod(uid))
        result.owners[namespaced_key(pod->namespace_, pod->name)] = traits.owner;
    }
    simulator.set_lifecycle(uid, lifecycle_of(traits, std::nullopt));
    if (traits.deletion_unix_seconds) {
      const int64_t in_seconds = std::clamp<int64_t>(
          *traits.deletion_unix_seconds - in.cluster.epoch_unix_seconds, 0, after_end_seconds);
      simulator.delete_pod(uid, sim::SimTime{std::chrono::seconds(in_seconds)});
    }
  }
}

// The pods to place arrive: the cluster's pending ones at 0, the recording's at their requests'
// times (else spaced as the workload's), the workload's --arrival-interval apart from 0. Pods
// arriving at one instant queue in the order added: the cluster's, the recording's, the workload's.
// Those the simulation binds complete after their kRuntimeAnnotation, else --runtime.
void add_arrivals(const SimCommand& command, RunInputs& in, sim::SimTime after_end, sim::Simulator& simulator,
                  SimResult& result) {
  std::optional<sim::SimDuration> runtime;
  if (command.runtime_seconds) runtime = seconds_to_sim(*command.runtime_seconds);
  auto add = [&](const std::string& source, InputPod& p, sim::SimTime at) {
    if (!p.traits.owner.empty()) result.owners[namespaced_key(p.pod.namespace_, p.pod.name)] = p.traits.owner;
    try {
      simulator.add_pending(std::move(p.pod), at, lifecycle_of(p.traits, runtime));
    } catch (const sim::ClusterError& e) {
      throw InputError(source + ": " + e.what());  // it names the pod
    }
  };
  const sim::SimDuration interval = seconds_to_sim(command.arrival_interval_seconds);
  // The i-th of pods --arrival-interval apart, the first at 0.
  auto spaced = [&](size_t i) {
    const auto k = static_cast<int64_t>(i);
    const bool in_time = interval.count() == 0 || k <= after_end.count() / interval.count();
    return in_time ? sim::SimTime{0} + interval * k : after_end;
  };
  for (auto& p : in.cluster.pending) add(cluster_source(command), p, sim::SimTime{0});
  size_t untimed = 0;
  for (auto& r : in.recorded) {
    const sim::SimTime at = r.offset ? std::min(sim::SimTime{0} + *r.offset, after_end) : spaced(untimed++);
    add("--record-dir " + command.record_dir + ": " + r.source, r.pod, at);
  }
  for (size_t i = 0; i < in.workload.pods.size(); ++i)
    add("--workload " + command.workload_file, in.workload.pods[i], spaced(i));
}

// Each pod's last failed cycle's reasons, by UID (erased when it binds).
using LastFailures = std::unordered_map<std::string, std::map<std::string, size_t>>;

// What the result keeps of one decision: where each pod was placed, its last failure, the evictions.
void record_decision(const sim::CycleRecord& d, const sim::SimCluster& cluster, SimResult& result,
                     LastFailures& last_failure) {
  std::string& placed = result.placements[d.pod];
  if (d.outcome == sim::Outcome::kScheduled) {
    placed = d.node;
    last_failure.erase(d.uid);
    // The members of its group that waited at bind, bound with it.
    for (const std::string& uid : d.released) {
      if (auto pod = cluster.pod(uid))
        result.placements[namespaced_key(pod->namespace_, pod->name)] = pod->node_name;
      last_failure.erase(uid);
    }
  } else if (d.outcome == sim::Outcome::kWaiting) {
    // Assumed, waiting at bind for its group: bound with its last member, or queued at its timeout.
  } else if (d.outcome == sim::Outcome::kBindFailed) {
    last_failure[d.uid] = {{d.message, 1}};
  } else if (d.outcome == sim::Outcome::kPreempted) {
    last_failure[d.uid] = {{std::string(kNominated), 1}};
    Eviction& e = result.evictions.emplace_back(Eviction{d.at, d.pod, d.priority, d.node, {}});
    for (size_t i = 0; i < d.victim_names.size(); ++i) {
      e.victims.push_back({d.victim_names[i], i < d.victim_priorities.size() ? d.victim_priorities[i] : 0});
    }
  } else {
    last_failure[d.uid] = d.reasons;
  }
}

// SimResult::pending_by_reason: the pods still queued, by their last failure's reasons; the others
// pending at the end never had a cycle.
void count_pending_reasons(const LastFailures& last_failure, const sim::SchedulingQueue& queue,
                           SimResult& result) {
  size_t explained = 0;
  for (const auto& [uid, reasons] : last_failure) {
    if (queue.where(uid) == sim::QueueName::kNone) continue;  // deleted or gone
    ++explained;
    for (const auto& [reason, nodes] : reasons) ++result.pending_by_reason[reason];
  }
  if (result.summary.pending_at_end > explained) {
    result.pending_by_reason[std::string(kNotTried)] = result.summary.pending_at_end - explained;
  }
}

}  // namespace

SimResult run_sim(const SimCommand& command, std::ostream* log, std::string_view config_flag) {
  const SimConfig loaded = load_sim_config(command, command.config_file, config_flag);
  RunInputs in = read_inputs(command);
  sim::SimulatorOptions options =
      simulator_options(command, loaded, in.cluster.epoch_unix_seconds, log != nullptr);
  options.usage = usage_options(command, in, loaded);
  SimResult result;
  result.configuration = loaded.configuration;
  result.kubernetes_version = loaded.version.str();
  report_version(loaded, config_flag);
  result.typical_pod = typical_pod(requests_to_place(in));
  const std::unique_ptr<ExtenderLink> extender = connect_extender(
      command, options.epoch_unix_seconds, std::move(in.cluster.node_images), loaded.version);
  // The scoring (in_tree, the weight) for it came with the configuration (load_sim_config).
  if (extender) options.backend = extender->backend.get();
  hand_selectors(in);
  in.cluster.cluster.set_gpu_sharing(loaded.gpu_sharing);
  sim::Simulator simulator(std::move(in.cluster.cluster), *loaded.engine, options);
  gang::GroupMap groups = pod_groups_of(in);
  result.topology_fit = plan_topology_fit(simulator.topology_levels(), groups, pods_to_place(in));
  hand_pod_groups(command, std::move(groups), extender.get(), simulator);
  const sim::SimTime after_end = sim::SimTime{0} + options.max_time + sim::SimDuration(1);
  keep_running(in, after_end, simulator, result);
  result.topology_fit.start = fit_shapes(result.topology_fit, simulator.cluster().nodes());
  add_arrivals(command, in, after_end, simulator, result);

  LastFailures last_failure;
  result.summary = simulator.run([&](const sim::CycleRecord& d) {
    if (log != nullptr) *log << decision_json(d) << '\n';
    record_decision(d, simulator.cluster(), result, last_failure);
  });
  result.use = cluster_use(simulator.cluster());
  result.topology_fit.end = fit_shapes(result.topology_fit, simulator.cluster().nodes());
  count_pending_reasons(last_failure, simulator.queue(), result);
  return result;
}

std::string owner_of(const SimResult& result, const std::string& pod) {
  std::string name = pod;
  for (;;) {
    if (auto it = result.owners.find(name); it != result.owners.end()) return it->second;
    // A replacement is "<original>-r<n>".
    const auto dash = name.rfind("-r");
    if (dash == std::string::npos || dash + 2 == name.size() ||
        !std::all_of(name.begin() + static_cast<std::ptrdiff_t>(dash) + 2, name.end(),
                     [](char c) { return c >= '0' && c <= '9'; }))
      return {};
    name.resize(dash);
  }
}

void GpuUse::add(const GpuUse& o) {
  cards += o.cards;
  cards_idle += o.cards_idle;
  memory_allocated += o.memory_allocated;
  memory += o.memory;
  largest_free_share = std::max(largest_free_share, o.largest_free_share);
}

namespace {

// A node's cards as GPUShare counts them (gpu::node_usage over its pods' shares).
GpuUse gpu_use(const NodeInfo& n) {
  GpuUse out;
  if (!n.node->gpus) return out;
  for (const gpu::DeviceUsage& u : gpu::node_usage(*n.node->gpus, n.pods)) {
    const gpu::Device& d = *u.device;
    ++out.cards;
    out.memory += d.memory;
    out.memory_allocated += u.used_memory;
    if (!d.health) continue;
    if (u.used == 0) ++out.cards_idle;
    if (u.used < d.count)
      out.largest_free_share = std::max<int64_t>(out.largest_free_share, d.memory - u.used_memory);
  }
  return out;
}

}  // namespace

ClusterUse cluster_use(const sim::SimCluster& cluster) {
  ClusterUse use;
  for (const NodeInfo* n : cluster.nodes()) {
    ++use.nodes;
    if (!n->pods.empty()) ++use.nodes_used;
    use.milli_cpu_requested += n->requested.milli_cpu;
    use.milli_cpu_allocatable += n->node->allocatable.milli_cpu;
    use.memory_requested += n->requested.memory;
    use.memory_allocatable += n->node->allocatable.memory;
    use.per_node.push_back(NodeUse{n->name(), n->requested.milli_cpu, n->node->allocatable.milli_cpu,
                                   n->requested.memory, n->node->allocatable.memory,
                                   static_cast<int64_t>(n->pods.size()), n->node->allocatable.pods,
                                   gpu_use(*n)});
    use.gpu.add(use.per_node.back().gpu);
  }
  return use;
}

std::vector<PlacementDiff> placement_diff(const SimResult& a, const SimResult& b) {
  auto node_or_pending = [](const std::string& node) {
    return node.empty() ? std::string(kNotPlaced) : node;
  };
  std::vector<PlacementDiff> out;
  auto ia = a.placements.begin();
  auto ib = b.placements.begin();
  // A merge of the two sorted maps: each pod once, in name order.
  while (ia != a.placements.end() || ib != b.placements.end()) {
    PlacementDiff d;
    if (ib == b.placements.end() || (ia != a.placements.end() && ia->first < ib->first)) {
      d = {ia->first, node_or_pending(ia->second), std::string(kNotPlaced)};
      ++ia;
    } else if (ia == a.placements.end() || ib->first < ia->first) {
      d = {ib->first, std::string(kNotPlaced), node_or_pending(ib->second)};
      ++ib;
    } else {
      d = {ia->first, node_or_pending(ia->second), node_or_pending(ib->second)};
      ++ia;
      ++ib;
    }
    if (d.a != d.b) out.push_back(std::move(d));
  }
  return out;
}

std::string format_placement_diff(const std::vector<PlacementDiff>& diffs, const std::string& a_name,
                                  const std::string& b_name) {
  std::string out = "placed differently: " + std::to_string(diffs.size()) + " pods\n";
  if (diffs.empty()) return out;
  size_t w0 = 3, w1 = a_name.size();
  for (const auto& d : diffs) {
    w0 = std::max(w0, d.pod.size());
    w1 = std::max(w1, d.a.size());
  }
  auto line = [&](const std::string& pod, const std::string& a, const std::string& b) {
    return "  " + pod + std::string(w0 - pod.size() + 2, ' ') + a + std::string(w1 - a.size() + 2, ' ') + b +
           "\n";
  };
  out += line("pod", a_name, b_name);
  for (const auto& d : diffs) out += line(d.pod, d.a, d.b);
  return out;
}

std::string compare_log_file(const std::string& log_file) {
  constexpr std::string_view kExt = ".jsonl";
  if (log_file.size() > kExt.size() && log_file.ends_with(kExt))
    return log_file.substr(0, log_file.size() - kExt.size()) + ".compare.jsonl";
  return log_file + ".compare.jsonl";
}

SimCommand compare_command(const SimCommand& command) {
  SimCommand c = command;
  c.config_file = command.compare_file;
  c.compare_file.clear();
  return c;
}

std::string format_pending_reasons(const std::map<std::string, size_t>& pending_by_reason) {
  if (pending_by_reason.empty()) return {};
  std::vector<std::pair<std::string, size_t>> rows(pending_by_reason.begin(), pending_by_reason.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  size_t width = 0;
  for (const auto& [reason, pods] : rows) width = std::max(width, reason.size());
  std::string out = "pending by reason\n";
  for (const auto& [reason, pods] : rows) {
    const std::string count = std::to_string(pods);
    out += "  " + reason + std::string(width - reason.size() + 2, ' ') +
           std::string(count.size() < 6 ? 6 - count.size() : 0, ' ') + count + "\n";
  }
  return out;
}

}  // namespace kext::simtool
