#include "policy/config.h"

#include <rapidjson/prettywriter.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <set>
#include <utility>

#include "algorithms/gpu/gpu_share.h"
#include "common/k8s_names.h"
#include "common/url_path.h"
#include "policy/default_profiles.h"
#include "yaml/yaml.h"

namespace kext {

namespace {

using json::Value;

// The embedded default: today's default policy, said in the new format.
constexpr std::string_view kDefaultConfig = R"({
  "apiVersion": "kube-extender.io/v1alpha1",
  "kind": "ExtenderConfiguration",
  "plugins": {
    "filter": {
      "disabled": [{"name": "*"}],
      "enabled": [
        {"name": "NodeUnschedulable"},
        {"name": "NodeName"},
        {"name": "NodeAffinity"},
        {"name": "NodeResourcesFit"},
        {"name": "TaintToleration"}
      ]
    },
    "score": {
      "disabled": [{"name": "*"}],
      "enabled": [
        {"name": "NodeResourcesFit", "weight": 1, "arithmetic": "v1.16"},
        {"name": "NodeResourcesBalancedAllocation", "weight": 1, "arithmetic": "v1.16"},
        {"name": "NodeAffinity", "weight": 1, "arithmetic": "v1.16"},
        {"name": "TaintToleration", "weight": 1, "arithmetic": "v1.16"},
        {"name": "ImageLocality", "weight": 1, "arithmetic": "v1.16"}
      ]
    }
  },
  "preemption": {"semantics": "current", "maxCandidates": 1}
})";

// kube-scheduler's default profile: one profile with nothing configured, which mergePluginSet and
// SetDefaults_*Args (pkg/scheduler/apis/config/v1) fill with the defaults.
constexpr std::string_view kDefaultSchedulerConfig = R"({
  "apiVersion": "kubescheduler.config.k8s.io/v1",
  "kind": "KubeSchedulerConfiguration",
  "profiles": [{"schedulerName": "default-scheduler"}]
})";

// kube-scheduler's own args types, which a copied pluginConfig entry may name.
constexpr std::string_view kSchedulerArgsApiVersion = "kubescheduler.config.k8s.io/v1";
constexpr int64_t kMaxPluginWeight = 1000000;  // as the legacy policy's priority weights
constexpr int64_t kMaxResourceWeight = 100;    // validation_pluginargs.go validateResources
constexpr int64_t kMaxUtilization = 100;

constexpr std::array<std::pair<std::string_view, ScoringStrategyType>, 3> kStrategyNames{{
    {"LeastAllocated", ScoringStrategyType::kLeastAllocated},
    {"MostAllocated", ScoringStrategyType::kMostAllocated},
    {"RequestedToCapacityRatio", ScoringStrategyType::kRequestedToCapacityRatio},
}};
constexpr std::array<std::pair<std::string_view, Arithmetic>, 2> kArithmeticNames{{
    {"current", Arithmetic::kCurrent},
    {"v1.16", Arithmetic::kV1_16},
}};
constexpr std::array<std::pair<std::string_view, preemption::Semantics>, 2> kSemanticsNames{{
    {"current", preemption::Semantics::kCurrent},
    {"v1.16", preemption::Semantics::kV1_16},
}};

std::string at(const std::string& path, std::string_view key) { return json::join_path(path, key); }
std::string at(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

template <typename List>
std::string known_list(const List& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    if constexpr (requires { n.first; }) {
      out += n.first;
    } else {
      out += n;
    }
  }
  return out;
}

// A JSON object decoded strictly: members match exactly (kube-scheduler's strict decoding is
// case-sensitive), a member not in `known` or given twice is an error, null counts as absent.
class Object {
 public:
  Object(const Value& v, std::string path, std::initializer_list<std::string_view> known)
      : v_(v), path_(std::move(path)) {
    if (!v.IsObject()) policy_fail(path_.empty() ? "configuration" : path_, type_error("an object", v));
    std::set<std::string_view> seen;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
      const std::string_view name = json::view(it->name);
      if (std::find(known.begin(), known.end(), name) == known.end())
        policy_fail(at(path_, name), "unknown field");
      if (!seen.insert(name).second) policy_fail(at(path_, name), "duplicate field");
    }
  }

  const std::string& path() const { return path_; }
  std::string path(std::string_view key) const { return at(path_, key); }

  const Value* get(std::string_view key) const {
    for (auto it = v_.MemberBegin(); it != v_.MemberEnd(); ++it) {
      if (json::view(it->name) == key) return it->value.IsNull() ? nullptr : &it->value;
    }
    return nullptr;
  }

  std::optional<std::string> string(std::string_view key) const {
    const Value* v = get(key);
    if (!v) return std::nullopt;
    if (!v->IsString()) policy_fail(path(key), type_error("a string", *v));
    return std::string(json::view(*v));
  }

  std::optional<int64_t> integer(std::string_view key) const {
    const Value* v = get(key);
    if (!v) return std::nullopt;
    if (!v->IsInt64()) policy_fail(path(key), type_error("an integer", *v));
    return v->GetInt64();
  }

  std::optional<bool> boolean(std::string_view key) const {
    const Value* v = get(key);
    if (!v) return std::nullopt;
    if (!v->IsBool()) policy_fail(path(key), type_error("a boolean", *v));
    return v->GetBool();
  }

  // nullptr when absent.
  const Value* array(std::string_view key) const {
    const Value* v = get(key);
    if (v && !v->IsArray()) policy_fail(path(key), type_error("an array", *v));
    return v;
  }

  static std::string type_error(const char* want, const Value& got) {
    std::string what = std::string("must be ") + want + ", got " + json::type_name(got);
    if (got.IsNumber() && !got.IsInt64()) what += " (not an integer)";
    return what;
  }

 private:
  const Value& v_;
  std::string path_;
};

int64_t in_range(int64_t v, int64_t lo, int64_t hi, const std::string& path) {
  if (v < lo || v > hi) {
    policy_fail(
        path, "must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + std::to_string(v));
  }
  return v;
}

template <typename Table>
auto named(const Table& table, std::string_view value, const std::string& path) {
  for (const auto& [name, v] : table) {
    if (name == value) return v;
  }
  policy_fail(path, "unknown value \"" + std::string(value) + "\" (known: " + known_list(table) + ")");
}

template <typename Table, typename V>
std::string_view name_of(const Table& table, V value) {
  for (const auto& [name, v] : table) {
    if (v == value) return name;
  }
  return table[0].first;
}

std::string checked_string(const Value& v, const std::string& path) {
  if (!v.IsString()) policy_fail(path, Object::type_error("a string", v));
  if (v.GetStringLength() == 0) policy_fail(path, "must not be empty");
  return std::string(json::view(v));
}

// [{name, weight}], weight 0 or absent = 1 (v1 SetDefaults_*Args), names unique.
std::vector<ResourceWeight> parse_resources(const Value& list, const std::string& path, int64_t max_weight) {
  std::vector<ResourceWeight> out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const Object r(list[i], at(path, i), {"name", "weight"});
    const Value* name = r.get("name");
    if (!name) policy_fail(r.path("name"), "required");
    ResourceWeight rw;
    rw.name = checked_string(*name, r.path("name"));
    if (!seen.insert(rw.name).second) policy_fail(r.path("name"), "duplicate resource \"" + rw.name + "\"");
    rw.weight = r.integer("weight").value_or(0);
    if (rw.weight == 0) rw.weight = 1;
    in_range(rw.weight, 1, max_weight, r.path("weight"));
    out.push_back(std::move(rw));
  }
  return out;
}

