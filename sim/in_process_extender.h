#pragma once
// extender-sim --config EXTENDER-CONFIGURATION: the extender beside the scheduler profile, in process.
// kube-scheduler calls an extender after its own plugins (schedule_one.go findNodesThatFitPod: the
// extenders filter the nodes the profile's filters passed; prioritizeNodes: each extender's prioritize
// reply x (MaxNodeScore / MaxExtenderPriority) x its weight added to the profile's total). This backend
// answers those two calls with the extender's compiled configuration exactly as kube-extender's verbs
// answer them (extender/verbs/filter.cc, prioritize.cc), without HTTP and without a served API: the
// simulated cluster is the extender's cluster state.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "algorithms/engine.h"
#include "sim/core/cluster.h"
#include "sim/core/cycle.h"

namespace kext::simtool {

class InProcessExtender : public sim::CycleBackend {
 public:
  // `engine`: the extender's configuration compiled (policy/config.h load_scheduling_file).
  explicit InProcessExtender(std::shared_ptr<const Engine> engine) : engine_(std::move(engine)) {}

  // The filter verb's statuses: the extender's filters over `nodes`.
  std::vector<FilterStatus> filter(const sim::SimCluster& cluster, const Pod& pod,
                                   std::span<const NodeInfo* const> nodes) override;
  // The prioritize verb's reply (0..10): each plugin on the wire's scale, then the weighted mean.
  std::vector<int64_t> score(const sim::SimCluster& cluster, const Pod& pod,
                             std::span<const NodeInfo* const> nodes) override;
  // An extender without a preemptVerb: kube-scheduler keeps DefaultPreemption's candidates as they are
  // (preemption.go callExtenders skips an extender that does not SupportsPreemption). The extender's
  // own /preempt re-selects victims on state without the scheduler's nominations (docs/simulator.md),
  // so leaving the choice to the profile's dry runs is the faithful half.
  std::vector<preemption::Candidate> preempt(const sim::SimCluster& cluster, const Pod& pod,
                                             std::vector<preemption::Candidate> candidates) override;

  const Engine& engine() const { return *engine_; }
  const Engine* filter_engine() const override { return engine_.get(); }

 private:
  std::shared_ptr<const Engine> engine_;
};

}  // namespace kext::simtool
