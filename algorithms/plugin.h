#pragma once
// The two plugin interfaces every filter and score implements (kube-scheduler framework style).
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/model.h"
#include "algorithms/node_usage.h"

namespace kext {

inline constexpr int64_t kMaxScore = 10;  // extender scores are 0..10 (MaxExtenderPriority)
// The framework plugins' 0..100 scale (framework.MaxNodeScore); a plugin on it reaches the wire as
// score / kWireDivisor, integer division.
inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kWireDivisor = kMaxNodeScore / kMaxScore;

class PodGroups;

// How many nodes carry each value of a label key, for every key: kept by the extender's cluster state
// as nodes change, so that PodTopologySpread knows a constraint's domains without reading 5,000 nodes'
// labels (one cache miss each, most of PreFilter: bench/topology_bench.cc BM_TopologyRequest).
struct LabelValues {
  size_t nodes = 0;                                   // nodes with the key
  std::map<std::string, size_t, std::less<>> values;  // value -> nodes with it
  bool operator==(const LabelValues&) const = default;
};
using NodeLabelIndex = std::map<std::string, LabelValues, std::less<>>;

// A workload object's selector, as the system default spreading reads it (helper.DefaultSelector):
// a Service's or ReplicationController's spec.selector (match_labels only), a ReplicaSet's or
// StatefulSet's spec.selector.
struct WorkloadSelector {
  std::string namespace_;
  std::string name;
  LabelSelector selector;
};

// The cluster beyond the nodes of one request: what kube-scheduler's PreFilter and PreScore read
// from its snapshot (every node, with its pods), and the objects that select pods.
struct ClusterView {
  std::span<const NodeInfo* const> nodes;  // every node of the cluster, each with its pods
  // Namespace name -> labels (namespaceSelector); nullptr: unknown, a namespaceSelector then matches
  // only by the namespaces list.
  const std::map<std::string, Labels, std::less<>>* namespace_labels = nullptr;
  std::span<const WorkloadSelector> services;
  std::span<const WorkloadSelector> replication_controllers;
  std::span<const WorkloadSelector> replica_sets;
  std::span<const WorkloadSelector> stateful_sets;
  // The nodes' pods in groups (pod_groups.h), nullptr: walk every node's pods.
  const PodGroups* pod_groups = nullptr;
  // The label values of `nodes`, nullptr: read every node's labels.
  const NodeLabelIndex* node_labels = nullptr;
  // What the nodes really use (node_usage.h), nullptr: no usage source; the load plugins are neutral.
  const UsageView* usage = nullptr;
  // The extended resource names DeviceClasses back with DRA devices (DRAExtendedResource): each
  // class's spec.extendedResourceName and its implicit "deviceclass.resource.kubernetes.io/<name>".
  // nullptr: none known.
  const std::set<std::string, std::less<>>* dra_extended_resources = nullptr;
};

class FilterPlugin;
struct PodContext;

// What a filter computes once per request before its loop over nodes (kube-scheduler's PreFilter
// state in the CycleState): topology counts, the existing pods' terms. Preemption's dry run clones it
// per node and updates it as it removes and re-adds victims (PreFilterExtensions.RemovePod/AddPod).
class FilterState {
 public:
  virtual ~FilterState() = default;
  virtual std::unique_ptr<FilterState> clone() const = 0;
  // `pod` joined / left `node` (which already shows the change; only its labels are read).
  virtual void add_pod(const PodContext& preemptor, const PodInfo& pod, const NodeInfo& node) = 0;
  virtual void remove_pod(const PodContext& preemptor, const PodInfo& pod, const NodeInfo& node) = 0;
};

// Everything about the pod being scheduled that is computed once per request.
struct PodContext {
  const Pod& pod;
  Resources requests;             // effective requests (filters)
  Resources nonzero_requests;     // with scoring defaults (compute_scored_pod_requests)
  Resources fit_scored_requests;  // NodeResourcesFit's score's (compute_fit_scored_pod_requests)
  // The cluster the request is answered in; nullptr: the nodes given to the engine are the cluster.
  const ClusterView* cluster = nullptr;
  // The minor whose rules computed `requests` (algorithms/pod_requests.h).
  KubeVersion version = KubeVersion::newest();
  explicit PodContext(const Pod& p, const ClusterView* c = nullptr, KubeVersion v = KubeVersion::newest());