// A copied kube-scheduler args object may say what it is.
void check_args_type(const Object& args, std::string_view kind) {
  if (auto v = args.string("apiVersion"); v && *v != kSchedulerArgsApiVersion) {
    policy_fail(args.path("apiVersion"),
                "must be \"" + std::string(kSchedulerArgsApiVersion) + "\", got \"" + *v + "\"");
  }
  if (auto v = args.string("kind"); v && *v != kind) {
    policy_fail(args.path("kind"), "must be \"" + std::string(kind) + "\", got \"" + *v + "\"");
  }
}

std::vector<std::string> parse_names(const Object& obj, std::string_view key, bool group) {
  std::vector<std::string> out;
  const Value* list = obj.array(key);
  if (!list) return out;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const std::string p = at(obj.path(key), i);
    std::string name = checked_string((*list)[i], p);
    // validation_pluginargs.go: a resource group is a domain, without the '/'.
    if (group && name.find('/') != std::string::npos)
      policy_fail(p, "must be a domain without '/', got \"" + name + "\"");
    out.push_back(std::move(name));
  }
  return out;
}

void parse_fit_args(const Object& args, PluginArgs& out) {
  check_args_type(args, "NodeResourcesFitArgs");
  out.fit_filter.ignored_resources = parse_names(args, "ignoredResources", false);
  out.fit_filter.ignored_resource_groups = parse_names(args, "ignoredResourceGroups", true);
  const Value* st = args.get("scoringStrategy");
  if (!st) return;
  const Object s(*st, args.path("scoringStrategy"), {"type", "resources", "requestedToCapacityRatio"});
  ScoringStrategy& strategy = out.fit_scoring;
  if (auto type = s.string("type"); type && !type->empty()) {
    strategy.type = named(kStrategyNames, *type, s.path("type"));
  }
  if (const Value* res = s.array("resources"); res && !res->Empty()) {
    strategy.resources = parse_resources(*res, s.path("resources"), kMaxResourceWeight);
  }
  const Value* rtcr = s.get("requestedToCapacityRatio");
  if (rtcr) {
    const Object r(*rtcr, s.path("requestedToCapacityRatio"), {"shape"});
    const Value* shape = r.array("shape");
    if (shape) {
      for (rapidjson::SizeType i = 0; i < shape->Size(); ++i) {
        const Object pt((*shape)[i], at(r.path("shape"), i), {"utilization", "score"});
        UtilizationShapePoint point;
        point.utilization =
            in_range(pt.integer("utilization").value_or(0), 0, kMaxUtilization, pt.path("utilization"));
        point.score = in_range(pt.integer("score").value_or(0), 0, kMaxScore, pt.path("score"));
        if (!strategy.shape.empty() && point.utilization <= strategy.shape.back().utilization) {
          policy_fail(pt.path("utilization"), "must be strictly increasing");
        }
        strategy.shape.push_back(point);
      }
    }
  }
  if (strategy.type == ScoringStrategyType::kRequestedToCapacityRatio && strategy.shape.empty()) {
    policy_fail(s.path("requestedToCapacityRatio.shape"),
                "required (a non-empty array) for RequestedToCapacityRatio");
  }
}

void parse_balanced_args(const Object& args, PluginArgs& out) {
  check_args_type(args, "NodeResourcesBalancedAllocationArgs");
  if (const Value* res = args.array("resources"); res && !res->Empty()) {
    // validation_pluginargs.go ValidateNodeResourcesBalancedAllocationArgs: every weight must be 1.
    out.balanced.resources = parse_resources(*res, args.path("resources"), 1);
  }
}

// PodTopologySpreadArgs, checked as validation_pluginargs.go ValidatePodTopologySpreadArgs does.
void parse_spread_args(const Object& args, PluginArgs& out) {
  check_args_type(args, "PodTopologySpreadArgs");
  TopologySpreadArgs& spread = out.topology_spread;
  if (auto t = args.string("defaultingType")) {
    if (*t == "System")
      spread.defaulting = SpreadDefaulting::kSystem;
    else if (*t == "List")
      spread.defaulting = SpreadDefaulting::kList;
    else
      policy_fail(args.path("defaultingType"), "must be \"System\" or \"List\", got \"" + *t + "\"");
  }
  const Value* list = args.array("defaultConstraints");
  if (!list) return;
  const std::string path = args.path("defaultConstraints");
  if (spread.defaulting == SpreadDefaulting::kSystem && !list->Empty())
    policy_fail(path, "must be empty when defaultingType is \"System\"");
  std::set<std::pair<std::string, std::string>> seen;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const Object c((*list)[i], at(path, i),
                   {"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "matchLabelKeys"});
    if (c.get("labelSelector"))
      policy_fail(c.path("labelSelector"), "forbidden: default constraints deduce their selector");
    TopologySpreadConstraint tc;
    tc.max_skew = static_cast<int32_t>(in_range(c.integer("maxSkew").value_or(0), 1,
                                                std::numeric_limits<int32_t>::max(), c.path("maxSkew")));
    tc.topology_key = c.string("topologyKey").value_or("");
    if (tc.topology_key.empty()) policy_fail(c.path("topologyKey"), "required");
    tc.when_unsatisfiable = c.string("whenUnsatisfiable").value_or("");
    if (tc.when_unsatisfiable != "DoNotSchedule" && tc.when_unsatisfiable != "ScheduleAnyway")
      policy_fail(c.path("whenUnsatisfiable"), "must be \"DoNotSchedule\" or \"ScheduleAnyway\"");
    if (!seen.insert({tc.topology_key, tc.when_unsatisfiable}).second)
      policy_fail(c.path("topologyKey"), "duplicate {topologyKey, whenUnsatisfiable}");
    tc.match_label_keys = parse_names(c, "matchLabelKeys", false);
    spread.default_constraints.push_back(std::move(tc));
  }
}

// InterPodAffinityArgs, checked as ValidateInterPodAffinityArgs does.
void parse_affinity_args(const Object& args, PluginArgs& out) {
  check_args_type(args, "InterPodAffinityArgs");
  InterPodAffinityArgs& a = out.inter_pod_affinity;
  if (auto w = args.integer("hardPodAffinityWeight"))
    a.hard_pod_affinity_weight =
        static_cast<int32_t>(in_range(*w, 0, 100, args.path("hardPodAffinityWeight")));
  a.ignore_preferred_terms_of_existing_pods =
      args.boolean("ignorePreferredTermsOfExistingPods").value_or(a.ignore_preferred_terms_of_existing_pods);
}

// The load-aware plugins' args come from scheduler-plugins (Trimaran) and Koordinator, which register
// them under kube-scheduler's config group in versions of their own.
void check_load_args_type(const Object& args, std::string_view kind) {
  constexpr std::string_view group = "kubescheduler.config.k8s.io/";
  if (auto v = args.string("apiVersion"); v && !v->starts_with(group))
    policy_fail(args.path("apiVersion"),
                "must be \"" + std::string(group) + "<version>\", got \"" + *v + "\"");
  if (auto v = args.string("kind"); v && *v != kind)
    policy_fail(args.path("kind"), "must be \"" + std::string(kind) + "\", got \"" + *v + "\"");
}

// A finite number at least 0, or nullopt when absent.
std::optional<double> non_negative_number(const Object& obj, std::string_view key) {
  const Value* v = obj.get(key);
  if (!v) return std::nullopt;
  if (!v->IsNumber()) policy_fail(obj.path(key), Object::type_error("a number", *v));
  const double d = v->GetDouble();
  if (!std::isfinite(d) || d < 0) policy_fail(obj.path(key), "must be a number at least 0");
  return d;
}

// A decimal written whole, as a finite number at least 0: nullopt otherwise.
std::optional<double> decimal(std::string_view text) {
  double d = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(d) || d < 0)
    return std::nullopt;
  return d;
}

