#pragma once
// What the simulator's tests build from: a pod with a CPU request and a priority, running (bound,
// started at `start`) when it names a node and pending otherwise, and an engine that fits and spreads
// by CPU and memory.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "algorithms/engine.h"
#include "policy/policy.h"
#include "sim/core/cycle.h"
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

// Three 1-CPU nodes and the queue, clock and generator a simulation would hold, for run_cycle.
struct CycleSim {
  std::unique_ptr<Engine> engine = least_requested_engine();
  SimCluster cluster;
  VirtualClock clock;
  SchedulingQueue queue{clock};
  SchedulerState state;
  CycleConfig config;

  CycleSim() {
    config.engine = engine.get();
    config.epoch_unix_seconds = kEpoch;
    for (const char* n : {"n1", "n2", "n3"}) {
      cluster.add_node(kext::testing::make_node(n, 1000, 4 * kext::testing::GiB));
    }
  }
  void pending(Pod p) {
    const std::string uid = p.uid;
    const int32_t prio = p.effective_priority();
    cluster.add_pod(std::move(p));
    queue.add(uid, prio);
  }
  std::optional<CycleRecord> cycle() { return run_cycle(queue, cluster, config, state, clock.now()); }
};

// extender-sim's input files for a whole run: a scratch directory per test.
struct SimFiles {
  std::filesystem::path dir;
  explicit SimFiles(const std::string& name)
      : dir(std::filesystem::temp_directory_path() /
            ("extender-sim-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir);
  }
  ~SimFiles() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    const auto path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
};

// A 1-CPU, 4Gi node as a cluster file has it.
inline std::string small_node_json(const std::string& name) {
  return R"({"kind":"Node","metadata":{"name":")" + name +
         R"("},"status":{"allocatable":{"cpu":"1","memory":"4Gi","pods":"110"}}})";
}

// A running priority-0 pod of 500m with a 10 s grace period, started `start` (RFC 3339).
inline std::string running_pod_json(const std::string& name, const std::string& node,
                                    const std::string& start) {
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"batch","uid":"u-)" + name +
         R"("},"spec":{"nodeName":")" + node +
         R"(","terminationGracePeriodSeconds":10,"containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]},)"
         R"("status":{"phase":"Running","startTime":")" +
         start + R"("}})";
}

}  // namespace kext::sim::testing
