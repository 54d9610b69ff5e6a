#pragma once
// The legacy kube-scheduler Policy file shape, validated once at start-up into a plain struct, and
// compiled into the Profile the verbs run.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/catalogue.h"
#include "algorithms/engine.h"
#include "algorithms/preemption/preemption.h"

namespace kext {

struct PolicyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws PolicyError("<path>: <what>"), the form of every configuration error.
[[noreturn]] void policy_fail(const std::string& path, const std::string& what);

struct PredicatePolicy {
  std::string name;
};

struct PriorityPolicy {
  std::string name;
  int64_t weight = 1;
  ScoreArgs args;
};

struct PreemptionPolicy {
  // "current" | "v1.16"; compile() makes it the profile's Semantics: preemption's, and the order the
  // engine runs the predicates in (filter_rank).
  std::string semantics = "current";
  int64_t max_candidates = static_cast<int64_t>(preemption::kDefaultMaxCandidates);
  bool operator==(const PreemptionPolicy&) const = default;
};

struct Policy {
  std::vector<PredicatePolicy> predicates;  // as listed; the engine orders them by the semantics
  std::vector<PriorityPolicy> priorities;
  bool always_check_all_predicates = false;
  PreemptionPolicy preemption;
  // Engine: serial below this many nodes: on 2 cores scoring and filtering in parallel break even only
  // at several hundred nodes (bench/engine_bench.cc, all algorithms).
  int64_t parallel_threshold = static_cast<int64_t>(kDefaultParallelThreshold);
  // And below this much estimated serial work, in microseconds (parallel.h: why 400).
  int64_t parallel_min_work_us = static_cast<int64_t>(kDefaultParallelMinWorkNs / 1000);
};

// parallelMinWorkMicroseconds' upper bound: an hour of work, so that the product in nanoseconds
// cannot overflow.
inline constexpr int64_t kMaxParallelMinWorkUs = 3'600'000'000;

// The policy the server runs without --policy.
std::string_view default_policy_json();

// Throws PolicyError whose message names the offending field (e.g. "priorities[1].weight: must be >= 1").
Policy parse_policy(std::string_view text);

std::unique_ptr<Engine> build_engine(const Policy& policy);

// What the preempt verb runs with.
struct PreemptionProfile {
  // select_candidates' options: the policy's semantics, and no candidate dropped (the verb orders the
  // nodes it passes through with them, then keeps max_candidates).
  preemption::Options select;
  size_t max_candidates = preemption::kDefaultMaxCandidates;  // nodes in the reply, best first; >= 1
};

// A policy compiled once at start-up into what the verbs run: they read this, never the Policy.
struct Profile {
  Engine engine;
  PreemptionProfile preemption;
  // Gang scheduling's topology levels, coarse to fine (node label keys: a block, a rack, the
  // hostname), that a group's preferred topology falls back through (gang::Gatekeeper::
  // set_topology_levels). An ExtenderConfiguration's gang.topologyLevels; empty for the other files.
  std::vector<std::string> topology_levels{};
  // The kube-scheduler minor whose semantics the plugins and preemption reproduce.
  KubeVersion version{};
  // GPUShare's settings when the profile filters with it: /bind then allocates the pod's GPUs
  // (extender/gpu/gpu_binder.h).
  std::optional<gpu::SharingConfig> gpu_sharing{};
};

// `version`: the kube-scheduler minor the filters and preemption reproduce (policy/version_choice.h).
Profile compile(const Policy& policy, KubeVersion version = KubeVersion::newest());

// The preemption section (legacy Policy and ExtenderConfiguration alike) compiled.
// `parallel_min_work_ns`: the engine's work floor, which the dry runs share (their own node floor
// stays 16).
PreemptionProfile preemption_profile(const PreemptionPolicy& policy, uint64_t parallel_min_work_ns);
// One semantics decides the filter order and status (the engine) and preemption's rules.
Semantics semantics_of(const PreemptionPolicy& policy);

}  // namespace kext
