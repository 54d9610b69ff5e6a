#pragma once
// The filter loop and the map/reduce scoring engine.
//
// Map: one task per node fills scores[algorithm][node] (each cell written by exactly one task, so no
// locks). Reduce: one task per algorithm that needs normalisation rewrites only its own row.
// Combine: Σ weight·score / Σ weight per node (integer division).
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "algorithms/parallel.h"
#include "algorithms/plugin.h"
#include "algorithms/semantics.h"

namespace kext {

struct WeightedScore {
  std::unique_ptr<ScorePlugin> plugin;
  int64_t weight = 1;
};

struct ScoreMatrix {
  size_t algorithms = 0;
  size_t nodes = 0;
  std::vector<int64_t> raw;      // [algorithm * nodes + node], after map, before reduce
  std::vector<int64_t> reduced;  // after reduce (equals raw for algorithms without one)
  // [node]: with ScoreScale::kExtenderReply the weighted mean on the reply's 0..10; with
  // kSchedulerTotal the sum of weight x score.
  std::vector<int64_t> combined;

  int64_t raw_at(size_t a, size_t n) const { return raw[a * nodes + n]; }
  int64_t at(size_t a, size_t n) const { return reduced[a * nodes + n]; }
};

// Which arithmetic Engine::score combines the plugins' scores with.
enum class ScoreScale {
  // The extender's prioritize reply: each plugin on the wire's 0..10 (on_wire_scale), then the
  // weighted mean, in integer division (MaxExtenderPriority).
  kExtenderReply,
  // kube-scheduler's own total (schedule_one.go prioritizeNodes, selectHost): the sum over plugins
  // of weight x score, each framework plugin on 0..100 (framework.MaxNodeScore), nothing divided.
  // Nodes that tie on the reply's scale are told apart here, as the scheduler tells them apart.
  kSchedulerTotal,
};

// The policy's parallelThreshold when it sets none.
inline constexpr size_t kDefaultParallelThreshold = 512;

struct EngineOptions {
  // Below this many nodes the loops run serially: TBB's fixed cost outweighs the gain (measured in
  // bench/engine_bench.cc; see docs/performance.md).
  size_t parallel_threshold = kDefaultParallelThreshold;
  // And below this much estimated serial work (nodes x the plugins' cost_per_node_ns): what a
  // parallel region costs in CPU afterwards (parallel.h).
  uint64_t parallel_min_work_ns = kDefaultParallelMinWorkNs;
  // Stop at the first failing filter (legacy default); true reports every filter's reasons.
  bool always_check_all_predicates = false;
  // The filters run in this semantics' order (filter_rank), whatever order they are given in.
  Semantics semantics = Semantics::kCurrent;
};

class Engine {
 public:
  // Orders the filters by filter_rank(name(), options.semantics); equal ranks (names filter_rank does
  // not know) keep the given order, after the known ones.
  Engine(std::vector<std::unique_ptr<FilterPlugin>> filters, std::vector<WeightedScore> scores,
         EngineOptions options = {});

  // Runs every filter's pre_filter once (kube-scheduler's PreFilter) into pod.filter_states; `nodes`
  // are the cluster when pod.cluster is null. filter() and fits() prepare a copy of an unprepared
  // pod themselves: callers that call them more than once for one pod prepare it first.
  void prepare(PodContext& pod, std::span<const NodeInfo* const> nodes) const;
  // One status per node, in input order: the first failing filter's status and reasons, or with
  // always_check_all_predicates every failing filter's reasons in run order, unresolvable if any
  // filter's is.
  std::vector<FilterStatus> filter(const PodContext& pod, std::span<const NodeInfo* const> nodes) const;
  // filter() without the reasons: one code per node. A failing node's reasons are dropped as soon as
  // they are made, so that filtering every node of a large cluster keeps no string per failing node
  // alive (extender-sim --follow judges each of production's decisions over every node).
  std::vector<FilterCode> filter_codes(const PodContext& pod, std::span<const NodeInfo* const> nodes) const;
  // `pod` as placed on `node` before its bind: each filter's reserve in turn (FilterPlugin::reserve);
  // `pod` itself when none records anything.
  std::shared_ptr<const Pod> reserve(std::shared_ptr<const Pod> pod, const NodeInfo& node) const;
  // Runs only the filters: true if the pod fits the node (used by preemption's dry runs).
  bool fits(const PodContext& pod, const NodeInfo& node) const;
  // raw and reduced hold each plugin's scores on `scale`'s scale (the reply's 0..10, or 0..100).
  ScoreMatrix score(const PodContext& pod, std::span<const NodeInfo* const> nodes,
                    ScoreScale scale = ScoreScale::kExtenderReply) const;

  const std::vector<std::unique_ptr<FilterPlugin>>& filters() const { return filters_; }
  const std::vector<WeightedScore>& scores() const { return scores_; }
  const EngineOptions& options() const { return options_; }
  ParallelLimits parallel_limits() const {
    return {options_.parallel_threshold, options_.parallel_min_work_ns};
  }
  // Whether filter() / score() of this many nodes runs its loop over nodes in parallel.
  bool filters_in_parallel(size_t nodes) const;
  bool scores_in_parallel(size_t nodes) const;
  // Whether any plugin reads PodContext::cluster: then callers pass every node of the cluster.
  bool reads_cluster() const { return reads_cluster_; }
  // Σ cost_per_node_ns of the filters: what fits() costs on one node.
  uint64_t filter_cost_per_node_ns() const { return filter_cost_ns_; }

 private:
  // One node through the request's filters (those whose can_fail), into out: code and reasons.
  void filter_one(std::span<const FilterPlugin* const> filters, const PodContext& pod, const NodeInfo& node,
                  FilterStatus& out) const;

  std::vector<std::unique_ptr<FilterPlugin>> filters_;
  std::vector<WeightedScore> scores_;
  EngineOptions options_;
  uint64_t filter_cost_ns_ = 0;
  bool reads_cluster_ = false;
  uint64_t score_cost_ns_ = 0;
  uint64_t reduce_cost_ns_ = 0;  // per node: the normalisations of the plugins that have a reduce
};

}  // namespace kext
