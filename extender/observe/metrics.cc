#include "extender/observe/metrics.h"

#include <malloc.h>

#include <algorithm>
#include <charconv>

#include "common/prometheus_text.h"
#include "kube/state/cluster_state.h"

namespace kext {

namespace {

constexpr double kSecondsBuckets[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                      0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};
// A gang binds in milliseconds when its members arrive together, in seconds up to its timeout when not.
constexpr double kGangSecondsBuckets[] = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
constexpr double kNodesBuckets[] = {1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000};
constexpr double kBytesBuckets[] = {256,    1024,    4096,    16384,    65536,
                                    262144, 1048576, 4194304, 16777216, 67108864};

constexpr const char* kPhaseNames[kPhaseCount] = {"decode", "compute", "encode"};

using prom::append_label_value;
using prom::append_number;
using prom::header;

bool is_verb(size_t route) { return route <= static_cast<size_t>(Route::kBind); }

// A counter by cause: `name{cause="<names[i]>"} <counts[i]>` for each cause.
template <size_t N>
void render_by_cause(std::string& out, std::string_view name, std::string_view help,
                     const std::string_view (&names)[N], const std::array<std::atomic<uint64_t>, N>& counts) {
  header(out, name, "counter", help);
  for (size_t i = 0; i < N; ++i) {
    out.append(name).append("{cause=\"").append(names[i]).append("\"} ");
    out.append(std::to_string(counts[i].load(std::memory_order_relaxed))).append("\n");
  }
}

}  // namespace

HeapBytes heap_bytes() {
  const struct mallinfo2 m = mallinfo2();
  return HeapBytes{m.uordblks + m.hblkhd, m.fordblks};
}

std::string_view route_name(Route r) {
  static constexpr std::string_view kNames[kRouteCount] = {"filter",   "prioritize", "preempt", "bind",
                                                           "healthz",  "readyz",     "metrics", "debug",
                                                           "capacity", "other"};
  const auto i = static_cast<size_t>(r);
  return i < kRouteCount ? kNames[i] : "other";
}

namespace {

// The objects of `state` (may be null) by resource.
void render_cache_objects(std::string& out, const ClusterState* state) {
  header(out, "kube_extender_cache_objects", "gauge",
         "Objects in the extender's cluster state, by resource.");
  const size_t nodes = state ? state->node_object_count() : 0;
  const size_t pods = state ? state->pods_by_uid.size() : 0;
  const size_t pdbs = state && state->pdbs ? state->pdbs->size() : 0;
  out.append("kube_extender_cache_objects{resource=\"nodes\"} ").append(std::to_string(nodes)).append("\n");
  out.append("kube_extender_cache_objects{resource=\"pods\"} ").append(std::to_string(pods)).append("\n");
  out.append("kube_extender_cache_objects{resource=\"poddisruptionbudgets\"} ")
      .append(std::to_string(pdbs))
      .append("\n");
  const size_t namespaces = state && state->namespace_labels ? state->namespace_labels->size() : 0;
  out.append("kube_extender_cache_objects{resource=\"namespaces\"} ")
      .append(std::to_string(namespaces))
      .append("\n");
  const size_t podgroups = state && state->gangs ? state->gangs->size() : 0;
  out.append("kube_extender_cache_objects{resource=\"podgroups\"} ")
      .append(std::to_string(podgroups))
      .append("\n");
  // Objects with an empty selector are not kept (StateCache::Batch::upsert_workload), so not counted.
  for (WorkloadKind kind : kWorkloadKinds) {
    const auto* list = state ? state->workloads(kind).get() : nullptr;
    out.append("kube_extender_cache_objects{resource=\"")
        .append(workload_resource(kind))
        .append("\"} ")
        .append(std::to_string(list ? list->size() : 0))
        .append("\n");
  }
}

// mallinfo2 walks every free chunk, each arena under its own lock: it makes GET /metrics slower after a
// load run, more so the larger the cluster. Once per scrape, never per request.
void render_heap(std::string& out) {
  header(out, "kube_extender_heap_bytes", "gauge",
         "The C++ heap by state: in_use (allocated, a leak grows it), free (freed chunks malloc keeps "
         "for reuse; their pages may already be returned to the OS).");
  const HeapBytes heap = heap_bytes();
  out.append(kHeapInUseSeries).append(std::to_string(heap.in_use)).append("\n");
  out.append("kube_extender_heap_bytes{state=\"free\"} ").append(std::to_string(heap.free)).append("\n");
}

}  // namespace

Histogram::Histogram(std::span<const double> bounds)
    : bounds_(bounds.first(std::min(bounds.size(), size_t{19}))) {}

void Histogram::observe(double v) {
  // Linear search: at most 16 bounds, cheaper than a branchy binary search at this size.
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

void Histogram::render(std::string& out, std::string_view name, std::string_view labels) const {
  // _count is the +Inf bucket of the same read, so the two always agree even mid-update.
  uint64_t cumulative = 0;
  auto line = [&](std::string_view suffix, std::string_view le) {
    out.append(name).append(suffix).append("{").append(labels);
    if (!le.empty()) {
      if (!labels.empty()) out += ',';
      out.append("le=\"").append(le).append("\"");
    }
    out.append("} ");
  };
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    std::string le;
    if (i < bounds_.size()) {
      append_number(le, bounds_[i], true);
    } else {
      le = "+Inf";
    }
    line("_bucket", le);
    out.append(std::to_string(cumulative)).append("\n");
  }
  line("_sum", {});
  append_number(out, sum_.load(std::memory_order_relaxed));
  out += '\n';
  line("_count", {});
  out.append(std::to_string(cumulative)).append("\n");
}

Metrics::RouteStats::RouteStats()
    : duration(kSecondsBuckets),
      request_bytes(kBytesBuckets),
      nodes(kNodesBuckets),
      phases{Histogram(kSecondsBuckets), Histogram(kSecondsBuckets), Histogram(kSecondsBuckets)} {}

Metrics::Metrics(std::string version)
    : version_(std::move(version)),
      forward_seconds_(kSecondsBuckets),
      capacity_seconds_(kGangSecondsBuckets),
      gang_bound_seconds_(kGangSecondsBuckets) {}

void Metrics::observe_request(Route route, int status, double seconds, size_t request_bytes) {
  RouteStats& s = routes_[static_cast<size_t>(route) % kRouteCount];
  const int code = std::clamp(status, kMinCode, kMaxCode);
  s.by_code[static_cast<size_t>(code - kMinCode)].fetch_add(1, std::memory_order_relaxed);
  s.duration.observe(seconds);
  s.request_bytes.observe(static_cast<double>(request_bytes));
}

void Metrics::observe_verb(Route route, const VerbTrace& trace) {
  RouteStats& s = routes_[static_cast<size_t>(route) % kRouteCount];
  s.nodes.observe(static_cast<double>(trace.nodes));
  for (size_t p = 0; p < kPhaseCount; ++p) s.phases[p].observe(trace.seconds[p]);
}

void Metrics::count_gang_topology_admitted(std::string_view level, bool with_evictions) {
  std::lock_guard lock(topology_mutex_);
  auto it = topology_admissions_.find(level);
  if (it == topology_admissions_.end())
    it = topology_admissions_.emplace(std::string(level), TopologyAdmissions{}).first;
  ++it->second.admitted;
  it->second.preempting += with_evictions;
}

uint64_t Metrics::gang_topology_admissions(std::string_view level) const {
  std::lock_guard lock(topology_mutex_);
  auto it = topology_admissions_.find(level);
  return it == topology_admissions_.end() ? 0 : it->second.admitted;
}

uint64_t Metrics::gang_topology_preemptions(std::string_view level) const {
  std::lock_guard lock(topology_mutex_);
  auto it = topology_admissions_.find(level);
  return it == topology_admissions_.end() ? 0 : it->second.preempting;
}

void Metrics::set_watch_lag_seconds(std::string_view resource, double seconds) {
  std::lock_guard lock(lag_mutex_);
  auto it = watch_lag_.find(resource);
  if (it == watch_lag_.end()) {
    watch_lag_.emplace(std::string(resource), seconds);
  } else {
    it->second = seconds;
  }
}

void Metrics::set_usage_source(std::string_view source,
                               std::function<std::optional<double>()> sample_age_seconds) {
  std::lock_guard lock(lag_mutex_);
  usage_source_ = source;
  usage_sample_age_ = std::move(sample_age_seconds);
}

void Metrics::render_usage(std::string& out) const {
  std::lock_guard lock(lag_mutex_);
  if (usage_source_.empty()) return;
  if (const std::optional<double> age = usage_sample_age_ ? usage_sample_age_() : std::nullopt) {
    header(out, "kube_extender_usage_sample_age_seconds", "gauge",
           "Age of the newest node usage sample (the load-aware plugins' input); absent before the first.");
    out.append("kube_extender_usage_sample_age_seconds ");
    append_number(out, *age);
    out += '\n';
  }
  header(out, "kube_extender_usage_fetch_errors_total", "counter",
         "Failed fetches of node usage, by source (metricsAPI, prometheus).");
  out.append("kube_extender_usage_fetch_errors_total{source=\"");
  append_label_value(out, usage_source_);
  out.append("\"} ").append(std::to_string(usage_fetch_errors_.load(std::memory_order_relaxed))).append("\n");
}

void Metrics::set_api_errors(std::function<std::vector<ApiErrorSeries>()> read) {
  std::lock_guard lock(lag_mutex_);
  api_errors_ = std::move(read);
}

void Metrics::set_gpu_allocations_undecoded(std::function<uint64_t()> read) {
  std::lock_guard lock(lag_mutex_);
  gpu_allocations_undecoded_ = std::move(read);
}

void Metrics::render_api_errors(std::string& out) const {
  std::lock_guard lock(lag_mutex_);
  if (gpu_allocations_undecoded_) {
    header(
        out, "kube_extender_gpu_allocations_undecoded", "gauge",
        "Bound pods whose hami.io/vgpu-devices-allocated did not decode; each closes its node to GPU pods.");
    out.append("kube_extender_gpu_allocations_undecoded ")
        .append(std::to_string(gpu_allocations_undecoded_()))
        .append("\n");
  }
  if (!api_errors_) return;
  header(out, "kube_extender_api_errors_total", "counter",
         "Failed calls to the Kubernetes API, by resource and status (an HTTP code, or refused, unreachable, "
         "dns, timeout, tls, closed, error).");
  for (const ApiErrorSeries& s : api_errors_()) {
    out.append("kube_extender_api_errors_total{resource=\"");
    append_label_value(out, s.resource);
    out.append("\",status=\"");
    append_label_value(out, s.status);
    out.append("\"} ").append(std::to_string(s.count)).append("\n");
  }
}

void Metrics::set_leader(std::string_view identity, bool leader) {
  std::lock_guard lock(lag_mutex_);
  leader_identity_ = identity;
  leader_ = leader;
}

void Metrics::set_kubernetes_semantics(std::string_view version, std::string_view source) {
  std::lock_guard lock(lag_mutex_);
  semantics_version_ = version;
  semantics_source_ = source;
}

void Metrics::render_info(std::string& out) const {
  header(out, "kube_extender_build_info", "gauge", "Always 1; the version label is the extender's.");
  out.append("kube_extender_build_info{version=\"");
  append_label_value(out, version_);
  out.append("\"} 1\n");
  std::lock_guard lock(lag_mutex_);
  if (semantics_version_.empty()) return;
  header(out, "kube_extender_kubernetes_semantics_info", "gauge",
         "Always 1; the kube-scheduler minor the plugins and preemption reproduce, and where it came from "
         "(flag, config, apiserver, default).");
  out.append("kube_extender_kubernetes_semantics_info{version=\"");
  append_label_value(out, semantics_version_);
  out.append("\",source=\"");
  append_label_value(out, semantics_source_);
  out.append("\"} 1\n");
}

std::string Metrics::render(const ClusterState* state) const {
  std::string out;
  out.reserve(16 << 10);
  render_info(out);
  render_requests(out);
  render_transport(out);
  render_cache_objects(out, state);
  render_heap(out);
  render_watch_and_leader(out);
  render_api_errors(out);
  render_bind_forwards(out);
  render_gangs(out);
  render_usage(out);
  render_capacity(out);
  return out;
}

void Metrics::render_capacity(std::string& out) const {
  static constexpr std::string_view kOutcomeNames[kCapacityOutcomeCount] = {"answered", "partial", "busy",
                                                                            "invalid", "not_ready"};
  header(out, "kube_extender_capacity_questions_total", "counter",
         "Questions to POST /capacity, by outcome (partial: a budget ran out; busy: refused with 429).");
  for (size_t i = 0; i < kCapacityOutcomeCount; ++i) {
    out.append("kube_extender_capacity_questions_total{outcome=\"").append(kOutcomeNames[i]).append("\"} ");
    out.append(std::to_string(capacity_outcomes_[i].load(std::memory_order_relaxed))).append("\n");
  }
  header(out, "kube_extender_capacity_questions_running", "gauge", "Capacity questions being answered now.");
  out.append("kube_extender_capacity_questions_running ")
      .append(std::to_string(capacity_running_.load(std::memory_order_relaxed)))
      .append("\n");
  header(out, "kube_extender_capacity_duration_seconds", "histogram",
         "Time to answer a capacity question, the copy of the cluster included.");
  capacity_seconds_.render(out, "kube_extender_capacity_duration_seconds", {});
  header(out, "kube_extender_capacity_node_checks_total", "counter",
         "Nodes checked by capacity questions: one per copy tried on a node alone, every node per cycle.");
  out.append("kube_extender_capacity_node_checks_total ")
      .append(std::to_string(capacity_node_checks_.load(std::memory_order_relaxed)))
      .append("\n");
}

void Metrics::render_requests(std::string& out) const {
  header(out, "kube_extender_requests_total", "counter", "HTTP requests by route (verb) and status code.");
  for (size_t r = 0; r < kRouteCount; ++r) {
    for (size_t c = 0; c < routes_[r].by_code.size(); ++c) {
      const uint64_t n = routes_[r].by_code[c].load(std::memory_order_relaxed);
      if (n == 0) continue;
      out.append("kube_extender_requests_total{verb=\"").append(route_name(static_cast<Route>(r)));
      out.append("\",code=\"").append(std::to_string(c + kMinCode)).append("\"} ");
      out.append(std::to_string(n)).append("\n");
    }
  }

  auto per_route = [&](std::string_view name, std::string_view help, bool verbs_only, auto member) {
    header(out, name, "histogram", help);
    for (size_t r = 0; r < kRouteCount; ++r) {
      if (verbs_only && !is_verb(r)) continue;
      const Histogram& h = routes_[r].*member;
      const std::string labels = "verb=\"" + std::string(route_name(static_cast<Route>(r))) + "\"";
      h.render(out, name, labels);
    }
  };
  per_route("kube_extender_request_duration_seconds",
            "Time from the request line to the reply written, by route.", false, &RouteStats::duration);
  per_route("kube_extender_request_bytes", "Request body size in bytes, by route.", false,
            &RouteStats::request_bytes);
  per_route("kube_extender_request_nodes", "Nodes in the request (filter, prioritize, preempt candidates).",
            true, &RouteStats::nodes);

  header(out, "kube_extender_phase_duration_seconds", "histogram",
         "Time the verbs spend decoding the body, computing, and encoding the reply.");
  for (size_t r = 0; r < kRouteCount; ++r) {
    if (!is_verb(r)) continue;
    for (size_t p = 0; p < kPhaseCount; ++p) {
      const std::string labels =
          "verb=\"" + std::string(route_name(static_cast<Route>(r))) + "\",phase=\"" + kPhaseNames[p] + "\"";
      routes_[r].phases[p].render(out, "kube_extender_phase_duration_seconds", labels);
    }
  }
}

void Metrics::render_transport(std::string& out) const {
  header(out, "kube_extender_http_open_connections", "gauge", "Client connections open, across listeners.");
  out.append("kube_extender_http_open_connections ")
      .append(std::to_string(open_connections_.load(std::memory_order_relaxed)))
      .append("\n");
  static constexpr std::string_view kRefusalNames[kRefusalCount] = {
      "connections", "queue_full", "memory", "header_too_large", "body_too_large", "malformed", "tls"};
  render_by_cause(out, "kube_extender_http_refusals_total",
                  "Connections or requests refused by the transport before any handler ran, by cause.",
                  kRefusalNames, refusals_);
  static constexpr std::string_view kTimeoutNames[kTimeoutCount] = {"request", "idle", "write"};
  render_by_cause(
      out, "kube_extender_http_timeouts_total",
      "Connections closed by a deadline: a request not received in time (408), an idle keep-alive, "
      "a reply not read in time.",
      kTimeoutNames, timeouts_);
}

void Metrics::render_watch_and_leader(std::string& out) const {
  header(out, "kube_extender_watch_lag_seconds", "gauge",
         "How far the cluster-state watch is behind the API server, by resource.");
  std::lock_guard lock(lag_mutex_);
  for (const auto& [resource, lag] : watch_lag_) {
    out.append("kube_extender_watch_lag_seconds{resource=\"");
    append_label_value(out, resource);
    out.append("\"} ");
    append_number(out, lag);
    out += '\n';
  }
  if (!leader_identity_.empty()) {
    header(out, "kube_extender_leader", "gauge",
           "1 when this replica holds the bind Lease (--leader-elect), else 0; by identity.");
    out.append("kube_extender_leader{identity=\"");
    append_label_value(out, leader_identity_);
    out.append(leader_ ? "\"} 1\n" : "\"} 0\n");
  }
}

void Metrics::render_bind_forwards(std::string& out) const {
  header(out, "kube_extender_bind_forwards_total", "counter",
         "Binds that reached this replica while another held the Lease, passed on to the holder.");
  out.append("kube_extender_bind_forwards_total ").append(std::to_string(forwards())).append("\n");
  header(out, "kube_extender_bind_forward_duration_seconds", "histogram",
         "Time from a forwarded bind's arrival to the holder's reply relayed, its one retry included.");
  forward_seconds_.render(out, "kube_extender_bind_forward_duration_seconds", {});
  static constexpr std::string_view kForwardFailureNames[kForwardFailureCount] = {
      "connect", "no_reply", "not_holder", "no_holder", "busy", "unreachable"};
  render_by_cause(out, "kube_extender_bind_forward_failures_total",
                  "Attempts to pass a bind on to the Lease holder that failed, by cause.",
                  kForwardFailureNames, forward_failures_);
  static constexpr std::string_view kGpuBindFailureNames[kGpuBindFailureCount] = {"api", "lock_held",
                                                                                  "no_card", "not_cached"};
  render_by_cause(out, "kube_extender_gpu_bind_failures_total",
                  "Binds of pods that ask for GPUs that failed before their Binding (the scheduler retries "
                  "them), by cause.",
                  kGpuBindFailureNames, gpu_bind_failures_);
  header(
      out, "kube_extender_gpu_requeues_total", "counter",
      "GPU pods the filter found no node for, sent back to kube-scheduler's queue when a pod's cards freed.");
  out.append("kube_extender_gpu_requeues_total ").append(std::to_string(gpu_requeues())).append("\n");
  header(out, "kube_extender_gpu_requeue_failures_total", "counter",
         "Updates that would have sent a GPU pod back to kube-scheduler's queue and failed (logged).");
  out.append("kube_extender_gpu_requeue_failures_total ")
      .append(std::to_string(gpu_requeue_failures()))
      .append("\n");
}

void Metrics::render_gangs(std::string& out) const {
  auto gauge = [&out](std::string_view name, std::string_view help, int64_t v) {
    header(out, name, "gauge", help);
    out.append(name).append(" ").append(std::to_string(v)).append("\n");
  };
  auto counter = [&out](std::string_view name, std::string_view help, uint64_t v) {
    header(out, name, "counter", help);
    out.append(name).append(" ").append(std::to_string(v)).append("\n");
  };
  gauge("kube_extender_gang_groups_waiting", "Pod groups whose members reach filter and are not admitted.",
        gangs_waiting_.load(std::memory_order_relaxed));
  gauge("kube_extender_gang_groups_admitted", "Pod groups holding room, their binds not all done.",
        gangs_admitted_now_.load(std::memory_order_relaxed));
  gauge("kube_extender_gang_held_binds", "Binds of gang members held until their group is complete.",
        gang_held_binds_.load(std::memory_order_relaxed));
  counter("kube_extender_gang_admissions_total", "Pod groups admitted: room held for minMember members.",
          gangs_admitted());
  counter("kube_extender_gang_timeouts_total",
          "Admitted pod groups whose timeout passed before minMember members reached bind.",
          gangs_timed_out());
  header(out, "kube_extender_gang_time_to_bound_seconds", "histogram",
         "Time from a pod group's admission to its minMember-th member bound.");
  gang_bound_seconds_.render(out, "kube_extender_gang_time_to_bound_seconds", {});
  render_gang_topology(out);
}

// By the level's short name, the levels a group was admitted in so far: label keys, whose name part
// holds no character a label value must escape.
void Metrics::render_gang_topology(std::string& out) const {
  std::lock_guard lock(topology_mutex_);
  auto family = [&](std::string_view name, std::string_view help, uint64_t TopologyAdmissions::*count) {
    header(out, name, "counter", help);
    for (const auto& [level, n] : topology_admissions_)
      out.append(name)
          .append("{level=\"")
          .append(level)
          .append("\"} ")
          .append(std::to_string(n.*count))
          .append("\n");
  };
  family("kube_extender_gang_topology_admissions_total",
         "Pod groups admitted in one domain of a topology level, by the level's name.",
         &TopologyAdmissions::admitted);
  family("kube_extender_gang_topology_preemptions_total",
         "Pod groups admitted in one domain of a topology level with evictions there, by the level's name.",
         &TopologyAdmissions::preempting);
}

}  // namespace kext
