#include "algorithms/engine.h"

#include <algorithm>
#include <optional>

#include "algorithms/catalogue.h"
#include "algorithms/parallel.h"
#include "algorithms/saturating.h"

namespace kext {

namespace {
// One node of one normalisation (default_normalize_score, 128-bit products): bench/engine_bench.cc
// BM_Normalize, 1000 nodes.
constexpr uint64_t kNormalizeCostNs = 4;
}  // namespace

Engine::Engine(std::vector<std::unique_ptr<FilterPlugin>> filters, std::vector<WeightedScore> scores,
               EngineOptions options)
    : filters_(std::move(filters)), scores_(std::move(scores)), options_(options) {
  std::ranges::stable_sort(filters_, {},
                           [&](const auto& f) { return filter_rank(f->name(), options_.semantics); });
  for (const auto& f : filters_) {
    filter_cost_ns_ += f->cost_per_node_ns();
    reads_cluster_ = reads_cluster_ || f->reads_cluster();
  }
  for (const auto& s : scores_) {
    reads_cluster_ = reads_cluster_ || s.plugin->reads_cluster();
    score_cost_ns_ += s.plugin->cost_per_node_ns();
    if (s.plugin->has_reduce()) reduce_cost_ns_ += kNormalizeCostNs;
  }
}

// The filters stop at the first failure, so their sum is the most a node can cost: a request whose
// nodes mostly fail early is over-estimated, which only errs towards serial.
bool Engine::filters_in_parallel(size_t nodes) const {
  return parallel_limits().parallel(nodes, nodes * filter_cost_ns_);
}

bool Engine::scores_in_parallel(size_t nodes) const {
  return parallel_limits().parallel(nodes, nodes * score_cost_ns_);
}

// Both semantics stop at the first failing filter (v1.16 generic_scheduler.go podFitsOnNode; current
// pkg/scheduler/framework/runtime/framework.go RunFilterPlugins), so only the order differs.
// always_check_all_predicates is the Policy's alwaysCheckAllPredicates, which the framework kept as
// runAllFilters while the Policy API lived and folded with PluginToStatus.Merge
// (pkg/scheduler/framework/interface.go): every plugin's reasons, UnschedulableAndUnresolvable if any
// plugin's status was. Merge walks a Go map, so its reasons come in random order; here, in run order.
void Engine::filter_one(std::span<const FilterPlugin* const> filters, const PodContext& pod,
                        const NodeInfo& node, FilterStatus& out) const {
  for (const FilterPlugin* f : filters) {
    const FilterCode code = f->check(pod, node, out.reasons);
    if (code == FilterCode::kSuccess) continue;
    if (!options_.always_check_all_predicates) {
      out.code = code;
      return;
    }
    if (code == FilterCode::kUnresolvable || out.code == FilterCode::kSuccess) out.code = code;
  }
}

void Engine::prepare(PodContext& pod, std::span<const NodeInfo* const> nodes) const {
  pod.filter_states.clear();
  for (const auto& f : filters_) {
    if (auto state = f->pre_filter(pod, nodes)) pod.filter_states.emplace_back(f.get(), std::move(state));
  }
  pod.prepared = true;
}

std::vector<FilterStatus> Engine::filter(const PodContext& unprepared,
                                         std::span<const NodeInfo* const> nodes) const {
  std::optional<PodContext> own;
  if (!unprepared.prepared) prepare(own.emplace(unprepared), nodes);
  const PodContext& pod = own ? *own : unprepared;
  // The filters that can fail this pod, chosen once per request rather than asked on every node.
  std::vector<const FilterPlugin*> active;
  active.reserve(filters_.size());
  for (const auto& f : filters_) {
    if (f->can_fail(pod)) active.push_back(f.get());
  }
  std::vector<FilterStatus> out(nodes.size());
  for_each_index(nodes.size(), filters_in_parallel(nodes.size()),
                 [&](size_t i) { filter_one(active, pod, *nodes[i], out[i]); });
  return out;
}

std::vector<FilterCode> Engine::filter_codes(const PodContext& unprepared,
                                             std::span<const NodeInfo* const> nodes) const {
  std::optional<PodContext> own;
  if (!unprepared.prepared) prepare(own.emplace(unprepared), nodes);
  const PodContext& pod = own ? *own : unprepared;
  std::vector<const FilterPlugin*> active;
  for (const auto& f : filters_) {
    if (f->can_fail(pod)) active.push_back(f.get());
  }
  std::vector<FilterCode> out(nodes.size(), FilterCode::kSuccess);
  for_each_index(nodes.size(), filters_in_parallel(nodes.size()), [&](size_t i) {
    thread_local FilterStatus scratch;
    scratch.code = FilterCode::kSuccess;
    scratch.reasons.clear();
    filter_one(active, pod, *nodes[i], scratch);
    out[i] = scratch.code;
  });
  return out;
}

std::shared_ptr<const Pod> Engine::reserve(std::shared_ptr<const Pod> pod, const NodeInfo& node) const {
  for (const auto& f : filters_)
    if (std::shared_ptr<const Pod> reserved = f->reserve(*pod, node)) pod = std::move(reserved);
  return pod;
}

bool Engine::fits(const PodContext& unprepared, const NodeInfo& node) const {
  std::optional<PodContext> own;
  if (!unprepared.prepared) {
    const NodeInfo* one[] = {&node};
    prepare(own.emplace(unprepared), one);
  }
  const PodContext& pod = own ? *own : unprepared;
  std::vector<std::string> reasons;  // not read; allocated only if a filter fails
  for (const auto& f : filters_) {
    if (f->check(pod, node, reasons) != FilterCode::kSuccess) return false;
  }
  return true;
}

ScoreMatrix Engine::score(const PodContext& pod, std::span<const NodeInfo* const> nodes,
                          ScoreScale scale) const {
  ScoreMatrix m;
  m.algorithms = scores_.size();
  m.nodes = nodes.size();
  m.raw.assign(m.algorithms * m.nodes, 0);
  m.combined.assign(m.nodes, 0);

  // The plugins as this scale sees them: on the scheduler's scale, each framework plugin undivided.
  std::vector<const ScorePlugin*> plugins(m.algorithms);
  for (size_t a = 0; a < m.algorithms; ++a) {
    plugins[a] = scale == ScoreScale::kSchedulerTotal ? &scores_[a].plugin->on_scheduler_scale()
                                                      : scores_[a].plugin.get();
  }
  std::vector<std::unique_ptr<ScorePrepared>> prepared(m.algorithms);
  for (size_t a = 0; a < m.algorithms; ++a) prepared[a] = plugins[a]->prepare(pod, nodes);

  // Map: the cell [a][n] is written only by the task that owns node n. Serially, one algorithm's row
  // at a time: the same plugin's call over and over, and each row written in order.
  if (scores_in_parallel(m.nodes)) {
    parallel_for_index(m.nodes, [&](size_t n) {
      for (size_t a = 0; a < m.algorithms; ++a) {
        m.raw[a * m.nodes + n] = plugins[a]->score_at(pod, prepared[a].get(), nodes, n);
      }
    });
  } else {
    for (size_t a = 0; a < m.algorithms; ++a) {
      const ScorePlugin& plugin = *plugins[a];
      const ScorePrepared* p = prepared[a].get();
      int64_t* row = m.raw.data() + a * m.nodes;
      for (size_t n = 0; n < m.nodes; ++n) row[n] = plugin.score_at(pod, p, nodes, n);
    }
  }

  // Reduce: each algorithm rewrites only its own row, so rows can run in parallel; they rarely carry
  // enough work to, even at 5000 nodes (bench/engine_bench.cc BM_Normalize measures one normalisation).
  m.reduced = m.raw;
  for_each_index(m.algorithms, parallel_limits().parallel(m.nodes, m.nodes * reduce_cost_ns_), [&](size_t a) {
    if (!plugins[a]->has_reduce()) return;
    plugins[a]->reduce(std::span<int64_t>(m.reduced.data() + a * m.nodes, m.nodes));
  });

  if (scale == ScoreScale::kSchedulerTotal) {
    for (size_t n = 0; n < m.nodes; ++n) {
      __int128 total = 0;
      for (size_t a = 0; a < m.algorithms; ++a) {
        total += static_cast<__int128>(scores_[a].weight) * m.reduced[a * m.nodes + n];
      }
      m.combined[n] = saturate(total);
    }
    return m;
  }
  // Exact in 128 bits: weights are int64, and a saturated sum would skew the mean out of 0..10.
  __int128 weight_sum = 0;
  for (const auto& s : scores_) weight_sum += s.weight;
  if (weight_sum == 0) return m;
  for (size_t n = 0; n < m.nodes; ++n) {
    __int128 total = 0;
    for (size_t a = 0; a < m.algorithms; ++a) {
      total += static_cast<__int128>(scores_[a].weight) * m.reduced[a * m.nodes + n];
    }
    m.combined[n] = saturate(div128(total, weight_sum));
  }
  return m;
}

}  // namespace kext
