#include "policy/policy.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>

#include "json/json.h"

namespace kext {

void policy_fail(const std::string& path, const std::string& what) { throw PolicyError(path + ": " + what); }

namespace {

using json::Value;

// A short embedded default: every filter, and the legacy DefaultProvider's node-level priorities.
constexpr std::string_view kDefaultPolicy = R"({
  "kind": "Policy",
  "apiVersion": "v1",
  "predicates": [
    {"name": "CheckNodeUnschedulable"},
    {"name": "PodFitsHost"},
    {"name": "MatchNodeSelector"},
    {"name": "PodFitsResources"},
    {"name": "PodToleratesNodeTaints"}
  ],
  "priorities": [
    {"name": "LeastRequestedPriority", "weight": 1},
    {"name": "BalancedResourceAllocation", "weight": 1},
    {"name": "NodeAffinityPriority", "weight": 1},
    {"name": "TaintTolerationPriority", "weight": 1},
    {"name": "ImageLocalityPriority", "weight": 1}
  ],
  "preemption": {"semantics": "current", "maxCandidates": 1}
})";

std::string known_list(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

// A member the legacy file format does not have is an error naming it, not silently ignored (a
// misspelt "priorites" used to load the default priorities). Keys match case-insensitively, as
// json::find looks them up.
void check_fields(const Value& obj, const std::string& path, std::initializer_list<std::string_view> known) {
  if (!obj.IsObject()) return;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    const std::string_view name = json::view(it->name);
    const bool ok =
        std::any_of(known.begin(), known.end(), [&](std::string_view k) { return json::iequals(k, name); });
    if (!ok) {
      policy_fail(json::join_path(path, name),
                  "unknown field (known: " + known_list(std::vector<std::string_view>(known)) + ")");
    }
  }
}

std::string elem(std::string_view path, size_t i) {
  return std::string(path) + "[" + std::to_string(i) + "]";
}

// Optional string member: "" when absent or null; any other type is the policy's error, not the
// generic DecodeError json::get_string would throw.
std::string get_string(const Value& obj, std::string_view key, std::string_view path) {
  const Value* v = json::find_non_null(obj, key);
  if (!v) return {};
  if (!v->IsString())
    policy_fail(json::join_path(path, key), std::string("must be a string, got ") + json::type_name(*v));
  return std::string(json::view(*v));
}

bool get_bool(const Value& obj, std::string_view key, std::string_view path) {
  const Value* v = json::find_non_null(obj, key);
  if (!v) return false;
  if (!v->IsBool())
    policy_fail(json::join_path(path, key), std::string("must be a boolean, got ") + json::type_name(*v));
  return v->GetBool();
}

int64_t get_integer(const Value& obj, std::string_view key, std::string_view path, int64_t fallback) {
  const Value* v = json::find_non_null(obj, key);
  if (!v) return fallback;
  if (!v->IsInt64()) policy_fail(json::join_path(path, key), "must be an integer");
  return v->GetInt64();
}

std::string get_name(const Value& entry, const std::string& path) {
  if (!entry.IsObject()) policy_fail(path, "must be an object");
  const Value* name = json::find_non_null(entry, "name");
  if (!name) policy_fail(path + ".name", "missing");
  if (!name->IsString()) policy_fail(path + ".name", "must be a string");
  return std::string(json::view(*name));
}

RequestedToCapacityRatioArgs parse_rtcr(const Value& v, const std::string& path) {
  if (!v.IsObject()) policy_fail(path, "must be an object");
  check_fields(v, path, {"shape", "resources"});
  RequestedToCapacityRatioArgs args;
  const Value* shape = json::find_non_null(v, "shape");
  if (!shape) policy_fail(path + ".shape", "missing");
  if (!shape->IsArray() || shape->Empty()) policy_fail(path + ".shape", "must be a non-empty array");
  for (rapidjson::SizeType i = 0; i < shape->Size(); ++i) {
    std::string p = elem(path + ".shape", i);
    const Value& pt = (*shape)[i];
    if (!pt.IsObject()) policy_fail(p, "must be an object");
    check_fields(pt, p, {"utilization", "score"});
    UtilizationShapePoint point;
    point.utilization = get_integer(pt, "utilization", p, 0);
    point.score = get_integer(pt, "score", p, 0);
    if (point.utilization < 0 || point.utilization > 100)
      policy_fail(p + ".utilization", "must be in 0..100");
    if (point.score < 0 || point.score > 10) policy_fail(p + ".score", "must be in 0..10");
    if (i > 0 && point.utilization <= args.shape.back().utilization) {
      policy_fail(p + ".utilization", "must be strictly increasing");
    }
    args.shape.push_back(point);
  }
  if (const Value* res = json::find_non_null(v, "resources")) {
    if (!res->IsArray()) policy_fail(path + ".resources", "must be an array");
    std::set<std::string> seen;
    for (rapidjson::SizeType i = 0; i < res->Size(); ++i) {
      std::string p = elem(path + ".resources", i);
      ResourceWeight rw;
      rw.name = get_name((*res)[i], p);
      check_fields((*res)[i], p, {"name", "weight"});
      rw.weight = get_integer((*res)[i], "weight", p, 1);
      if (rw.weight < 1) policy_fail(p + ".weight", "must be >= 1");
      if (!seen.insert(rw.name).second) policy_fail(p + ".name", "duplicate resource \"" + rw.name + "\"");
      args.resources.push_back(std::move(rw));
    }
  }
  return args;
}

