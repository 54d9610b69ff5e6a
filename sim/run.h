#pragma once
// extender-sim's run: reads the inputs a SimCommand names, runs the simulator, writes the decision log.
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/simulator.h"
#include "sim/sim_options.h"
#include "sim/topology_fit.h"

namespace kext::simtool {

// Bad input (a file that cannot be read or does not decode, a configuration that does not load):
// the message names the flag, the file and the field. extender-sim exits 2 on it.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One node at the end of a run: what its pods request of its allocatable.
// The GPUs HAMi's device plugin registered on nodes (algorithms/gpu), with what the pods hold of them.
struct GpuUse {
  int64_t cards = 0;
  int64_t cards_idle = 0;        // healthy cards no pod holds: what a pod taking whole cards can have
  int64_t memory_allocated = 0;  // MiB
  int64_t memory = 0;            // MiB, every card's
  // The most memory free on one healthy card with a pod slot left: the largest one-card share that still
  // fits. 0 when no card has a slot left.
  int64_t largest_free_share = 0;
  void add(const GpuUse& o);
};

struct NodeUse {
  std::string name;
  int64_t milli_cpu_requested = 0;
  int64_t milli_cpu_allocatable = 0;
  int64_t memory_requested = 0;
  int64_t memory_allocatable = 0;
  int64_t pods = 0;
  int64_t allowed_pods = 0;  // allocatable pods
  GpuUse gpu;
};

// The cluster at the end of a run: how full it is.
struct ClusterUse {
  size_t nodes = 0;
  size_t nodes_used = 0;  // with at least one pod
  int64_t milli_cpu_requested = 0;
  int64_t milli_cpu_allocatable = 0;
  int64_t memory_requested = 0;
  int64_t memory_allocatable = 0;
  std::vector<NodeUse> per_node;  // in the cluster's node order
  GpuUse gpu;                     // no cards when no node registered any
};

ClusterUse cluster_use(const sim::SimCluster& cluster);

// A pod's CPU and memory requests (cluster_summary.h typical_pod).
struct PodShape {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  bool operator==(const PodShape&) const = default;
};

// A victim of a preemption: namespace/name and priority.
struct EvictedPod {
  std::string pod;
  int32_t priority = 0;
  bool operator==(const EvictedPod&) const = default;
};

// One cycle that preempted: the preemptor, where it was nominated, and the pods it evicted.
struct Eviction {
  sim::SimTime at{0};
  std::string preemptor;  // namespace/name
  int32_t priority = 0;
  std::string node;
  std::vector<EvictedPod> victims;  // most important first
};

struct SimResult {
  sim::RunSummary summary;
  ClusterUse use;
  // The pods still pending at the end, by each reason of their last failed cycle (a pod counts once
  // for each of its reasons, as kube-scheduler's FailedScheduling event lists them); pods that never
  // had a cycle under kNotTried, pods whose last cycle preempted under kNominated.
  std::map<std::string, size_t> pending_by_reason;
  // Every pod that had a cycle (namespace/name) -> the node it was bound to last, "" if it never
  // bound (--compare's "placed differently").
  std::map<std::string, std::string> placements;
  // The median requests of the pods the run was given to place (pending in --cluster, --workload):
  // what fragmentation asks room for.
  std::optional<PodShape> typical_pod;
  // Every cycle that preempted, in order (a pod two preemptors chose is under both; the summary's
  // victims counts it once).
  std::vector<Eviction> evictions;
  // namespace/name -> "Kind/name" of its controller, for the input pods that have one (a replacement
  // "<name>-r<n>" is its original's: owner_of).
  std::map<std::string, std::string> owners;
  // What ran: the configuration as kube-extender --write-config writes it, or the file's own text when
  // no ExtenderConfiguration equals it (a legacy Policy with arguments only it has).
  std::string configuration;
  // The kube-scheduler minor the run reproduced ("1.31").
  std::string kubernetes_version;
  // With PodGroups and topology levels: how many domains of each level take each shape of group whole,
  // at the start (the cluster's running pods) and at the end.
  TopologyFit topology_fit;
};

// The controller ("Kind/name") of a pod of the run, looking through replacements' "-r<n>" suffixes;
// "" for none.
std::string owner_of(const SimResult& result, const std::string& pod);

// A pod placed differently by two runs: the node of each, or kNotPlaced.
struct PlacementDiff {
  std::string pod;
  std::string a;
  std::string b;
  bool operator==(const PlacementDiff&) const = default;
};

inline constexpr std::string_view kNotPlaced = "pending";

// The pods (of either run) whose placements differ, by pod name; a pod missing from a run's
// placements never bound there.
std::vector<PlacementDiff> placement_diff(const SimResult& a, const SimResult& b);

// "placed differently: N pods" and one aligned line per pod (pod, node in a, node in b) under a
// header naming the runs.
std::string format_placement_diff(const std::vector<PlacementDiff>& diffs, const std::string& a_name,
                                  const std::string& b_name);

// Where --compare's run writes its log beside --log's: "x.jsonl" -> "x.compare.jsonl", any other
// name gets ".compare.jsonl" appended.
std::string compare_log_file(const std::string& log_file);

// The command of --compare's run: the same inputs, flags and seed with --compare's configuration.
SimCommand compare_command(const SimCommand& command);

inline constexpr std::string_view kNotTried = "(no cycle yet)";
// A pod whose last cycle preempted: nominated, waiting for its victims to go.
inline constexpr std::string_view kNominated = "(nominated, victims terminating)";

// What one run simulates, from --config (sim/sim_options.h) and the flags around it:
//  - a KubeSchedulerConfiguration: that scheduler's profile, alone;
//  - an extender's configuration (ExtenderConfiguration, legacy Policy): the scheduler profile
//    (--scheduler-config's, else kube-scheduler's default) with this extender beside it, in process
//    (InProcessExtender), as kube-scheduler calls an extender;
//  - none: kube-scheduler's default profile (or --scheduler-config's), alone;
//  - with --extender: today's meaning, the running extender's configuration (default the embedded
//    one), whose engine runs the nominated-pods pass and preemption's dry runs; a
//    KubeSchedulerConfiguration's (or --scheduler-config's) profile runs beside the extender.
// Each configuration is loaded as kube-extender loads it (policy/config.h load_scheduling_file).
struct SimConfig {
  std::string file;           // --config's file; "" for the default
  std::string text;           // that file's text (the default's)
  std::string configuration;  // SimResult::configuration's
  // The cycle's engine: the scheduler profile's plugins, or with --extender and no profile the
  // extender's configuration. Keeps the whole loaded profile alive.
  std::shared_ptr<const Engine> engine;
  preemption::Options preemption;  // DefaultPreemption's, from the same configuration
  // Gang scheduling's topology levels: the extender configuration's gang.topologyLevels (a
  // KubeSchedulerConfiguration has none).
  std::vector<std::string> topology_levels;
  // The extender running in process beside the profile (nullptr: none, or --extender's, which the run
  // connects itself), and how the totals add up (in_tree, the extender's weight, --rank-by).
  std::shared_ptr<sim::CycleBackend> extender;
  sim::Scoring scoring;
  // The sampling an ExtenderConfiguration's `usage:` section asks for (as kube-extender reads it: its
  // interval, its window in samples, its estimate fraction), and whether any of the configuration's
  // engines scores on usage (TargetLoadPacking, LoadVariationRiskBalancing): either makes the run
  // sample the nodes' usage.
  std::optional<sim::UsageOptions> usage;
  bool scores_usage = false;
  // GPUShare's sharing configuration, from the configuration whose profile has it (the extender's when
  // one runs in process): a simulated bind then gives a pod its cards (SimCluster::set_gpu_sharing).
  std::optional<gpu::SharingConfig> gpu_sharing;
  // The kube-scheduler minor the plugins and preemption reproduce (the extender's configuration decides
  // for the profile it joins), where it came from (source_label), the line that says both
  // (policy/version_choice.h describe), and a warning for the operator (a live cluster's minor outside
  // the supported range, its /version that failed).
  KubeVersion version;
  std::string version_source;
  std::string version_line;
  std::string version_warning;
  // The flags it was loaded with, so that a caller holding a command can tell (follow_options).
  std::string scheduler_config_file;
  std::optional<int64_t> extender_weight_flag;
};

// `file` ("" for the default) as `command` gives it meaning (--extender, --scheduler-config,
// --extender-weight, --rank-by); throws InputError "<flag> FILE: ..." naming the flag and the file,
// also for combinations that have no meaning (two scheduler profiles, a --scheduler-config that is
// no KubeSchedulerConfiguration, --extender-weight with no extender to weigh).
SimConfig load_sim_config(const SimCommand& command, const std::string& file,
                          std::string_view flag = "--config");
// The same with no other flag: in process, kube-scheduler's default profile.
SimConfig load_sim_config(const std::string& file, std::string_view flag = "--config");
// A running kube-extender's configuration `text` (`name` says where it came from, for errors) as a run
// of kube-scheduler's default profile of `version` with this extender beside it in process (or, for a
// KubeSchedulerConfiguration, its own profile): what its capacity endpoint answers under.
SimConfig sim_config_of_text(const std::string& text, std::string_view name, KubeVersion version);

// What the simulator's cycles take from a configuration: preemption's options, the in-process
// extender, the scoring and the topology levels. run_sim, --compare's run and --follow's follow_options all
// go through it.
void apply(const SimConfig& config, sim::SimulatorOptions& options);

// Loads the configuration as kube-extender does (policy/config.h load_scheduling_file; the embedded
// default without --config), the cluster and the workload, runs to the end, and writes each decision
// as one line to `log` when given. Throws InputError; `config_flag` names the configuration's flag in
// it (--compare for that run).
SimResult run_sim(const SimCommand& command, std::ostream* log, std::string_view config_flag = "--config");

// "pending by reason" and one aligned line per reason, most pods first (ties by reason); "" for none.
std::string format_pending_reasons(const std::map<std::string, size_t>& pending_by_reason);

// Seconds (as the flags take them) as simulated time, rounded to the microsecond.
sim::SimDuration seconds_to_sim(double seconds);

}  // namespace kext::simtool
