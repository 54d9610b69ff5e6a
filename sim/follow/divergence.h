#pragma once
// extender-sim --follow's comparison: for every live pod, where production put it and where each
// simulated policy put it; agreement, pending counts and per-node requested shares on both sides.
// Fed by the follow loop (one thread); read by the HTTP page and the metrics (any thread): every
// method locks.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/follow/decision.h"
#include "sim/run.h"

namespace kext::simtool::follow {

// A pod as the comparison needs it: identity, requests and its controller.
struct PodFacts {
  std::string uid;
  std::string pod;    // namespace/name
  std::string owner;  // "Kind/name" of its controller, "" for none
  int64_t milli_cpu = 0;
  int64_t memory = 0;
};

// A node's allocatable, the denominator of the requested shares.
struct NodeFacts {
  std::string name;
  int64_t milli_cpu_allocatable = 0;
  int64_t memory_allocatable = 0;
  int64_t pods_allocatable = 0;
};

// One side's view of one node: what the pods it placed there request.
struct NodeShare {
  std::string name;
  int64_t milli_cpu_requested = 0;
  int64_t memory_requested = 0;
  int64_t milli_cpu_allocatable = 0;
  int64_t memory_allocatable = 0;
  int64_t pods = 0;
  int64_t pods_allocatable = 0;
};

// One of production's decisions a policy did not agree with (decision.h), for the page and the log.
struct Disagreement {
  double seconds = 0;  // since the follow started
  std::string pod;     // namespace/name
  DecisionVerdict verdict;
};

// One policy against production, at one moment.
struct PolicyView {
  std::string name;
  // Decision agreement (the headline): production's bindings judged on production's own cluster.
  uint64_t decisions = 0;                   // judged (production's node was in the cluster)
  uint64_t decisions_agreed = 0;            // production's node among those the policy could have chosen
  uint64_t decisions_rejected = 0;          // production's node rejected by the policy's filters
  double decision_agreement_percent = 100;  // 100 * agreed / decisions; 100 before any
  std::vector<Disagreement> disagreements;  // the most recent, newest first
  // The policy's own trajectory (its simulation placing every pod itself): outcome figures only.
  // Pod by pod it compares another cluster than production's after the first tie broken otherwise.
  uint64_t compared = 0;         // pods both sides bound (ever, deleted ones included)
  uint64_t pending = 0;          // live pods this policy has not bound (in its queue)
  uint64_t preempted = 0;        // pods this policy evicted (gone from its simulation)
  std::vector<NodeShare> nodes;  // in node order
};

// A side's whole-cluster figures: requested over allocatable (percent), nodes holding a pod, and
// fragmentation (sim/cluster_summary.h: the free room on nodes where the typical pod does not
// fit, in percent of all free room; unset when nothing is free or no pod was seen pending).
struct Utilisation {
  double cpu_percent = 0;
  double memory_percent = 0;
  size_t nodes_used = 0;
  size_t nodes = 0;
  std::optional<double> cpu_fragmented_percent;
  std::optional<double> memory_fragmented_percent;
};
// `typical`: the typical pod of those seen pending (Snapshot::typical_pod).
Utilisation utilisation(const std::vector<NodeShare>& nodes, const std::optional<PodShape>& typical);

// One pod's row: production's node and each policy's ("" = pending there). A pod a policy preempted
// reads kPreempted there (no node name has parentheses).
inline constexpr const char* kPreempted = "(preempted)";

struct PodRow {
  std::string pod;
  std::string owner;
  std::string production;
  std::vector<std::string> policies;  // one per policy, in policy order
};

struct Snapshot {
  double seconds = 0;  // since the follow started
  uint64_t live_events = 0;
  uint64_t production_pending = 0;
  std::vector<NodeShare> production_nodes;
  std::vector<PolicyView> policies;
  // The most recent pods to have been placed anywhere, newest first (at most Divergence's row limit).
  std::vector<PodRow> recent;
  // The median CPU and memory requests of the pods seen pending (those with rows), for fragmentation.
  std::optional<PodShape> typical_pod;
};

class Divergence {
 public:
  // `policies`: the name of each simulated configuration, in --config order. `row_limit`: how many
  // pods' rows are kept for the page and the log once they are deleted (live ones are always kept).
  explicit Divergence(std::vector<std::string> policies, size_t row_limit = 10000);
  ~Divergence();
  Divergence(const Divergence&) = delete;
  Divergence& operator=(const Divergence&) = delete;

  void set_nodes(std::vector<NodeFacts> nodes);
  // A pod already running when first seen (at the initial list, or created bound): on `node` on every side.
  void pod_running(const PodFacts& pod, const std::string& node);
  // A pod that turned up pending in the live cluster: pending on every side.
  void pod_pending(const PodFacts& pod);
  void production_bound(const std::string& uid, const std::string& node);
  void simulated_bound(size_t policy, const std::string& uid, const std::string& node);
  // The policy's verdict on production's binding of the pod `pod` (namespace/name); kUnjudged ones
  // are not counted.
  void decision(size_t policy, const std::string& pod, const DecisionVerdict& verdict);
  // Evicted by the policy's own preemption: gone from that simulation for good.
  void simulated_preempted(size_t policy, const std::string& uid);
  // Deleted in the live cluster: its resources leave every side; its row is kept (up to row_limit).
  void pod_deleted(const std::string& uid);
  void count_live_event();

  Snapshot snapshot() const;
  // Prometheus text exposition: kube_extender_sim_follow_* gauges and counters, labelled by policy.
  // The series production has too (pending_pods, node_{cpu,memory}_requested_ratio) carry
  // side="production", or side="simulated" and policy="NAME"; the per-node ones add node="NAME".
  std::string prometheus() const;
  // The live page: a self-contained HTML document (no external resources), reloading itself.
  std::string html() const;
  // One JSON object per pod row, then one summary object per policy.
  // A row is a pod seen pending (live, or among the last row_limit deleted), in first-seen order:
  // {"pod","uid","owner","live","production","policies":{NAME: node}}; a summary is
  // {"policy","decisions","decisions_agreed","decisions_rejected","decision_agreement_percent",
  // "trajectory":{"pending","preempted","cpu_requested_percent","memory_requested_percent",
  // "nodes_used"}}.
  void write_jsonl(std::ostream& out) const;

  // What is held: every live pod (running at first sight or seen pending) and the rows of at most
  // row_limit deleted ones, so rows() <= live_pods() + row_limit at all times.
  size_t live_pods() const;
  size_t rows() const;
  // How many recent rows html() lists (snapshot().recent and write_jsonl have them all).
  static constexpr size_t kRecentShown = 100;
  // How many of each policy's disagreements are kept for the page.
  static constexpr size_t kDisagreementsKept = 50;

 private:
  struct State;
  mutable std::mutex mu_;
  std::unique_ptr<State> state_;  // the pods, the per-node sums and the counters (divergence.cc)
};

}  // namespace kext::simtool::follow