  // The filters' states, filled by Engine::prepare before any loop over nodes.
  bool prepared = false;
  std::vector<std::pair<const FilterPlugin*, std::shared_ptr<FilterState>>> filter_states;
  // nullptr when the filter computed none.
  const FilterState* state_of(const FilterPlugin* filter) const {
    for (const auto& [f, s] : filter_states)
      if (f == filter) return s.get();
    return nullptr;
  }
  // A copy whose states can be updated without touching this one's (preemption's dry run).
  PodContext with_cloned_states() const;
  // Tell every state that `pod` left / joined `node`.
  void remove_pod(const PodInfo& pod, const NodeInfo& node);
  void add_pod(const PodInfo& pod, const NodeInfo& node);
};

enum class FilterCode {
  kSuccess,
  kUnschedulable,  // preemption may help -> FailedNodes
  kUnresolvable,   // preemption cannot help -> FailedAndUnresolvableNodes
};

struct FilterStatus {
  FilterCode code = FilterCode::kSuccess;
  std::vector<std::string> reasons;  // Kubernetes' words, e.g. "Insufficient cpu"

  bool ok() const { return code == FilterCode::kSuccess; }
  static FilterStatus success() { return {}; }
  static FilterStatus unschedulable(std::vector<std::string> r) {
    return {FilterCode::kUnschedulable, std::move(r)};
  }
  static FilterStatus unresolvable(std::vector<std::string> r) {
    return {FilterCode::kUnresolvable, std::move(r)};
  }
};

// What a plugin that states no cost is taken to spend on one node: above every measured one.
inline constexpr uint64_t kUnmeasuredCostNs = 100;

// A filter's check returns a code and appends reasons only when a node fails: most nodes pass, and a
// FilterStatus (a code and a vector) built, returned through memory, tested and destroyed for every plugin
// on every node was most of the filter loop's instructions (callgrind, 500 cloud names of 5000 nodes, the
// default configuration's five filters; docs/performance.md "Figures behind design choices in the code").
class FilterPlugin {
 public:
  virtual ~FilterPlugin() = default;
  virtual std::string_view name() const = 0;
  // kSuccess, or the failure's code with Kubernetes' reasons appended to `reasons` (left alone on
  // success). Must be thread-safe: called concurrently for different nodes.
  virtual FilterCode check(const PodContext& pod, const NodeInfo& node,
                           std::vector<std::string>& reasons) const = 0;
  // False when check() passes every node for this pod, so that the engine leaves it out of the
  // request's loop: kube-scheduler skips the Filter of a plugin whose PreFilter returned Skip
  // (pkg/scheduler/framework/runtime/framework.go RunPreFilterPlugins, SkipFilterPlugins).
  virtual bool can_fail(const PodContext& /*pod*/) const { return true; }
  // Whether pre_filter reads pod.cluster: callers build a ClusterView only for engines that need one.
  virtual bool reads_cluster() const { return false; }
  // Whether check()'s verdict for `pod` on a node can change as copies of `pod` are placed on other
  // nodes: the pod's own required pod (anti-)affinity and hard spread constraints count pods per
  // topology domain. False for a filter that reads only the node and what copies of the pod cannot
  // change; extender-sim capacity then fills each node on its own (sim/capacity/how_many_fit.h).
  virtual bool counts_other_nodes(const PodContext& /*pod*/) const { return false; }
  // PreFilter: what check() reads about the cluster, computed once per request; `nodes` are the
  // cluster when pod.cluster is null. nullptr: the filter keeps none.
  virtual std::unique_ptr<FilterState> pre_filter(const PodContext& /*pod*/,
                                                  std::span<const NodeInfo* const> /*nodes*/) const {
    return nullptr;
  }
  // Reserve, for a placement made before its bind (a gang member's held room, admission's trial): a
  // copy of `pod` recording what it takes of `node` that its requests do not say (the GPU cards it would
  // get), so that pods placed on that node after it see those taken. nullptr: nothing to record, as for
  // most filters, whose room the requests already count.
  virtual std::shared_ptr<const Pod> reserve(const Pod& /*pod*/, const NodeInfo& /*node*/) const {
    return nullptr;
  }
  // check() as one status, for callers outside the engine's loop.
  FilterStatus filter(const PodContext& pod, const NodeInfo& node) const {
    FilterStatus s;
    s.code = check(pod, node, s.reasons);
    return s;
  }
  // Nanoseconds of one core this filter spends on one node, as bench/engine_bench.cc BM_FilterPluginCost
  // measures it (1000 nodes of extender-gen's cluster, warm caches). The engine adds them up to choose
  // serial or parallel (parallel.h); each plugin's figure is beside its code.
  virtual uint64_t cost_per_node_ns() const { return kUnmeasuredCostNs; }
};

// A filter shown under the name the configuration gave it: the framework plugins (NodeUnschedulable, ...)
// run the legacy predicates' checks under their own names. The name is kept here, not by a wrapper,
// which put a second virtual call into every plugin's call on every node and cost instructions per request
// (callgrind, bench/engine_bench.cc BM_Choice/500, serial filter; docs/performance.md "Figures behind design
// choices in the code").
class AliasedFilter : public FilterPlugin {
 public:
  // shown_as empty: the plugin's own name.
  AliasedFilter(std::string_view own_name, std::string_view shown_as)
      : name_(shown_as.empty() ? own_name : shown_as) {}
  std::string_view name() const final { return name_; }

