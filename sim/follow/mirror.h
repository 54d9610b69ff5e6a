#pragma once
// One simulated policy following the live cluster: a sim::Simulator with its own engine (the
// --config loaded as run_sim loads it) to which every live event is applied, driven by the wall
// clock. The rules:
//  - nodes are mirrored: added, changed, deleted (with the pods the simulation bound to them);
//  - a pod first seen bound (at the first list, or created bound, as DaemonSet pods are) is added
//    bound on its node;
//  - a pod first seen pending enters the simulated queue at once; production's binding of it later
//    is production's (the Divergence records it) and is NOT applied here: the simulation places it;
//  - a live deletion, or a pod turning Succeeded or Failed, deletes it here whatever its state;
//  - a pod this simulation preempted stays gone from it: later live updates of it are ignored until
//    its live deletion (tombstones, bounded);
//  - other updates of a pod already here are ignored (nothing runs controllers; owners only label
//    the comparison);
//  - namespaces' labels and the selectors of Services, ReplicationControllers, ReplicaSets and
//    StatefulSets are mirrored whole, as PodTopologySpread and InterPodAffinity read them, from the
//    next cycle on.
#include <cstdint>
#include <iterator>
#include <map>
#include <ostream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/core/simulator.h"
#include "sim/follow/cluster_objects.h"
#include "sim/follow/divergence.h"
#include "sim/follow/live_stream.h"
#include "sim/run.h"

namespace kext::simtool::follow {

// The simulator's options for following: the configuration's preemption, --seed,
// --percentage-of-nodes-to-score, time 0 at `epoch_unix_seconds`, and no end.
sim::SimulatorOptions follow_options(const SimCommand& command, const SimConfig& config,
                                     int64_t epoch_unix_seconds);

class PolicyMirror {
 public:
  // Policy number `index` of `divergence`, named `name`. `log`, when given, gets each decision as a
  // decision_json line with "policy" added first.
  PolicyMirror(size_t index, std::string name, SimConfig config, sim::SimulatorOptions options,
               Divergence& divergence, std::ostream* log, size_t tombstone_limit = 100000);
  PolicyMirror(const PolicyMirror&) = delete;
  PolicyMirror& operator=(const PolicyMirror&) = delete;

  // Applies one live event at simulated time `at` (not before the last advance()).
  void apply(const LiveEvent& event, sim::SimTime at);
  // Runs the simulation up to `now`, feeding its bindings and evictions to the Divergence.
  void advance(sim::SimTime now);
  // When advance() next has something to do (sim::kNever: nothing until a live event).
  sim::SimTime next_due() const { return simulator_.next_due(); }

  const std::string& name() const { return name_; }
  const SimConfig& config() const { return config_; }
  // Counts since the start (the summary's latencies and pending series are not kept).
  const sim::RunSummary& summary() const { return summary_; }
  const sim::Simulator& simulator() const { return simulator_; }
  size_t tombstones() const { return tombstones_.size(); }

 private:
  void delete_pod(const std::string& uid, sim::SimTime at);
  void bury(const std::string& uid);
  void on_decision(const sim::CycleRecord& d);

  size_t index_;
  std::string name_;
  SimConfig config_;
  sim::Simulator simulator_;
  Divergence& divergence_;
  std::ostream* log_;
  size_t tombstone_limit_;
  sim::RunSummary summary_;
  std::unordered_set<std::string> present_;  // pods in the simulation (or arriving in it)
  std::unordered_set<std::string> nodes_;    // nodes added to it
  // Pods it preempted, until their live deletion: UID -> sequence, and sequence -> UID (oldest first,
  // dropped beyond tombstone_limit).
  std::unordered_map<std::string, uint64_t> tombstones_;
  std::map<uint64_t, std::string> tombstone_order_;
  uint64_t next_tombstone_ = 0;
  // PDBs, namespaces and workloads, handed to the simulator at the next advance(), once per batch of
  // events rather than per event.
  ClusterObjects objects_;
};

}  // namespace kext::simtool::follow
