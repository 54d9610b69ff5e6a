#pragma once
// POST /capacity: "how many more of this pod fit now?", answered on the extender's live state as
// `extender-sim capacity --pod` answers it on a file (sim/capacity/how_many_fit.h): kube-scheduler's
// default profile of the cluster's minor with this extender beside it, copies placed one after another,
// none preempting.
//
// It changes nothing: the copies go into a simulated cluster made from the state's current view, which
// is dropped with the answer. Its work is bounded: one question at a time (another gets 429), a time
// and a node-check budget per question (an answer cut short says so and is a lower bound). It stays
// off the verbs' path: the question runs on a thread of its own at nice 10, its loops on that thread
// alone (a oneTBB arena of one), so that the verbs' workers and their parallel loops keep the CPU.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "extender/http/router.h"
#include "extender/observe/metrics.h"
#include "kube/state/cluster_state.h"
#include "sim/run.h"

namespace kext::capacity {

struct CapacityLimits {
  // The longest a question may take (--capacity-max-seconds); a question may ask for less
  // (?timeoutSeconds=).
  std::chrono::milliseconds max_time{2000};
  // The node checks one question may spend (--capacity-max-node-checks).
  size_t max_node_checks = 2'000'000;
};

class CapacityService {
 public:
  // config: the run the questions are answered under (simtool::sim_config_of_text of the extender's own
  // configuration). state and metrics (may be null) must outlive it.
  CapacityService(simtool::SimConfig config, const StateStore& state, CapacityLimits limits,
                  Metrics* metrics);

  // POST /capacity[?max=N][&timeoutSeconds=S], the body a Pod, or a group (a workload's pods, or a
  // PodGroup and its members) answered in whole groups, JSON or YAML: 200 with the answer as
  // `extender-sim capacity --json` writes it; 400 for a body or parameter it cannot use, 429 while
  // another question runs, 503 before the watch has listed the cluster.
  void serve(Exchange& x) const;

 private:
  simtool::SimConfig config_;
  const StateStore& state_;
  CapacityLimits limits_;
  Metrics* metrics_;
  mutable std::atomic<bool> busy_{false};
};

// The handler of POST /capacity, for the verbs' listener (not the metrics one: a question costs CPU).
Handler capacity_handler(const CapacityService& service);

}  // namespace kext::capacity