ScoreArgs parse_score_args(const std::string& name, const Value& entry, const std::string& path) {
  ScoreArgs args;
  const Value* argument = json::find_non_null(entry, "argument");
  if (name == "RequestedToCapacityRatioPriority") {
    if (argument && !argument->IsObject()) policy_fail(path + ".argument", "must be an object");
    if (argument) check_fields(*argument, path + ".argument", {"requestedToCapacityRatioArguments"});
    const Value* rtcr =
        argument ? json::find_non_null(*argument, "requestedToCapacityRatioArguments") : nullptr;
    if (!rtcr) policy_fail(path + ".argument.requestedToCapacityRatioArguments", "missing");
    args.requested_to_capacity_ratio =
        parse_rtcr(*rtcr, path + ".argument.requestedToCapacityRatioArguments");
  } else if (argument) {
    policy_fail(path + ".argument", "priority " + name + " takes no argument");
  }
  return args;
}

// The policy's preemption.semantics values.
std::optional<preemption::Semantics> semantics_named(std::string_view name) {
  if (name == "current") return preemption::Semantics::kCurrent;
  if (name == "v1.16") return preemption::Semantics::kV1_16;
  return std::nullopt;
}

Engine engine_for(const Policy& policy, KubeVersion version) {
  PluginArgs args;
  args.version = version;
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  for (const auto& p : policy.predicates) filters.push_back(make_filter(p.name, args));
  std::vector<WeightedScore> scores;
  for (const auto& p : policy.priorities) scores.push_back({make_score(p.name, p.args), p.weight});
  EngineOptions options;
  options.parallel_threshold = static_cast<size_t>(policy.parallel_threshold);
  options.parallel_min_work_ns = static_cast<uint64_t>(policy.parallel_min_work_us) * 1000;
  options.always_check_all_predicates = policy.always_check_all_predicates;
  options.semantics = semantics_of(policy.preemption);  // the engine runs the filters in its order
  return Engine(std::move(filters), std::move(scores), options);
}

}  // namespace

// parse_policy accepted only known names; a hand-built Policy with another falls back to the default.
Semantics semantics_of(const PreemptionPolicy& policy) {
  return semantics_named(policy.semantics).value_or(Semantics::kCurrent);
}

std::string_view default_policy_json() { return kDefaultPolicy; }

// The "predicates" list: each a known filter, named once.
static std::vector<PredicatePolicy> parse_predicates(const Value& preds) {
  if (!preds.IsArray()) policy_fail("predicates", "must be an array");
  std::vector<PredicatePolicy> out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < preds.Size(); ++i) {
    std::string p = elem("predicates", i);
    std::string name = get_name(preds[i], p);
    check_fields(preds[i], p, {"name"});
    const auto legacy_names = filter_names();
    if (std::find(legacy_names.begin(), legacy_names.end(), name) == legacy_names.end())
      policy_fail(p + ".name",
                  "unknown predicate \"" + name + "\" (known: " + known_list(filter_names()) + ")");
    if (!seen.insert(name).second) policy_fail(p + ".name", "duplicate predicate \"" + name + "\"");
    out.push_back({name});
  }
  return out;
}

// One "priorities" entry at `p`: a known score not in `seen` (then added), its explicit weight, and
// its argument.
static PriorityPolicy parse_priority(const Value& entry, const std::string& p, std::set<std::string>& seen) {
  PriorityPolicy prio;
  prio.name = get_name(entry, p);
  check_fields(entry, p, {"name", "weight", "argument"});
  const auto known = score_names();
  if (std::find(known.begin(), known.end(), prio.name) == known.end()) {
    policy_fail(p + ".name",
                "unknown priority \"" + prio.name + "\" (known: " + known_list(score_names()) + ")");
  }
  if (!seen.insert(prio.name).second) policy_fail(p + ".name", "duplicate priority \"" + prio.name + "\"");
  const Value* weight = json::find_non_null(entry, "weight");
  if (!weight) policy_fail(p + ".weight", "missing (every priority needs an explicit weight)");
  if (!weight->IsInt64()) policy_fail(p + ".weight", "must be an integer");
  prio.weight = weight->GetInt64();
  if (prio.weight < 1) policy_fail(p + ".weight", "must be >= 1, got " + std::to_string(prio.weight));
  if (prio.weight > 1000000) policy_fail(p + ".weight", "must be <= 1000000");
  prio.args = parse_score_args(prio.name, entry, p);
  return prio;
}

