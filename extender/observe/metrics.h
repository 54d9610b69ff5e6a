#pragma once
// Prometheus metrics for the server. Recording is lock-free (relaxed atomics, one cache-line-aligned
// block per route) because it sits on every request; only the rarely-set watch-lag gauge takes a lock.
// Owned by whoever owns the Server (no process-wide registry), rendered on GET /metrics.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "extender/observe/verb_trace.h"

namespace kext {

struct ClusterState;

// The `verb` label: a fixed set so that arbitrary request paths cannot grow the series count.
enum class Route : uint8_t {
  kFilter,
  kPrioritize,
  kPreempt,
  kBind,
  kHealthz,
  kReadyz,
  kMetrics,
  kDebug,
  kCapacity,  // POST /capacity (extender/capacity)
  kOther
};
inline constexpr size_t kRouteCount = 10;
std::string_view route_name(Route r);

// How a capacity question (POST /capacity) ended (the `outcome` label).
enum class CapacityOutcome : uint8_t {
  kAnswered,  // the answer is whole
  kPartial,   // the time or node budget ran out first: a lower bound
  kBusy,      // another question was being answered: 429
  kInvalid,   // a body or parameter it could not use: 400
  kNotReady,  // the watch had not listed the cluster yet: 503
};
inline constexpr size_t kCapacityOutcomeCount = 5;

// Why the transport refused a connection or a request without running it (the `cause` label).
enum class Refusal : uint8_t {
  kConnections,     // --max-connections open already (or no file descriptor left)
  kQueueFull,       // --max-queued-requests whole requests already wait for a worker
  kMemory,          // --max-buffered-bytes of request bytes already held
  kHeaderTooLarge,  // 431
  kBodyTooLarge,    // 413
  kMalformed,       // 400: framing the transport cannot trust
  kTls,             // failed TLS handshake (no or bad client certificate, not TLS)
};
inline constexpr size_t kRefusalCount = 7;
// Which deadline ended a connection (the `cause` label).
enum class Timeout : uint8_t { kRequest, kIdle, kWrite };
inline constexpr size_t kTimeoutCount = 3;

// Why one attempt to pass a /bind on to the Lease holder failed (the `cause` label).
enum class ForwardFailure : uint8_t {
  kConnect,      // no connection to the holder's address (refused, unreachable, TLS handshake)
  kNoReply,      // sent, and no reply within the deadline or the connection broke
  kNotHolder,    // the replica reached answered that it does not hold the Lease
  kNoHolder,     // the Lease named no holder with an address before the deadline
  kBusy,         // as many forwards as half the workers were already waiting (for a holder, or to retry)
  kUnreachable,  // not tried: no connection could be made to this holder less than a second ago
};
inline constexpr size_t kForwardFailureCount = 6;

// Why the bind of a pod that asks for GPUs failed before its Binding (extender/gpu/gpu_binder.h; the
// `cause` label). The scheduler retries the pod; the log says which pod and node.
enum class GpuBindFailure : uint8_t {
  kApi,        // reading the pod or node, taking the node's lock or annotating the pod failed
  kLockHeld,   // another pod's cards were still being set up on the node (its lock) past the wait
  kNoCard,     // no card of the node had room for the pod, or the node registered no GPU
  kNotCached,  // the node or the pod was not in the extender's cache yet
};
inline constexpr size_t kGpuBindFailureCount = 4;

// Fixed upper bounds; counts are per bucket and made cumulative when rendered.
class Histogram {
 public:
  explicit Histogram(std::span<const double> bounds);
  void observe(double v);
  // Appends the _bucket/_sum/_count lines; labels is e.g. `verb="filter"` (may be empty).
  void render(std::string& out, std::string_view name, std::string_view labels) const;

 private:
  std::span<const double> bounds_;
  std::array<std::atomic<uint64_t>, 20> counts_{};  // bounds_.size() + 1 used, the last is +Inf
  std::atomic<double> sum_{0};
};

// What glibc's malloc holds (mallinfo2, summed over its arenas). RSS also counts the allocator's free
// pages and fragmentation, which rise and settle with the pattern of allocations: under bench/soak the
// live heap stays flat (heaptrack) while RSS climbs a little at first and then levels off
// (docs/performance.md "Figures behind design choices in the code"). A leak shows in in_use; fragmentation in
// free and RSS.
struct HeapBytes {
  uint64_t in_use = 0;  // allocated and not yet freed, mmapped blocks included
  uint64_t free = 0;    // freed chunks malloc keeps for reuse (malloc_trim may have returned their pages)
};
HeapBytes heap_bytes();
// The in_use series as /metrics writes it, up to its value (bench/soak reads it by this prefix).
inline constexpr std::string_view kHeapInUseSeries = "kube_extender_heap_bytes{state=\"in_use\"} ";

class Metrics {
 public:
  explicit Metrics(std::string version);

