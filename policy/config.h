#pragma once
// The extender's versioned configuration file: apiVersion kube-extender.io/v1alpha1, kind
// ExtenderConfiguration, with a KubeSchedulerConfiguration profile's `plugins` (filter and score
// points) and `pluginConfig` (kube-scheduler v1's plugin names and args), plus the extender's own
// sections. Decoded strictly, as kube-scheduler decodes its own file: an unknown field, a wrong type or
// an out-of-range value is a PolicyError naming the field's path
// ("pluginConfig[0].args.scoringStrategy.type: unknown value ...").
//
// The legacy Policy (kind Policy) still loads, and so does kube-scheduler's own KubeSchedulerConfiguration
// (one profile's `plugins` and `pluginConfig`, read as an ExtenderConfiguration's are):
// load_scheduling_file tells the three apart by apiVersion.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/catalogue.h"
#include "json/json.h"
#include "policy/policy.h"
#include "policy/usage_config.h"
#include "policy/version_choice.h"

namespace kext {

inline constexpr std::string_view kConfigApiVersion = "kube-extender.io/v1alpha1";
inline constexpr std::string_view kConfigKind = "ExtenderConfiguration";
inline constexpr std::string_view kSchedulerConfigApiVersion = "kubescheduler.config.k8s.io/v1";
inline constexpr std::string_view kSchedulerConfigKind = "KubeSchedulerConfiguration";

// One enabled plugin. Filters use only the name.
struct PluginEntry {
  std::string name;
  int64_t weight = 1;  // score plugins: 1..1000000
  Arithmetic arithmetic = Arithmetic::kCurrent;
  bool operator==(const PluginEntry&) const = default;
};

// The effective configuration: kube-scheduler's default plugins merged with the file's enabled and
// disabled lists (mergePluginSet), pluginConfig's defaults filled in.
struct Config {
  std::vector<PluginEntry> filters;  // in the order they run (before the catalogue's filter_rank)
  std::vector<PluginEntry> scores;
  PluginArgs args;
  bool always_check_all_filters = false;
  PreemptionPolicy preemption;
  int64_t parallel_threshold = static_cast<int64_t>(kDefaultParallelThreshold);
  int64_t parallel_min_work_us = static_cast<int64_t>(kDefaultParallelMinWorkNs / 1000);
  // gang.topologyLevels: node label keys, coarse to fine (Profile::topology_levels).
  std::vector<std::string> topology_levels{};
  // usage: where the load-aware plugins' node usage comes from; nullopt: no source (they are neutral).
  std::optional<UsageConfig> usage{};
  // kubernetesVersion: the kube-scheduler minor the file asks for (nullopt: it does not say, and
  // resolve_version decides). parse_config also sets args.version from it.
  std::optional<KubeVersion> kubernetes_version{};
  bool operator==(const Config&) const = default;
};

// Strict decoders of an ExtenderConfiguration. Throw PolicyError("<path>: <what>").
Config parse_config(std::string_view json_text);
Config parse_config(const rapidjson::Value& doc);

// The effective configuration as an ExtenderConfiguration (defaults filled in, every plugin listed
// with disabled "*" so nothing depends on the defaults), which parse_config reads back to the same
// Config. Compact JSON; `pretty` indents it for a human.
std::string config_to_json(const Config& config, bool pretty = false);

// The configuration the server runs without --policy / --config: today's default policy, in the new
// format (the five filters; the five scores at weight 1 with their v1.16 arithmetic).
std::string_view default_config_json();

// kube-scheduler's own default: a KubeSchedulerConfiguration whose one profile has no `plugins` and no
// `pluginConfig`, so load_scheduling_file gives kube-scheduler 1.26's default profile (v1
// default_plugins.go getDefaultPlugins and defaults.go's plugin args; volume plugins aside).
// extender-sim's scheduler profile when it is given none.
std::string_view default_scheduler_config_json();

// What the verbs run.
Profile compile(const Config& config);

// The legacy Policy as a Config: each predicate and priority under its framework plugin name, every
// score with kV1_16 arithmetic, so compile() of it runs what compile(policy) runs. nullopt (and `why`)
// when the new format cannot say it: two priorities that are both NodeResourcesFit scoring strategies.
struct ConfigFromPolicy {
  std::optional<Config> config;
  std::string why;
};
ConfigFromPolicy config_from_policy(const Policy& policy);

// The one line to print when a legacy Policy loads: the ExtenderConfiguration it equals.
std::string legacy_policy_notice(const Policy& policy);

// One entry of a KubeSchedulerConfiguration's `extenders` (k8s.io/kube-scheduler/config/v1 types.go
// Extender): what the scheduler will send, which must agree with how this extender was started.
struct SchedulerExtender {
  std::string url_prefix;
  std::string filter_verb;
  std::string prioritize_verb;
  std::string preempt_verb;
  std::string bind_verb;
  bool enable_https = false;
  bool node_cache_capable = false;
  // The multiplier of the prioritize reply in the scheduler's total; 1 when not given.
  int64_t weight = 1;
};

// A --policy / --config file of any format, compiled.
struct LoadedFile {
  Profile profile;
  // Non-empty for a legacy Policy (legacy_policy_notice) and a KubeSchedulerConfiguration (its profile).
  std::string notice;
  std::string effective_config;  // config_to_json (pretty) of what runs; "" if no Config equals it
  size_t filters = 0;
  size_t scores = 0;
  std::vector<SchedulerExtender> extenders;  // a KubeSchedulerConfiguration's, for extender_entry_warnings
  // A KubeSchedulerConfiguration: the profile's plugins are kube-scheduler's own (extender-sim adds
  // them to an extender's scores as the scheduler does).
  bool scheduler_configuration = false;
  std::optional<UsageConfig> usage{};  // an ExtenderConfiguration's `usage:` section
  VersionInForce version{};            // the kube-scheduler minor the profile runs, and why
};
// Throws PolicyError. A document whose apiVersion is in the kube-extender.io group is an
// ExtenderConfiguration, one in kubescheduler.config.k8s.io a KubeSchedulerConfiguration, anything else
// is decoded as a legacy Policy. `scheduler_name` (--scheduler-name) picks a KubeSchedulerConfiguration's
// profile by schedulerName; empty: its only profile (several are an error listing them). Given with
// another kind of file it is an error. `version`: the flag and the API server's answer, which with the
// file's kubernetesVersion (an ExtenderConfiguration's; the other two kinds have none) decide the minor
// every plugin and preemption run (resolve_version); the effective configuration says it when the flag
// or the file chose it.
LoadedFile load_scheduling_file(std::string_view text, std::string_view scheduler_name = {},
                                const VersionChoice& version = {});  // YAML or JSON

// How this extender was started, as far as a scheduler's extenders entry must agree with it.
struct ExtenderSettings {
  bool cluster_state = false;  // --in-cluster, --kubeconfig, --api-server or --snapshot
  bool bind = false;           // --enable-bind
  bool tls = false;            // --tls-cert-file
  std::string path_prefix;     // --path-prefix
  KubeVersion version{};       // the minor in force: what the scheduler of that version does
};
// One line per disagreement, naming the entry's field ("extenders[0].nodeCacheCapable: true, but ...").
// Warnings, not errors: the entry may describe another extender, and the file may be shared.
std::vector<std::string> extender_entry_warnings(const std::vector<SchedulerExtender>& entries,
                                                 const ExtenderSettings& settings);

// For --write-config: a loaded file's effective configuration as indented JSON. Throws PolicyError
// (with the notice's reason) for a legacy Policy that no ExtenderConfiguration equals.
std::string effective_config_json(const LoadedFile& loaded);

}  // namespace kext