 private:
  std::string_view name_;  // a literal
};

// Opaque per-request data a score plugin computes once before its map (e.g. image spread).
struct ScorePrepared {
  virtual ~ScorePrepared() = default;
};

class ScorePlugin {
 public:
  virtual ~ScorePlugin() = default;
  virtual std::string_view name() const = 0;
  // Runs once per request, serially, before the map; nodes are the nodes being scored.
  virtual std::unique_ptr<ScorePrepared> prepare(const PodContext&, std::span<const NodeInfo* const>) const {
    return nullptr;
  }
  // Whether prepare reads pod.cluster (see FilterPlugin::reads_cluster).
  virtual bool reads_cluster() const { return false; }
  // The map: one node's raw score. Must be thread-safe and touch nothing but its arguments.
  virtual int64_t score(const PodContext& pod, const ScorePrepared* prepared, const NodeInfo& node) const = 0;
  // The map as the engine calls it: node i of the nodes prepare() was given. score() of that node,
  // unless prepare() already worked every node's score out (ImageLocality), which must be the same.
  virtual int64_t score_at(const PodContext& pod, const ScorePrepared* prepared,
                           std::span<const NodeInfo* const> nodes, size_t i) const {
    return score(pod, prepared, *nodes[i]);
  }
  // The reduce: normalisation over all nodes of the request, in place. Default: none.
  virtual bool has_reduce() const { return false; }
  virtual void reduce(std::span<int64_t> /*scores*/) const {}
  // Nanoseconds of one core per node for prepare, the map and the reduce together, as
  // bench/engine_bench.cc BM_ScorePluginCost measures it (see FilterPlugin::cost_per_node_ns).
  virtual uint64_t cost_per_node_ns() const { return kUnmeasuredCostNs; }
  // The plugin as kube-scheduler's own framework scores it, for a caller that adds scores up as
  // selectHost does rather than answering an extender call: on_wire_scale's inner plugin (0..100);
  // any other plugin is itself (a legacy priority's 0..10, the scale v1.16 summed).
  virtual const ScorePlugin& on_scheduler_scale() const { return *this; }
};

// A score shown under the name the configuration gave it, as AliasedFilter: a framework plugin that runs a
// legacy priority's arithmetic (NodeResourcesFit as LeastRequestedPriority) is still NodeResourcesFit in
// the decision log and everywhere else that names it, as in the configuration --write-config writes.
class AliasedScore : public ScorePlugin {
 public:
  // shown_as empty: the plugin's own name.
  AliasedScore(std::string_view own_name, std::string_view shown_as)
      : name_(shown_as.empty() ? own_name : shown_as) {}
  std::string_view name() const final { return name_; }

 private:
  std::string_view name_;  // a literal
};

// A plugin scoring on kMaxNodeScore's 0..100 scale, seen on the wire's 0..10: every final score (after
// the reduce, if any) divided by kWireDivisor. name() is the inner plugin's.
std::unique_ptr<ScorePlugin> on_wire_scale(std::unique_ptr<ScorePlugin> inner);

// DefaultNormalizeScore (kube-scheduler helper): scale to 0..max by the maximum, optionally reversed.
void default_normalize_score(int64_t max_priority, bool reverse, std::span<int64_t> scores);

}  // namespace kext
