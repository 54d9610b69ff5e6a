#include "sim/follow/mirror.h"

#include <chrono>
#include <utility>

#include "json/json.h"
#include "sim/decision_log.h"

namespace kext::simtool::follow {

namespace {

// An empty cluster whose binds give pods their cards when the policy shares GPUs.
sim::SimCluster cluster_for(const SimConfig& config) {
  sim::SimCluster cluster;
  cluster.set_gpu_sharing(config.gpu_sharing);
  return cluster;
}

}  // namespace

sim::SimulatorOptions follow_options(const SimCommand& command, const SimConfig& config,
                                     int64_t epoch_unix_seconds) {
  // The policy was loaded with the flags that give an extender's configuration its scheduler profile
  // and weight (load_sim_config(command, ...)); a policy loaded without them would silently run
  // another profile.
  if (config.scheduler_config_file != command.scheduler_config_file ||
      (command.extender_weight && config.extender_weight_flag != command.extender_weight)) {
    throw InputError("--scheduler-config and --extender-weight: policy " +
                     (config.file.empty() ? std::string("default") : config.file) +
                     " was not loaded with them (sim/run.h load_sim_config(command, file))");
  }
  sim::SimulatorOptions o;
  apply(config, o);  // the scheduler profile's preemption, the in-process extender, the scoring
  o.seed = command.seed;
  o.percentage_of_nodes_to_score = command.percentage_of_nodes_to_score;
  o.epoch_unix_seconds = epoch_unix_seconds;
  // Following has no end; simulated time is the wall time since the start (about 30 years).
  o.max_time = std::chrono::hours(24 * 365 * 30);
  o.record_moves = false;  // the log would grow with every queue move; decisions are what is compared
  return o;
}

PolicyMirror::PolicyMirror(size_t index, std::string name, SimConfig config, sim::SimulatorOptions options,
                           Divergence& divergence, std::ostream* log, size_t tombstone_limit)
    : index_(index),
      name_(std::move(name)),
      config_(std::move(config)),
      simulator_(cluster_for(config_), *config_.engine, options),
      divergence_(divergence),
      log_(log),
      tombstone_limit_(tombstone_limit) {}

void PolicyMirror::delete_pod(const std::string& uid, sim::SimTime at) {
  present_.erase(uid);
  try {
    simulator_.delete_pod(uid, at);
  } catch (const sim::ClusterError&) {
    // Gone from the simulation already: with its node, or as a victim after its grace period.
  }
}

void PolicyMirror::bury(const std::string& uid) {
  present_.erase(uid);
  if (tombstones_.count(uid) != 0) return;
  tombstones_.emplace(uid, next_tombstone_);
  tombstone_order_.emplace(next_tombstone_++, uid);
  while (tombstones_.size() > tombstone_limit_) {
    auto oldest = tombstone_order_.begin();
    tombstones_.erase(oldest->second);
    tombstone_order_.erase(oldest);
  }
}

void PolicyMirror::apply(const LiveEvent& e, sim::SimTime at) {
  using Kind = LiveEvent::Kind;
  switch (e.kind) {
    case Kind::kNodeUpsert:
      if (nodes_.insert(e.node.name).second) {
        try {
          simulator_.add_node(e.node, at);
        } catch (const sim::ClusterError&) {
          // Deleted and added again in one batch: let the deletion happen first.
          advance(at);
          simulator_.add_node(e.node, at);
        }
      } else {
        simulator_.change_node(e.node, at);
      }
      return;
    case Kind::kNodeDelete:
      if (nodes_.erase(e.node.name) != 0) simulator_.delete_node(e.node.name, at);
      return;
    case Kind::kPriorityClass:
      return;  // resolved into the pods before they get here
    case Kind::kPdbUpsert:
    case Kind::kPdbDelete:
    case Kind::kNamespaceUpsert:
    case Kind::kNamespaceDelete:
    case Kind::kWorkloadUpsert:
    case Kind::kWorkloadDelete:
      objects_.apply(e);
      return;
    case Kind::kPodDelete: {
      const std::string& uid = e.pod.pod.uid;
      if (auto t = tombstones_.find(uid); t != tombstones_.end()) {
        tombstone_order_.erase(t->second);
        tombstones_.erase(t);
        delete_pod(uid, at);  // a victim still in its grace period here
        return;
      }
      if (present_.count(uid) != 0) delete_pod(uid, at);
      return;
    }
    case Kind::kPodUpsert: {
      const Pod& pod = e.pod.pod;
      if (tombstones_.count(pod.uid) != 0) return;  // preempted here: gone for good
      const bool present = present_.count(pod.uid) != 0;
      // Finished (Succeeded, Failed), or deleted while still pending: gone.
      if (pod.is_terminal() || (pod.node_name.empty() && pod.terminating)) {
        if (present) delete_pod(pod.uid, at);
        return;
      }
      if (present) return;  // production's binding, or an update of a pod already here
      if (pod.node_name.empty()) {
        simulator_.add_pending(pod, at);
      } else {
        simulator_.add_bound(pod, at);
      }
      present_.insert(pod.uid);
      return;
    }
  }
}

void PolicyMirror::on_decision(const sim::CycleRecord& d) {
  if (d.outcome == sim::Outcome::kScheduled) {
    divergence_.simulated_bound(index_, d.uid, d.node);
  } else if (d.outcome == sim::Outcome::kPreempted) {
    for (const std::string& v : d.victims) {
      if (tombstones_.count(v) != 0) continue;  // chosen again while terminating
      bury(v);
      divergence_.simulated_preempted(index_, v);
    }
  }
  if (log_ != nullptr) {
    const std::string line = decision_json(d);
    // {"policy":"<name>", then the decision's own fields.
    rapidjson::StringBuffer name;
    rapidjson::Writer<rapidjson::StringBuffer> w(name);
    w.String(name_.c_str(), static_cast<rapidjson::SizeType>(name_.size()));
    *log_ << "{\"policy\":" << name.GetString() << "," << std::string_view(line).substr(1) << '\n';
  }
}

void PolicyMirror::advance(sim::SimTime now) {
  objects_.publish(simulator_);
  simulator_.run_until(now, summary_, [this](const sim::CycleRecord& d) { on_decision(d); });
  // Only the counts are kept: following has no end, so no series grows with it.
  summary_.latencies.clear();
  summary_.pending_over_time.clear();
}

}  // namespace kext::simtool::follow