// A CPU quantity ("1500m", "1.5", 2) in millicores: the forms a ResourceList's cpu is written in.
int64_t milli_cpu(const Value& v, const std::string& path) {
  std::optional<double> cores;
  if (v.IsNumber()) {
    cores = v.GetDouble() >= 0 ? std::optional<double>(v.GetDouble()) : std::nullopt;
  } else if (v.IsString()) {
    const std::string_view text = json::view(v);
    if (text.ends_with('m')) {
      const auto milli = decimal(text.substr(0, text.size() - 1));
      if (milli) cores = *milli / 1000;
    } else {
      cores = decimal(text);
    }
  }
  if (!cores || *cores > 1e12) policy_fail(path, "must be a CPU quantity such as \"1000m\" or \"1\"");
  return std::llround(*cores * 1000);
}

// Trimaran's usage source (TrimaranSpec: metricProvider, watcherAddress): checked for its shape, not
// read, since the extender's usage source is configured in the extender configuration's usage: section.
void accept_trimaran_source(const Object& args) {
  if (const Value* mp = args.get("metricProvider")) {
    const Object provider(*mp, args.path("metricProvider"),
                          {"type", "address", "token", "insecureSkipVerify"});
    provider.string("type");
    provider.string("address");
    provider.string("token");
    provider.boolean("insecureSkipVerify");
  }
  args.string("watcherAddress");
}

// TargetLoadPackingArgs, checked for the ranges its formula needs (a target of 0 would divide by it).
void parse_target_load_packing_args(const Object& args, PluginArgs& out) {
  check_load_args_type(args, "TargetLoadPackingArgs");
  TargetLoadPackingArgs& a = out.target_load_packing;
  if (auto t = args.integer("targetUtilization"))
    a.target_utilization = in_range(*t, 1, kMaxUtilization, args.path("targetUtilization"));
  if (const Value* req = args.get("defaultRequests")) {
    if (!req->IsObject()) policy_fail(args.path("defaultRequests"), Object::type_error("an object", *req));
    for (auto it = req->MemberBegin(); it != req->MemberEnd(); ++it) {
      const std::string p = at(args.path("defaultRequests"), json::view(it->name));
      if (json::view(it->name) != "cpu") policy_fail(p, "only cpu is read (TargetLoadPacking predicts CPU)");
      a.default_requests_milli_cpu = milli_cpu(it->value, p);
    }
  }
  if (auto m = args.string("defaultRequestsMultiplier")) {
    const auto d = decimal(*m);
    if (!d)
      policy_fail(args.path("defaultRequestsMultiplier"), "must be a decimal at least 0, got \"" + *m + "\"");
    a.default_requests_multiplier = *d;
  }
  accept_trimaran_source(args);
}

void parse_load_variation_args(const Object& args, PluginArgs& out) {
  check_load_args_type(args, "LoadVariationRiskBalancingArgs");
  LoadVariationRiskBalancingArgs& a = out.load_variation;
  a.safe_variance_margin = non_negative_number(args, "safeVarianceMargin").value_or(a.safe_variance_margin);
  a.safe_variance_sensitivity =
      non_negative_number(args, "safeVarianceSensitivity").value_or(a.safe_variance_sensitivity);
  accept_trimaran_source(args);
}

// LoadAwareSchedulingArgs.usageThresholds, checked as Koordinator's ValidateLoadAwareSchedulingArgs does
// (0..100 each); the usage the extender reads is cpu and memory.
void parse_load_aware_args(const Object& args, PluginArgs& out) {
  check_load_args_type(args, "LoadAwareSchedulingArgs");
  const Value* t = args.get("usageThresholds");
  if (!t) return;
  const Object thresholds(*t, args.path("usageThresholds"), {"cpu", "memory"});
  if (t->MemberCount() == 0) return;  // empty: Koordinator's defaults
  LoadAwareSchedulingArgs& a = out.load_aware;
  a.cpu_percent = in_range(thresholds.integer("cpu").value_or(0), 0, kMaxUtilization, thresholds.path("cpu"));
  a.memory_percent =
      in_range(thresholds.integer("memory").value_or(0), 0, kMaxUtilization, thresholds.path("memory"));
}