// The "priorities" list: each named once.
static std::vector<PriorityPolicy> parse_priorities(const Value& prios) {
  if (!prios.IsArray()) policy_fail("priorities", "must be an array");
  std::vector<PriorityPolicy> out;
  std::set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < prios.Size(); ++i) {
    out.push_back(parse_priority(prios[i], elem("priorities", i), seen));
  }
  return out;
}

// The "preemption" object over the defaults already in `out`.
static void parse_preemption(const Value& pre, PreemptionPolicy& out) {
  if (!pre.IsObject()) policy_fail("preemption", "must be an object");
  check_fields(pre, "preemption", {"semantics", "maxCandidates"});
  std::string sem = get_string(pre, "semantics", "preemption");
  if (!sem.empty()) {
    if (!semantics_named(sem))
      policy_fail("preemption.semantics", "must be \"current\" or \"v1.16\", got \"" + sem + "\"");
    out.semantics = sem;
  }
  out.max_candidates = get_integer(pre, "maxCandidates", "preemption", out.max_candidates);
  if (out.max_candidates < 1) policy_fail("preemption.maxCandidates", "must be >= 1");
}

// When the engine's loops go parallel: parallelThreshold and parallelMinWorkMicroseconds.
static void parse_parallelism(const Value& doc, Policy& policy) {
  policy.parallel_threshold = get_integer(doc, "parallelThreshold", "", policy.parallel_threshold);
  if (policy.parallel_threshold < 0) policy_fail("parallelThreshold", "must be >= 0");
  policy.parallel_min_work_us =
      get_integer(doc, "parallelMinWorkMicroseconds", "", policy.parallel_min_work_us);
  if (policy.parallel_min_work_us < 0 || policy.parallel_min_work_us > kMaxParallelMinWorkUs) {
    policy_fail("parallelMinWorkMicroseconds", "must be in 0.." + std::to_string(kMaxParallelMinWorkUs));
  }
}

// A missing list means "the default policy's list" (as the legacy provider defaults did); an empty
// list means none.
static Policy parse_policy_impl(std::string_view text, bool parsing_default) {
  rapidjson::Document doc;
  doc.Parse<json::kParseFlags>(text.data(), text.size());
  if (doc.HasParseError()) {
    policy_fail("policy", std::string("malformed JSON at offset ") + std::to_string(doc.GetErrorOffset()) +
                              ": " + rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject()) policy_fail("policy", "must be a JSON object");
  check_fields(doc, "",
               {"kind", "apiVersion", "predicates", "priorities", "alwaysCheckAllPredicates", "preemption",
                "parallelThreshold", "parallelMinWorkMicroseconds"});
  std::string kind = get_string(doc, "kind", "");
  if (!kind.empty() && kind != "Policy") policy_fail("kind", "must be \"Policy\", got \"" + kind + "\"");

  Policy policy;
  const Value* preds = json::find(doc, "predicates");
  if (preds && !preds->IsNull()) {
    policy.predicates = parse_predicates(*preds);
  } else if (!parsing_default) {
    policy.predicates = parse_policy_impl(kDefaultPolicy, true).predicates;
  }
  const Value* prios = json::find(doc, "priorities");
  if (prios && !prios->IsNull()) {
    policy.priorities = parse_priorities(*prios);
  } else if (!parsing_default) {
    policy.priorities = parse_policy_impl(kDefaultPolicy, true).priorities;
  }
  if (policy.predicates.empty() && policy.priorities.empty()) {
    policy_fail("policy", "enables no predicate and no priority");
  }
  policy.always_check_all_predicates = get_bool(doc, "alwaysCheckAllPredicates", "");
  if (const Value* pre = json::find_non_null(doc, "preemption")) parse_preemption(*pre, policy.preemption);
  parse_parallelism(doc, policy);
  return policy;
}

Policy parse_policy(std::string_view text) {
  try {
    return parse_policy_impl(text, false);
  } catch (const DecodeError& e) {
    // Every field above is type-checked with a PolicyError of its own; this only keeps the documented
    // contract should a JSON helper's own check (or RapidJSON's invariant net) ever fire.
    throw PolicyError(std::string("policy: ") + e.what());
  }
}

std::unique_ptr<Engine> build_engine(const Policy& policy) {
  return std::make_unique<Engine>(engine_for(policy, KubeVersion::newest()));
}

PreemptionProfile preemption_profile(const PreemptionPolicy& policy, uint64_t parallel_min_work_ns) {
  PreemptionProfile preemption;
  preemption.select.parallel.min_work_ns = parallel_min_work_ns;
  preemption.select.semantics = semantics_of(policy);
  preemption.select.max_candidates = std::numeric_limits<size_t>::max();
  preemption.max_candidates = static_cast<size_t>(std::max<int64_t>(policy.max_candidates, 1));
  return preemption;
}

Profile compile(const Policy& policy, KubeVersion version) {
  Engine engine = engine_for(policy, version);
  PreemptionProfile preemption = preemption_profile(policy.preemption, engine.options().parallel_min_work_ns);
  preemption.select.version = version;
  return Profile{std::move(engine), std::move(preemption), {}, version};
}

}  // namespace kext
