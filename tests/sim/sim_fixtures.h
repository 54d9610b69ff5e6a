#pragma once
// What the simulator's tests build from: a pod with a CPU request and a priority, running (bound,
// started at `start`) when it names a node and pending otherwise, and an engine that fits and spreads
// by CPU and memory.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "algorithms/engine.h"
#include "policy/policy.h"
#include "tests/support/test_builders.h"

namespace kext::sim::testing {

inline constexpr int64_t kEpoch = 1'700'000'000;

inline Pod sim_pod(std::string name, int64_t cpu_milli, int32_t priority, std::string node = "",
                   int64_t start = kEpoch) {
  Pod p = kext::testing::make_pod(std::move(name), cpu_milli, kext::testing::GiB / 4);
  p.priority = priority;
  p.node_name = std::move(node);
  if (!p.node_name.empty()) {
    p.phase = "Running";
    p.start_time = start;
  }
  return p;
}

inline std::unique_ptr<Engine> least_requested_engine() {
  return build_engine(parse_policy(R"({"predicates":[{"name":"PodFitsResources"}],
      "priorities":[{"name":"LeastRequestedPriority","weight":1}]})"));
}

}  // namespace kext::sim::testing