// GPUShareArgs: HAMi's scheduler settings under the names of its configuration (charts/hami/values.yaml
// resourceName..., cmd/scheduler flags --node-scheduler-policy and --gpu-scheduler-policy).
void parse_gpu_share_args(const Object& args, PluginArgs& out) {
  gpu::SharingConfig& c = out.gpu_share;
  auto resource = [&](std::string_view key, std::string& into) {
    if (auto v = args.string(key)) {
      if (v->empty()) policy_fail(args.path(key), "must not be empty");
      into = *v;
    }
  };
  resource("resourceCountName", c.count_resource);
  resource("resourceMemoryName", c.memory_resource);
  resource("resourceMemoryPercentageName", c.memory_percent_resource);
  resource("resourceCoreName", c.cores_resource);
  c.default_memory = static_cast<int32_t>(in_range(args.integer("defaultMemory").value_or(c.default_memory),
                                                   0, INT32_MAX, args.path("defaultMemory")));
  c.default_cores = static_cast<int32_t>(
      in_range(args.integer("defaultCores").value_or(c.default_cores), 0, 100, args.path("defaultCores")));
  if (auto v = args.string("nodeSchedulerPolicy")) {
    if (*v != "binpack" && *v != "spread")
      policy_fail(args.path("nodeSchedulerPolicy"), "\"" + *v + "\" is not binpack or spread");
    c.node_policy = *v;
  }
  if (auto v = args.string("gpuSchedulerPolicy")) {
    std::string_view rest = *v;
    while (true) {
      const size_t comma = rest.find(',');
      const std::string_view p = rest.substr(0, comma);
      if (p != "binpack" && p != "spread" && p != "topology-aware" && p != "mutex" && p != "numa")
        policy_fail(args.path("gpuSchedulerPolicy"),
                    "\"" + std::string(p) + "\" is not binpack, spread, topology-aware, mutex or numa");
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    c.gpu_policy = *v;
  }
}

void parse_plugin_config(const Value& list, const std::string& path, PluginArgs& out) {
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    const Object entry(list[i], at(path, i), {"name", "args"});
    const Value* name_v = entry.get("name");
    if (!name_v) policy_fail(entry.path("name"), "required");
    const std::string name = checked_string(*name_v, entry.path("name"));
    if (!seen.insert(name).second)
      policy_fail(entry.path("name"), "duplicate pluginConfig for \"" + name + "\"");
    const Value* args = entry.get("args");
    if (name == "NodeResourcesFit") {
      if (args) {
        parse_fit_args(
            Object(*args, entry.path("args"),
                   {"apiVersion", "kind", "ignoredResources", "ignoredResourceGroups", "scoringStrategy"}),
            out);
      }
    } else if (name == "NodeResourcesBalancedAllocation") {
      if (args)
        parse_balanced_args(Object(*args, entry.path("args"), {"apiVersion", "kind", "resources"}), out);
    } else if (name == kPodTopologySpreadPlugin) {
      if (args)
        parse_spread_args(
            Object(*args, entry.path("args"), {"apiVersion", "kind", "defaultConstraints", "defaultingType"}),
            out);
    } else if (name == kInterPodAffinityPlugin) {
      if (args)
        parse_affinity_args(
            Object(*args, entry.path("args"),
                   {"apiVersion", "kind", "hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"}),
            out);
    } else if (name == kTargetLoadPackingPlugin) {
      if (args)
        parse_target_load_packing_args(
            Object(*args, entry.path("args"),
                   {"apiVersion", "kind", "targetUtilization", "defaultRequests", "defaultRequestsMultiplier",
                    "metricProvider", "watcherAddress"}),
            out);
    } else if (name == kLoadVariationRiskBalancingPlugin) {
      if (args)
        parse_load_variation_args(Object(*args, entry.path("args"),
                                         {"apiVersion", "kind", "safeVarianceMargin",
                                          "safeVarianceSensitivity", "metricProvider", "watcherAddress"}),
                                  out);
    } else if (name == kLoadAwareSchedulingPlugin) {
      if (args)
        parse_load_aware_args(Object(*args, entry.path("args"), {"apiVersion", "kind", "usageThresholds"}),
                              out);
    } else if (name == kGpuSharePlugin) {
      if (args)
        parse_gpu_share_args(Object(*args, entry.path("args"),
                                    {"apiVersion", "kind", "resourceCountName", "resourceMemoryName",
                                     "resourceMemoryPercentageName", "resourceCoreName", "defaultMemory",
                                     "defaultCores", "nodeSchedulerPolicy", "gpuSchedulerPolicy"}),
                             out);
    } else {
      const auto known = plugin_score_names();
      const bool is_plugin =
          std::find(known.begin(), known.end(), name) != known.end() || !legacy_filter_name(name).empty();
      policy_fail(entry.path("name"),
                  is_plugin ? "the extender takes no args for " + name
                            : "unknown plugin \"" + name +
                                  "\" (args are read for: NodeResourcesFit, NodeResourcesBalancedAllocation, "
                                  "PodTopologySpread, InterPodAffinity, TargetLoadPacking, "
                                  "LoadVariationRiskBalancing, LoadAwareScheduling, GPUShare)");
    }
  }
}

// One extension point (plugins.filter / plugins.score): kube-scheduler's default plugins merged with
// the file's lists as v1 default_plugins.go mergePluginSet does: defaults not disabled (all of them
// with "*") keep their place, an enabled entry naming one replaces it there, the others follow in
// file order.
std::vector<PluginEntry> parse_plugin_set(const Object& plugins, std::string_view point, bool score,
                                          const PluginArgs& args) {
  const std::vector<std::string_view> names = score ? plugin_score_names() : plugin_filter_names();
  std::vector<PluginEntry> defaults = default_plugin_entries(args.version, score);
  // Accepted when enabled, in no default: the load-aware plugins.
  std::vector<std::string_view> known = names;
  for (auto n : score ? optional_plugin_score_names() : optional_plugin_filter_names()) known.push_back(n);
  const Value* set_v = plugins.get(point);
  if (!set_v) return defaults;
  const Object set(*set_v, plugins.path(point), {"enabled", "disabled"});

  auto check_name = [&](const Value* v, const std::string& path, bool star) {
    if (!v) policy_fail(path, "required");
    std::string name = checked_string(*v, path);
    if (star && name == "*") return name;
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      policy_fail(path, "unknown " + std::string(point) + " plugin \"" + name +
                            "\" (known: " + known_list(known) + ")");
    }
    return name;
  };

  std::set<std::string> disabled;
  if (const Value* list = set.array("disabled")) {
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      const Object d((*list)[i], at(set.path("disabled"), i), {"name", "weight"});
      disabled.insert(check_name(d.get("name"), d.path("name"), true));
    }
  }
  std::vector<PluginEntry> enabled;
  if (const Value* list = set.array("enabled")) {
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      const Object e((*list)[i], at(set.path("enabled"), i),
                     score ? std::initializer_list<std::string_view>{"name", "weight", "arithmetic"}
                           : std::initializer_list<std::string_view>{"name", "weight"});
      PluginEntry entry;
      entry.name = check_name(e.get("name"), e.path("name"), false);
      for (const auto& prior : enabled) {
        if (prior.name == entry.name) policy_fail(e.path("name"), "duplicate plugin \"" + entry.name + "\"");
      }
      // The framework takes a score weight of 0 as 1; filters have none (a copied weight is ignored).
      const int64_t weight = e.integer("weight").value_or(0);
      if (score) entry.weight = weight == 0 ? 1 : in_range(weight, 1, kMaxPluginWeight, e.path("weight"));
      if (auto a = e.string("arithmetic"))
        entry.arithmetic = named(kArithmeticNames, *a, e.path("arithmetic"));
      if (entry.arithmetic == Arithmetic::kV1_16) {
        const LegacyScore legacy = legacy_score_for(entry.name, args);
        if (legacy.name.empty())
          policy_fail(e.path("arithmetic"), "\"v1.16\" for this pluginConfig: " + legacy.why);
      }
      enabled.push_back(std::move(entry));
    }
  }
  std::vector<PluginEntry> out;
  std::set<std::string> replaced;
  if (!disabled.contains("*")) {
    for (auto& d : defaults) {
      if (disabled.contains(d.name)) continue;
      auto custom = std::find_if(enabled.begin(), enabled.end(),
                                 [&](const PluginEntry& e) { return e.name == d.name; });
      if (custom != enabled.end()) {
        out.push_back(*custom);
        replaced.insert(d.name);
      } else {
        out.push_back(d);
      }
    }
  }
  for (auto& e : enabled) {
    if (!replaced.contains(e.name)) out.push_back(e);
  }
  return out;
}

void check_type_meta(const Object& root, std::string_view api_version, std::string_view kind_name) {
  const auto api = root.string("apiVersion");
  if (!api) policy_fail("apiVersion", "required (\"" + std::string(api_version) + "\")");
  if (*api != api_version) {
    policy_fail("apiVersion", "must be \"" + std::string(api_version) + "\", got \"" + *api + "\"");
  }
  const auto kind = root.string("kind");
  if (!kind) policy_fail("kind", "required (\"" + std::string(kind_name) + "\")");
  if (*kind != kind_name)
    policy_fail("kind", "must be \"" + std::string(kind_name) + "\", got \"" + *kind + "\"");
}

// `plugins` and `pluginConfig` of `holder`: an ExtenderConfiguration, or a KubeSchedulerConfiguration's
// profile (the same two fields as kube-scheduler v1 KubeSchedulerProfile's).
void parse_plugins(const Object& holder, Config& config) {
  if (const Value* pc = holder.array("pluginConfig"))
    parse_plugin_config(*pc, holder.path("pluginConfig"), config.args);
  static const Value kEmpty(rapidjson::kObjectType);
  const Value* plugins_v = holder.get("plugins");
  const Object plugins(plugins_v ? *plugins_v : kEmpty, holder.path("plugins"), {"filter", "score"});
  config.filters = parse_plugin_set(plugins, "filter", false, config.args);
  config.scores = parse_plugin_set(plugins, "score", true, config.args);
  if (config.filters.empty() && config.scores.empty())
    policy_fail(holder.path("plugins"), "enables no filter and no score plugin");
}