  // Every HTTP exchange, once the reply is written (status is final then).
  void observe_request(Route route, int status, double seconds, size_t request_bytes);
  // The verbs' own split of the work.
  void observe_verb(Route route, const VerbTrace& trace);
  // For the API watch: how far behind the cluster the cache is, per resource ("nodes", "pods", …).
  void set_watch_lag_seconds(std::string_view resource, double seconds);
  // With --leader-elect: whether this replica holds the bind Lease, under its identity.
  void set_leader(std::string_view identity, bool leader);
  // The kube-scheduler minor the plugins reproduce ("1.36") and where it came from (policy/
  // version_choice.h source_label: flag, config, apiserver, default); set once at start-up.
  void set_kubernetes_semantics(std::string_view version, std::string_view source);
  // With a usage source (usage/): its name, and the age of its newest sample in seconds (nullopt before
  // the first), read at each scrape; its failed fetches counted.
  void set_usage_source(std::string_view source, std::function<std::optional<double>()> sample_age_seconds);
  void count_usage_fetch_error() { usage_fetch_errors_.fetch_add(1, std::memory_order_relaxed); }
  // With an API server: its failed calls by resource and status (kube/client/api_errors.h counts them),
  // read at each scrape.
  struct ApiErrorSeries {
    std::string resource, status;
    uint64_t count = 0;
  };
  void set_api_errors(std::function<std::vector<ApiErrorSeries>()> read);
  // With GPU sharing: the bound pods whose GPU allocation did not decode (GpuBinder::
  // undecoded_allocations), read at each scrape.
  void set_gpu_allocations_undecoded(std::function<uint64_t()> read);
  // With --leader-elect: a /bind passed on to the Lease holder, how long it took (retry included),
  // and each failed attempt.
  void observe_forward(double seconds) {
    forwards_.fetch_add(1, std::memory_order_relaxed);
    forward_seconds_.observe(seconds);
  }
  void count_forward_failure(ForwardFailure cause) {
    forward_failures_[static_cast<size_t>(cause)].fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t forwards() const { return forwards_.load(std::memory_order_relaxed); }
  uint64_t forward_failures(ForwardFailure cause) const {
    return forward_failures_[static_cast<size_t>(cause)].load(std::memory_order_relaxed);
  }
  void count_gpu_bind_failure(GpuBindFailure cause) {
    gpu_bind_failures_[static_cast<size_t>(cause)].fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t gpu_bind_failures(GpuBindFailure cause) const {
    return gpu_bind_failures_[static_cast<size_t>(cause)].load(std::memory_order_relaxed);
  }
  // GPU pods sent back to kube-scheduler's queue when room freed (extender/gpu/gpu_requeue.h): each
  // update sent, and each that failed.
  void count_gpu_requeue(bool ok) {
    (ok ? gpu_requeues_ : gpu_requeue_failures_).fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t gpu_requeues() const { return gpu_requeues_.load(std::memory_order_relaxed); }
  uint64_t gpu_requeue_failures() const { return gpu_requeue_failures_.load(std::memory_order_relaxed); }
  // Gang scheduling (extender/gang): groups admitted and timed out, the time from a group's admission
  // to its minMember bound, and, when rendered, the groups waiting and the binds held.
  void count_gang_admitted() { gangs_admitted_.fetch_add(1, std::memory_order_relaxed); }
  void count_gang_timed_out(uint64_t n = 1) { gangs_timed_out_.fetch_add(n, std::memory_order_relaxed); }
  void observe_gang_bound(double seconds) { gang_bound_seconds_.observe(seconds); }
  void set_gang_gauges(int64_t waiting_groups, int64_t admitted_groups, int64_t held_binds) {
    gangs_waiting_.store(waiting_groups, std::memory_order_relaxed);
    gangs_admitted_now_.store(admitted_groups, std::memory_order_relaxed);
    gang_held_binds_.store(held_binds, std::memory_order_relaxed);
  }
  uint64_t gangs_admitted() const { return gangs_admitted_.load(std::memory_order_relaxed); }
  uint64_t gangs_timed_out() const { return gangs_timed_out_.load(std::memory_order_relaxed); }
  // A group admitted in one domain of a topology level (`level`: the level's short name, "rack"), with
  // evictions there (whole-group preemption) or without. Admissions are rare: a lock, not atomics.
  void count_gang_topology_admitted(std::string_view level, bool with_evictions);
  uint64_t gang_topology_admissions(std::string_view level) const;
  uint64_t gang_topology_preemptions(std::string_view level) const;

  // The capacity endpoint (extender/capacity): each question by outcome, the time its answer took (the
  // cluster's copy included) and the node checks it spent.
  void observe_capacity(CapacityOutcome outcome, double seconds, uint64_t node_checks) {
    capacity_outcomes_[static_cast<size_t>(outcome)].fetch_add(1, std::memory_order_relaxed);
    if (outcome == CapacityOutcome::kAnswered || outcome == CapacityOutcome::kPartial) {
      capacity_seconds_.observe(seconds);
      capacity_node_checks_.fetch_add(node_checks, std::memory_order_relaxed);
    }
  }
  void add_capacity_running(int64_t delta) { capacity_running_.fetch_add(delta, std::memory_order_relaxed); }
  uint64_t capacity_questions(CapacityOutcome outcome) const {
    return capacity_outcomes_[static_cast<size_t>(outcome)].load(std::memory_order_relaxed);
  }

  // The transport's bounds at work.
  void count_refusal(Refusal cause) {
    refusals_[static_cast<size_t>(cause)].fetch_add(1, std::memory_order_relaxed);
  }
  void count_timeout(Timeout cause) {
    timeouts_[static_cast<size_t>(cause)].fetch_add(1, std::memory_order_relaxed);
  }
  void add_open_connections(int64_t delta) { open_connections_.fetch_add(delta, std::memory_order_relaxed); }
  uint64_t refusals(Refusal cause) const {
    return refusals_[static_cast<size_t>(cause)].load(std::memory_order_relaxed);
  }
  uint64_t timeouts(Timeout cause) const {
    return timeouts_[static_cast<size_t>(cause)].load(std::memory_order_relaxed);
  }

  // Prometheus text format 0.0.4. state (may be null) gives the cache object counts.
  std::string render(const ClusterState* state) const;

 private:
  static constexpr int kMinCode = 100, kMaxCode = 599;
  struct alignas(64) RouteStats {
    RouteStats();
    std::array<std::atomic<uint64_t>, kMaxCode - kMinCode + 1> by_code{};
    Histogram duration;
    Histogram request_bytes;
    Histogram nodes;
    std::array<Histogram, kPhaseCount> phases;
  };

  // render()'s families that read the members (the cache's and the heap's need none).
  void render_requests(std::string& out) const;   // counts by route and code, sizes and phase times
  void render_transport(std::string& out) const;  // connections, refusals, timeouts
  void render_watch_and_leader(std::string& out) const;
  void render_bind_forwards(std::string& out) const;
  void render_gangs(std::string& out) const;
  void render_gang_topology(std::string& out) const;  // render_gangs' by topology level
  void render_usage(std::string& out) const;
  void render_capacity(std::string& out) const;
  void render_api_errors(std::string& out) const;
  void render_info(std::string& out) const;  // the info gauges: build, kube-scheduler semantics

  std::string version_;
  std::array<RouteStats, kRouteCount> routes_;
  std::array<std::atomic<uint64_t>, kRefusalCount> refusals_{};
  std::array<std::atomic<uint64_t>, kTimeoutCount> timeouts_{};
  std::atomic<int64_t> open_connections_{0};
  std::atomic<uint64_t> forwards_{0};
  Histogram forward_seconds_;
  std::array<std::atomic<uint64_t>, kForwardFailureCount> forward_failures_{};
  std::array<std::atomic<uint64_t>, kGpuBindFailureCount> gpu_bind_failures_{};
  std::atomic<uint64_t> gpu_requeues_{0}, gpu_requeue_failures_{0};
  std::array<std::atomic<uint64_t>, kCapacityOutcomeCount> capacity_outcomes_{};
  Histogram capacity_seconds_;
  std::atomic<uint64_t> capacity_node_checks_{0};
  std::atomic<int64_t> capacity_running_{0};
  std::atomic<uint64_t> gangs_admitted_{0};
  std::atomic<uint64_t> gangs_timed_out_{0};
  std::atomic<int64_t> gangs_waiting_{0};
  std::atomic<int64_t> gangs_admitted_now_{0};
  std::atomic<int64_t> gang_held_binds_{0};
  Histogram gang_bound_seconds_;
  // By topology level: groups admitted in one of its domains, and those of them admitted with evictions.
  struct TopologyAdmissions {
    uint64_t admitted = 0;
    uint64_t preempting = 0;
  };
  mutable std::mutex topology_mutex_;
  std::map<std::string, TopologyAdmissions, std::less<>> topology_admissions_;  // under topology_mutex_
  mutable std::mutex lag_mutex_;
  std::map<std::string, double, std::less<>> watch_lag_;
  std::string leader_identity_;  // empty: no election (under lag_mutex_)
  bool leader_ = false;
  std::string semantics_version_, semantics_source_;         // empty: not set (under lag_mutex_)
  std::string usage_source_;                                 // empty: no usage source (under lag_mutex_)
  std::function<std::optional<double>()> usage_sample_age_;  // under lag_mutex_
  std::atomic<uint64_t> usage_fetch_errors_{0};
  std::function<std::vector<ApiErrorSeries>()> api_errors_;  // under lag_mutex_
  std::function<uint64_t()> gpu_allocations_undecoded_;      // under lag_mutex_
};

}  // namespace kext