// gang: {topologyLevels: [node label key, ...]}, coarse to fine: each a label key, none twice.
std::vector<std::string> parse_gang(const Value& v) {
  const Object gang(v, "gang", {"topologyLevels"});
  std::vector<std::string> levels;
  const Value* list = gang.array("topologyLevels");
  if (!list) return levels;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const std::string p = at(gang.path("topologyLevels"), i);
    std::string key = checked_string((*list)[i], p);
    if (const std::string why = qualified_name_error(key); !why.empty())
      policy_fail(p, "\"" + key + "\" is not a node label key: " + why);
    if (std::find(levels.begin(), levels.end(), key) != levels.end())
      policy_fail(p, "duplicate level \"" + key + "\"");
    levels.push_back(std::move(key));
  }
  return levels;
}

// kubernetesVersion: "1.34", "v1.34" or "1.34.2", a minor this project reproduces. A string, as
// kubectl version prints one: YAML's plain 1.30 is the number 1.3.
std::optional<KubeVersion> parse_kubernetes_version(const Object& root) {
  const Value* v = root.get("kubernetesVersion");
  if (!v) return std::nullopt;
  if (v->IsNumber())
    policy_fail("kubernetesVersion",
                "must be a string such as \"1.34\", got a number (quote it: YAML reads 1.30 as 1.3)");
  if (!v->IsString()) policy_fail("kubernetesVersion", Object::type_error("a string such as \"1.34\"", *v));
  std::string why;
  const std::optional<KubeVersion> version = parse_supported_version(json::view(*v), &why);
  if (!version) policy_fail("kubernetesVersion", why);
  return version;
}

Config parse_config_impl(const Value& doc) {
  const Object root(
      doc, "",
      {"apiVersion", "kind", "kubernetesVersion", "plugins", "pluginConfig", "alwaysCheckAllFilters",
       "preemption", "parallelThreshold", "parallelMinWorkMicroseconds", "gang", "usage"});
  check_type_meta(root, kConfigApiVersion, kConfigKind);

  Config config;
  config.kubernetes_version = parse_kubernetes_version(root);
  config.args.version = config.kubernetes_version.value_or(KubeVersion::newest());
  parse_plugins(root, config);

  config.always_check_all_filters = root.boolean("alwaysCheckAllFilters").value_or(false);
  if (const Value* pre = root.get("preemption")) {
    const Object p(*pre, "preemption", {"semantics", "maxCandidates"});
    if (auto sem = p.string("semantics")) {
      config.preemption.semantics =
          std::string(name_of(kSemanticsNames, named(kSemanticsNames, *sem, p.path("semantics"))));
    }
    if (auto n = p.integer("maxCandidates")) {
      config.preemption.max_candidates =
          in_range(*n, 1, std::numeric_limits<int32_t>::max(), p.path("maxCandidates"));
    }
  }
  if (auto t = root.integer("parallelThreshold")) {
    config.parallel_threshold = in_range(*t, 0, std::numeric_limits<int64_t>::max(), "parallelThreshold");
  }
  if (auto t = root.integer("parallelMinWorkMicroseconds")) {
    config.parallel_min_work_us = in_range(*t, 0, kMaxParallelMinWorkUs, "parallelMinWorkMicroseconds");
  }
  if (const Value* gang = root.get("gang")) config.topology_levels = parse_gang(*gang);
  if (const Value* usage = root.get("usage")) config.usage = parse_usage_config(*usage, "usage");
  return config;
}

// kube-scheduler's default profile name (v1 defaults.go SetDefaults_KubeSchedulerConfiguration).
constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

struct SchedulerFile {
  Config config;
  std::string profile;
  std::vector<SchedulerExtender> extenders;
};

// One extenders[] entry (k8s.io/kube-scheduler/config/v1 types.go Extender, every field known).
SchedulerExtender parse_extender(const Value& v, const std::string& path) {
  const Object e(
      v, path,
      {"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight", "bindVerb", "enableHTTPS",
       "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources", "ignorable"});
  SchedulerExtender out;
  out.url_prefix = e.string("urlPrefix").value_or("");
  out.filter_verb = e.string("filterVerb").value_or("");
  out.prioritize_verb = e.string("prioritizeVerb").value_or("");
  out.preempt_verb = e.string("preemptVerb").value_or("");
  out.bind_verb = e.string("bindVerb").value_or("");
  out.enable_https = e.boolean("enableHTTPS").value_or(false);
  out.node_cache_capable = e.boolean("nodeCacheCapable").value_or(false);
  // validation.go validateExtenders: a prioritizing extender needs a positive weight.
  if (auto weight = e.integer("weight"))
    out.weight = in_range(*weight, 1, kMaxPluginWeight, e.path("weight"));
  e.string("httpTimeout");
  e.boolean("ignorable");
  if (const Value* tls = e.get("tlsConfig")) {
    const Object t(
        *tls, e.path("tlsConfig"),
        {"insecure", "serverName", "certFile", "keyFile", "caFile", "certData", "keyData", "caData"});
  }
  if (const Value* list = e.array("managedResources")) {
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i)
      const Object r((*list)[i], at(e.path("managedResources"), i), {"name", "ignoredByScheduler"});
  }
  return out;
}

// A KubeSchedulerConfiguration: the chosen profile's plugins and pluginConfig, and the extenders list.
// The fields that configure kube-scheduler itself (its queue, leader election, client) are accepted and
// ignored; healthzBindAddress and metricsBindAddress left v1 with v1beta3 but are still in files copied
// from older ones.
SchedulerFile parse_scheduler_config(const Value& doc, std::string_view scheduler_name) {
  const Object root(
      doc, "",
      {"apiVersion", "kind", "parallelism", "leaderElection", "clientConnection", "healthzBindAddress",
       "metricsBindAddress", "enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
       "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders", "delayCacheUntilActive"});
  check_type_meta(root, kSchedulerConfigApiVersion, kSchedulerConfigKind);

  SchedulerFile out;
  // kube-scheduler runs one default profile when the file has none (SetDefaults_KubeSchedulerConfiguration).
  static const Value kEmpty(rapidjson::kObjectType);
  std::vector<std::pair<std::string, Object>> profiles;
  if (const Value* list = root.array("profiles")) {
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
      Object p((*list)[i], at("profiles", i),
               {"schedulerName", "plugins", "pluginConfig", "percentageOfNodesToScore"});
      std::string name = p.string("schedulerName").value_or("");
      if (name.empty()) name = kDefaultSchedulerName;
      p.integer("percentageOfNodesToScore");
      for (const auto& prior : profiles) {
        // validation.go validateKubeSchedulerProfiles: "duplicate profile with scheduler name".
        if (prior.first == name) policy_fail(p.path("schedulerName"), "duplicate profile \"" + name + "\"");
      }
      profiles.emplace_back(std::move(name), std::move(p));
    }
  }
  if (profiles.empty())
    profiles.emplace_back(std::string(kDefaultSchedulerName), Object(kEmpty, "profiles[0]", {}));
  auto names = [&] {
    std::string n;
    for (const auto& p : profiles) n += (n.empty() ? "" : ", ") + p.first;
    return n;
  };
  const Object* chosen = nullptr;
  if (scheduler_name.empty()) {
    if (profiles.size() > 1) {
      policy_fail("profiles", std::to_string(profiles.size()) + " profiles (" + names() +
                                  "); --scheduler-name must say which one the extender serves");
    }
    chosen = &profiles.front().second;
    out.profile = profiles.front().first;
  } else {
    for (const auto& p : profiles) {
      if (p.first == scheduler_name) {
        chosen = &p.second;
        out.profile = p.first;
      }
    }
    if (!chosen) {
      policy_fail("profiles", "no profile has schedulerName \"" + std::string(scheduler_name) +
                                  "\" (--scheduler-name); the profiles are: " + names());
    }
  }
  parse_plugins(*chosen, out.config);
  if (const Value* list = root.array("extenders")) {
    for (rapidjson::SizeType i = 0; i < list->Size(); ++i)
      out.extenders.push_back(parse_extender((*list)[i], at("extenders", i)));
  }
  return out;
}

rapidjson::Document parse_json(std::string_view text, std::string_view what) {
  rapidjson::Document doc;
  doc.Parse<json::kParseFlags>(text.data(), text.size());
  if (doc.HasParseError()) {
    policy_fail(std::string(what), std::string("malformed JSON at offset ") +
                                       std::to_string(doc.GetErrorOffset()) + ": " +
                                       rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return doc;
}

template <typename Writer>
void write_resources(Writer& w, const std::vector<ResourceWeight>& resources) {
  w.StartArray();
  for (const auto& r : resources) {
    w.StartObject();
    w.Key("name");
    json::write_string(w, r.name);
    w.Key("weight");
    w.Int64(r.weight);
    w.EndObject();
  }
  w.EndArray();
}

template <typename Writer>
void write_plugin_set(Writer& w, const char* point, const std::vector<PluginEntry>& entries, bool score) {
  w.Key(point);
  w.StartObject();
  w.Key("disabled");
  w.StartArray();
  w.StartObject();
  w.Key("name");
  w.String("*");
  w.EndObject();
  w.EndArray();
  w.Key("enabled");
  w.StartArray();
  for (const auto& e : entries) {
    w.StartObject();
    w.Key("name");
    json::write_string(w, e.name);
    if (score) {
      w.Key("weight");
      w.Int64(e.weight);
      w.Key("arithmetic");
      w.String(name_of(kArithmeticNames, e.arithmetic).data());
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// One pluginConfig entry: {"name": plugin, "args": {...}}, `members` writing the args' members.
template <typename Writer, typename Members>
void write_plugin_config(Writer& w, std::string_view plugin, Members&& members) {
  w.StartObject();
  w.Key("name");
  json::write_string(w, plugin);
  w.Key("args");
  w.StartObject();
  members();
  w.EndObject();
  w.EndObject();
}

// NodeResourcesFitArgs' members (k8s.io/kube-scheduler config/v1 types_pluginargs.go), as
// parse_fit_args reads them.
template <typename Writer>
void write_fit_args(Writer& w, const PluginArgs& args) {
  for (auto [key, list] : {std::pair{"ignoredResources", &args.fit_filter.ignored_resources},
                           std::pair{"ignoredResourceGroups", &args.fit_filter.ignored_resource_groups}}) {
    w.Key(key);
    w.StartArray();
    for (const auto& n : *list) json::write_string(w, n);
    w.EndArray();
  }
  const ScoringStrategy& st = args.fit_scoring;
  w.Key("scoringStrategy");
  w.StartObject();
  w.Key("type");
  w.String(name_of(kStrategyNames, st.type).data());
  w.Key("resources");
  write_resources(w, st.resources);
  if (!st.shape.empty()) {
    w.Key("requestedToCapacityRatio");
    w.StartObject();
    w.Key("shape");
    w.StartArray();
    for (const auto& p : st.shape) {
      w.StartObject();
      w.Key("utilization");
      w.Int64(p.utilization);
      w.Key("score");
      w.Int64(p.score);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
}

// PodTopologySpreadArgs' members, as parse_spread_args reads them.
template <typename Writer>
void write_spread_args(Writer& w, const TopologySpreadArgs& args) {
  w.Key("defaultingType");
  w.String(args.defaulting == SpreadDefaulting::kSystem ? "System" : "List");
  w.Key("defaultConstraints");
  w.StartArray();
  for (const auto& tc : args.default_constraints) {
    w.StartObject();
    w.Key("maxSkew");
    w.Int(tc.max_skew);
    w.Key("topologyKey");
    json::write_string(w, tc.topology_key);
    w.Key("whenUnsatisfiable");
    json::write_string(w, tc.when_unsatisfiable);
    if (!tc.match_label_keys.empty()) {
      w.Key("matchLabelKeys");
      w.StartArray();
      for (const auto& k : tc.match_label_keys) json::write_string(w, k);
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
}

// The shortest decimal that reads back as `d`.
std::string shortest(double d) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(d);
}

// The load-aware plugins' args, written when they are not the defaults: the plugins are in no default
// profile, and a configuration that does not use them reads the same without them.
template <typename Writer>
void write_load_plugin_configs(Writer& w, const PluginArgs& args) {
  if (args.target_load_packing != TargetLoadPackingArgs{}) {
    const TargetLoadPackingArgs& a = args.target_load_packing;
    write_plugin_config(w, kTargetLoadPackingPlugin, [&] {
      w.Key("targetUtilization");
      w.Int64(a.target_utilization);
      w.Key("defaultRequests");
      w.StartObject();
      w.Key("cpu");
      json::write_string(w, std::to_string(a.default_requests_milli_cpu) + "m");
      w.EndObject();
      w.Key("defaultRequestsMultiplier");
      json::write_string(w, shortest(a.default_requests_multiplier));
    });
  }
  if (args.load_variation != LoadVariationRiskBalancingArgs{}) {
    write_plugin_config(w, kLoadVariationRiskBalancingPlugin, [&] {
      w.Key("safeVarianceMargin");
      w.Double(args.load_variation.safe_variance_margin);
      w.Key("safeVarianceSensitivity");
      w.Double(args.load_variation.safe_variance_sensitivity);
    });
  }
  if (args.load_aware != LoadAwareSchedulingArgs{}) {
    write_plugin_config(w, kLoadAwareSchedulingPlugin, [&] {
      w.Key("usageThresholds");
      w.StartObject();
      w.Key("cpu");
      w.Int64(args.load_aware.cpu_percent);
      w.Key("memory");
      w.Int64(args.load_aware.memory_percent);
      w.EndObject();
    });
  }
  if (args.gpu_share != gpu::SharingConfig{}) {
    const gpu::SharingConfig& c = args.gpu_share;
    write_plugin_config(w, kGpuSharePlugin, [&] {
      for (const auto& [key, value] : {std::pair{"resourceCountName", &c.count_resource},
                                       std::pair{"resourceMemoryName", &c.memory_resource},
                                       std::pair{"resourceMemoryPercentageName", &c.memory_percent_resource},
                                       std::pair{"resourceCoreName", &c.cores_resource},
                                       std::pair{"nodeSchedulerPolicy", &c.node_policy},
                                       std::pair{"gpuSchedulerPolicy", &c.gpu_policy}}) {
        w.Key(key);
        json::write_string(w, *value);
      }
      w.Key("defaultMemory");
      w.Int64(c.default_memory);
      w.Key("defaultCores");
      w.Int64(c.default_cores);
    });
  }
}

// pluginConfig: every plugin's args, filled in, as parse_plugin_config reads them back.
template <typename Writer>
void write_plugin_configs(Writer& w, const PluginArgs& args) {
  w.Key("pluginConfig");
  w.StartArray();
  write_plugin_config(w, "NodeResourcesFit", [&] { write_fit_args(w, args); });
  write_plugin_config(w, "NodeResourcesBalancedAllocation", [&] {
    w.Key("resources");
    write_resources(w, args.balanced.resources);
  });
  write_plugin_config(w, kPodTopologySpreadPlugin, [&] { write_spread_args(w, args.topology_spread); });
  write_plugin_config(w, kInterPodAffinityPlugin, [&] {
    w.Key("hardPodAffinityWeight");
    w.Int(args.inter_pod_affinity.hard_pod_affinity_weight);
    w.Key("ignorePreferredTermsOfExistingPods");
    w.Bool(args.inter_pod_affinity.ignore_preferred_terms_of_existing_pods);
  });
  write_load_plugin_configs(w, args);
  w.EndArray();
}

template <typename Writer>
void write_config(Writer& w, const Config& c) {
  w.StartObject();
  w.Key("apiVersion");
  w.String(kConfigApiVersion.data());
  w.Key("kind");
  w.String(kConfigKind.data());
  if (c.kubernetes_version) {
    w.Key("kubernetesVersion");
    json::write_string(w, c.kubernetes_version->str());
  }
  w.Key("plugins");
  w.StartObject();
  write_plugin_set(w, "filter", c.filters, false);
  write_plugin_set(w, "score", c.scores, true);
  w.EndObject();
  write_plugin_configs(w, c.args);
  w.Key("alwaysCheckAllFilters");
  w.Bool(c.always_check_all_filters);
  w.Key("preemption");
  w.StartObject();
  w.Key("semantics");
  json::write_string(w, c.preemption.semantics);
  w.Key("maxCandidates");
  w.Int64(c.preemption.max_candidates);
  w.EndObject();
  w.Key("parallelThreshold");
  w.Int64(c.parallel_threshold);
  w.Key("parallelMinWorkMicroseconds");
  w.Int64(c.parallel_min_work_us);
  w.Key("gang");
  w.StartObject();
  w.Key("topologyLevels");
  w.StartArray();
  for (const auto& level : c.topology_levels) json::write_string(w, level);
  w.EndArray();
  w.EndObject();
  if (c.usage) {
    w.Key("usage");
    usage_config_document(*c.usage).Accept(w);
  }
  w.EndObject();
}

std::string_view api_version_of(const rapidjson::Document& doc) {
  if (!doc.IsObject()) return {};
  auto it = doc.FindMember("apiVersion");
  return it != doc.MemberEnd() && it->value.IsString() ? json::view(it->value) : std::string_view();
}

// "http://host:8888/scheduler/" -> "/scheduler"; "" when it has no path.
std::string url_path(std::string_view url) {
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string_view::npos ? 0 : scheme + 3);
  return normalized_path_prefix(slash == std::string_view::npos ? std::string_view() : url.substr(slash));
}

}  // namespace

std::string_view default_config_json() { return kDefaultConfig; }

std::string_view default_scheduler_config_json() { return kDefaultSchedulerConfig; }

Config parse_config(const rapidjson::Value& doc) {
  try {
    return parse_config_impl(doc);
  } catch (const DecodeError& e) {
    // Every field above is checked with a PolicyError of its own; this keeps the contract should
    // RapidJSON's invariant net fire.
    throw PolicyError(std::string("configuration: ") + e.what());
  }
}

Config parse_config(std::string_view json_text) {
  return parse_config(parse_json(json_text, "configuration"));
}

std::string config_to_json(const Config& config, bool pretty) {
  rapidjson::StringBuffer buf;
  if (pretty) {
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
    w.SetIndent(' ', 2);
    write_config(w, config);
  } else {
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    write_config(w, config);
  }
  return {buf.GetString(), buf.GetSize()};
}

Profile compile(const Config& config) {
  // The engine runs the filters in the semantics' order (filter_rank), whatever the file's order.
  std::vector<std::unique_ptr<FilterPlugin>> filter_plugins;
  for (const auto& f : config.filters) {
    auto plugin = make_filter(f.name, config.args);
    if (!plugin) throw PolicyError("plugins.filter: unknown plugin \"" + f.name + "\"");
    filter_plugins.push_back(std::move(plugin));
  }
  std::vector<WeightedScore> scores;
  for (const auto& s : config.scores) {
    auto plugin = make_plugin_score(s.name, config.args, s.arithmetic);
    if (!plugin) throw PolicyError("plugins.score: cannot build \"" + s.name + "\" with this pluginConfig");
    scores.push_back({std::move(plugin), s.weight});
  }
  EngineOptions options;
  options.parallel_threshold = static_cast<size_t>(std::max<int64_t>(config.parallel_threshold, 0));
  options.parallel_min_work_ns =
      static_cast<uint64_t>(std::clamp<int64_t>(config.parallel_min_work_us, 0, kMaxParallelMinWorkUs)) *
      1000;
  options.always_check_all_predicates = config.always_check_all_filters;
  options.semantics = semantics_of(config.preemption);
  Engine engine(std::move(filter_plugins), std::move(scores), options);
  PreemptionProfile preemption = preemption_profile(config.preemption, engine.options().parallel_min_work_ns);
  preemption.select.version = config.args.version;
  const bool gpus =
      std::ranges::any_of(config.filters, [](const PluginEntry& f) { return f.name == kGpuSharePlugin; });
  return Profile{std::move(engine), std::move(preemption), config.topology_levels, config.args.version,
                 gpus ? std::optional(config.args.gpu_share) : std::nullopt};
}

ConfigFromPolicy config_from_policy(const Policy& policy) {
  Config config;
  for (const auto& p : policy.predicates)
    config.filters.push_back({std::string(plugin_for_legacy_filter(p.name)), 1});
  std::string fit_from;
  for (const auto& p : policy.priorities) {
    const PluginScore ps = plugin_for_legacy_score(p.name, p.args);
    if (ps.name.empty()) return {std::nullopt, "unknown priority \"" + p.name + "\""};
    if (ps.name == "NodeResourcesFit") {
      if (!fit_from.empty()) {
        return {std::nullopt,
                fit_from + " and " + p.name +
                    " are both NodeResourcesFit scoring strategies, which one file cannot configure twice"};
      }
      fit_from = p.name;
      config.args.fit_scoring = ps.args.fit_scoring;
    }
    config.scores.push_back({std::string(ps.name), p.weight, Arithmetic::kV1_16});
  }
  config.always_check_all_filters = policy.always_check_all_predicates;
  config.preemption = policy.preemption;
  config.parallel_threshold = policy.parallel_threshold;
  config.parallel_min_work_us = policy.parallel_min_work_us;
  // The legacy format is laxer in places (a resource weight above kube-scheduler's 100, a shape
  // without points): such a policy still runs, but no file says it.
  try {
    if (parse_config(config_to_json(config)) != config)
      return {std::nullopt, "it does not read back the same"};
  } catch (const PolicyError& e) {
    return {std::nullopt, std::string("the new format refuses it: ") + e.what()};
  }
  return {std::move(config), ""};
}

std::string legacy_policy_notice(const Policy& policy) {
  const ConfigFromPolicy c = config_from_policy(policy);
  if (!c.config)
    return "legacy Policy loaded with its v1.16 arithmetic; no single ExtenderConfiguration equals it: " +
           c.why;
  return "legacy Policy loaded with its v1.16 arithmetic; it equals this ExtenderConfiguration: " +
         config_to_json(*c.config);
}

// JSON keeps RapidJSON's own errors (with the offset); anything else is read as YAML (yaml/yaml.h: YAML
// 1.2 core schema, so JSON's `true` and YAML's `True` are both booleans), errors with line and column.
bool is_json(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

rapidjson::Document parse_file(std::string_view text, bool json) {
  if (json) return parse_json(text, "configuration");
  try {
    return yaml::to_json(text);
  } catch (const yaml::YamlError& e) {
    throw PolicyError(std::string("configuration: ") + e.what());
  }
}

static SchedulerFile parse_scheduler_config_checked(const rapidjson::Value& doc,
                                                    std::string_view scheduler_name) {
  try {
    return parse_scheduler_config(doc, scheduler_name);
  } catch (const DecodeError& e) {
    throw PolicyError(std::string("configuration: ") + e.what());
  }
}

// A Config with the minor in force: what every plugin and preemption run, and what the effective
// configuration says (the flag's or the file's choice; a server's is left out, so that the printed file
// follows its cluster).
static VersionInForce apply_version(Config& config, const VersionChoice& choice) {
  VersionInForce version = resolve_version(choice, config.kubernetes_version);
  config.args.version = version.version;
  if (version.source == VersionSource::kFlag) config.kubernetes_version = version.version;
  return version;
}

// kube-scheduler's own file: the chosen profile's plugins and pluginConfig, its extenders entries.
static LoadedFile load_scheduler_configuration(const rapidjson::Document& doc,
                                               std::string_view scheduler_name, const VersionChoice& choice) {
  SchedulerFile file = parse_scheduler_config_checked(doc, scheduler_name);
  const VersionInForce version = apply_version(file.config, choice);
  LoadedFile out{compile(file.config),
                 "KubeSchedulerConfiguration: profile \"" + file.profile + "\"'s plugins and pluginConfig",
                 config_to_json(file.config, true),
                 file.config.filters.size(),
                 file.config.scores.size(),
                 std::move(file.extenders),
                 true};
  out.version = version;
  return out;
}

static LoadedFile load_extender_configuration(const rapidjson::Document& doc, const VersionChoice& choice) {
  Config config = parse_config(doc);
  const VersionInForce version = apply_version(config, choice);
  LoadedFile out{compile(config),
                 "",
                 config_to_json(config, true),
                 config.filters.size(),
                 config.scores.size(),
                 std::vector<SchedulerExtender>()};
  out.usage = config.usage;
  out.version = version;
  return out;
}

// The legacy Policy decoder reads JSON text: a Policy written as YAML is handed over as JSON.
static LoadedFile load_legacy_policy(std::string_view text, const rapidjson::Document& doc, bool json,
                                     const VersionChoice& choice) {
  rapidjson::StringBuffer json_text;
  if (!json && !doc.IsNull()) {
    rapidjson::Writer<rapidjson::StringBuffer> w(json_text);
    doc.Accept(w);
  }
  const Policy policy =
      parse_policy(json ? text : std::string_view(json_text.GetString(), json_text.GetSize()));
  ConfigFromPolicy c = config_from_policy(policy);
  const VersionInForce version = resolve_version(choice, std::nullopt);
  if (c.config) apply_version(*c.config, choice);
  LoadedFile out{compile(policy, version.version),
                 legacy_policy_notice(policy),
                 c.config ? config_to_json(*c.config, true) : "",
                 policy.predicates.size(),
                 policy.priorities.size(),
                 std::vector<SchedulerExtender>()};
  out.version = version;
  return out;
}

LoadedFile load_scheduling_file(std::string_view text, std::string_view scheduler_name,
                                const VersionChoice& version) {
  const bool json = is_json(text);
  const rapidjson::Document doc = parse_file(text, json);
  const std::string_view api_version = api_version_of(doc);
  if (api_version.starts_with("kubescheduler.config.k8s.io/"))
    return load_scheduler_configuration(doc, scheduler_name, version);
  if (!scheduler_name.empty()) {
    policy_fail("--scheduler-name",
                "names a KubeSchedulerConfiguration's profile, but this file is no "
                "KubeSchedulerConfiguration (kind ExtenderConfiguration and Policy have one profile)");
  }
  if (api_version.starts_with("kube-extender.io/")) return load_extender_configuration(doc, version);
  return load_legacy_policy(text, doc, json, version);
}

std::vector<std::string> extender_entry_warnings(const std::vector<SchedulerExtender>& entries,
                                                 const ExtenderSettings& settings) {
  std::vector<std::string> out;
  // As the server serves it: "scheduler/" is "/scheduler".
  const std::string prefix_path = normalized_path_prefix(settings.path_prefix);
  for (size_t i = 0; i < entries.size(); ++i) {
    const SchedulerExtender& e = entries[i];
    const std::string entry = at("extenders", i);
    // With nodeCacheCapable the scheduler sends NodeNames only (extender.go HTTPExtender.Filter), which
    // this extender looks up in its cluster state.
    if (e.node_cache_capable && !settings.cluster_state) {
      out.push_back(entry +
                    ".nodeCacheCapable: true, but this extender has no cluster state (--in-cluster, "
                    "--kubeconfig, --api-server or --snapshot): every node will be \"not found\"");
    }
    if (!e.bind_verb.empty() && !settings.bind) {
      out.push_back(entry + ".bindVerb: \"" + e.bind_verb +
                    "\", but --enable-bind is not given: every bind the scheduler delegates here fails");
    }
    if (e.enable_https && !settings.tls) {
      out.push_back(entry + ".enableHTTPS: true, but this extender serves plain HTTP (no --tls-cert-file)");
    } else if (!e.enable_https && settings.tls) {
      out.push_back(entry + ".enableHTTPS: false, but this extender serves HTTPS (--tls-cert-file)");
    }
    if (const std::string path = url_path(e.url_prefix); path != prefix_path) {
      out.push_back(entry + ".urlPrefix: \"" + e.url_prefix + "\" has the path \"" + path +
                    "\", but --path-prefix is \"" + settings.path_prefix + "\": the verbs will answer 404");
    }
    if (!e.node_cache_capable && !e.filter_verb.empty() &&
        since::extender_filtered_nodes_score_idle(settings.version)) {
      out.push_back(entry + ".nodeCacheCapable: false with a filterVerb: kube-scheduler " +
                    settings.version.str() +
                    " scores NodeResourcesFit and NodeResourcesBalancedAllocation as if every node the "
                    "extender returns were idle (kubernetes issue #141781); set nodeCacheCapable: true" +
                    (settings.cluster_state ? "" : " and give this extender cluster state"));
    }
  }
  return out;
}

std::string effective_config_json(const LoadedFile& loaded) {
  if (loaded.effective_config.empty()) throw PolicyError("configuration: " + loaded.notice);
  return loaded.effective_config;
}

}  // namespace kext
