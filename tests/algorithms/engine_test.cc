#include "algorithms/engine.h"

#include <gtest/gtest.h>

#include <limits>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/catalogue.h"
#include "policy/policy.h"

namespace kext {
namespace engine_test {
namespace {

// A score that records the node's index-free identity (its allocatable cpu) so serial and parallel
// runs can be compared cell by cell.
class CpuScore : public ScorePlugin {
 public:
  std::string_view name() const override { return "Cpu"; }
  int64_t score(const PodContext&, const ScorePrepared*, const NodeInfo& n) const override {
    return n.node->allocatable.milli_cpu % 11;
  }
};

class ReversedCpuScore : public CpuScore {
 public:
  bool has_reduce() const override { return true; }
  void reduce(std::span<int64_t> s) const override { default_normalize_score(10, true, s); }
};

std::vector<NodeInfo> random_nodes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<NodeInfo> out(n);
  for (size_t i = 0; i < n; ++i) {
    auto node = std::make_shared<Node>();
    node->name = "node-" + std::to_string(i);
    node->allocatable.milli_cpu = 1000 + rng() % 64000;
    node->allocatable.memory = (1LL << 30) * (1 + rng() % 256);
    node->allocatable.pods = 110;
    out[i].node = node;
    auto pod = std::make_shared<Pod>();
    pod->uid = "p" + std::to_string(i);
    Container c;
    c.requests.milli_cpu = rng() % 8000;
    c.requests.memory = (1LL << 20) * (rng() % 8192);
    c.has_cpu_request = c.has_memory_request = true;
    pod->containers.push_back(c);
    out[i].add_pod(std::make_shared<const PodInfo>(make_pod_info(pod)));
  }
  return out;
}

std::shared_ptr<Node> cpu_node(const std::string& name, int64_t milli_cpu) {
  auto n = std::make_shared<Node>();
  n->name = name;
  n->allocatable.milli_cpu = milli_cpu;
  n->allocatable.memory = 1LL << 30;
  n->allocatable.pods = 10;
  return n;
}

std::unique_ptr<Engine> default_engine(size_t threshold, bool check_all = false) {
  Policy p = parse_policy(default_policy_json());
  p.always_check_all_predicates = check_all;
  p.parallel_threshold = static_cast<int64_t>(threshold);
  p.parallel_min_work_us = 0;  // the node count alone decides
  return build_engine(p);
}

TEST(Engine, SerialAndParallelGiveTheSameMatrixAndFilterResults) {
  auto nodes = random_nodes(3000, 7);
  std::vector<const NodeInfo*> ptrs;
  for (const auto& n : nodes) ptrs.push_back(&n);
  Pod pod;
  Container c;
  c.requests.milli_cpu = 2000;
  c.requests.memory = 1LL << 30;
  c.has_cpu_request = c.has_memory_request = true;
  pod.containers.push_back(c);
  PodContext ctx(pod);

  auto serial = default_engine(SIZE_MAX);
  auto parallel = default_engine(0);
  ScoreMatrix a = serial->score(ctx, ptrs);
  ScoreMatrix b = parallel->score(ctx, ptrs);
  EXPECT_EQ(a.raw, b.raw);
  EXPECT_EQ(a.reduced, b.reduced);
  EXPECT_EQ(a.combined, b.combined);
  // The serial filter runs one plugin over every node, the parallel one every plugin on a node: the
  // same statuses, stopping at the first failure or, checking all, merging every reason in order.
  for (const bool check_all : {false, true}) {
    auto fa = default_engine(SIZE_MAX, check_all)->filter(ctx, ptrs);
    auto fb = default_engine(0, check_all)->filter(ctx, ptrs);
    ASSERT_EQ(fa.size(), fb.size());
    size_t passed = 0, several_reasons = 0;
    for (size_t i = 0; i < fa.size(); ++i) {
      EXPECT_EQ(fa[i].code, fb[i].code) << i << (check_all ? " checking all" : "");
      EXPECT_EQ(fa[i].reasons, fb[i].reasons) << i << (check_all ? " checking all" : "");
      passed += fa[i].ok();
      several_reasons += fa[i].reasons.size() > 1;
    }
    EXPECT_GT(passed, 0u);
    EXPECT_LT(passed, fa.size());
    if (check_all) {
      EXPECT_GT(several_reasons, 0u);  // nodes that more than one filter refused
    }
  }
}

// A filter and a score of a stated cost that note every thread they ran on.
class ThreadNoting {
 public:
  std::set<std::thread::id> threads() const {
    std::lock_guard lock(mu_);
    return threads_;
  }

 protected:
  void note() const {
    std::lock_guard lock(mu_);
    threads_.insert(std::this_thread::get_id());
  }

 private:
  mutable std::mutex mu_;
  mutable std::set<std::thread::id> threads_;
};

class NotingFilter final : public FilterPlugin, public ThreadNoting {
 public:
  explicit NotingFilter(uint64_t cost) : cost_(cost) {}
  std::string_view name() const override { return "Noting"; }
  FilterCode check(const PodContext&, const NodeInfo&, std::vector<std::string>&) const override {
    note();
    return FilterCode::kSuccess;
  }
  uint64_t cost_per_node_ns() const override { return cost_; }

 private:
  uint64_t cost_;
};

class NotingScore final : public ScorePlugin, public ThreadNoting {
 public:
  explicit NotingScore(uint64_t cost) : cost_(cost) {}
  std::string_view name() const override { return "Noting"; }
  int64_t score(const PodContext&, const ScorePrepared*, const NodeInfo&) const override {
    note();
    return 1;
  }
  uint64_t cost_per_node_ns() const override { return cost_; }

 private:
  uint64_t cost_;
};

Engine noting_engine(uint64_t filter_cost, uint64_t score_cost, size_t threshold, uint64_t min_work_ns) {
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::make_unique<NotingFilter>(filter_cost));
  std::vector<WeightedScore> scores;
  scores.push_back({std::make_unique<NotingScore>(score_cost), 1});
  EngineOptions o;
  o.parallel_threshold = threshold;
  o.parallel_min_work_ns = min_work_ns;
  return Engine(std::move(filters), std::move(scores), o);
}

TEST(Engine, GoesParallelOnlyWithEnoughNodesAndEnoughWork) {
  struct Case {
    size_t nodes, threshold;
    uint64_t min_work_ns, filter_cost, score_cost;
    bool filters_parallel, scores_parallel;
  };
  const Case cases[] = {
      // work = nodes x cost against the floor
      {999, 0, 100'000, 100, 100, false, false},
      {1000, 0, 100'000, 100, 100, true, true},
      {1000, 0, 100'000, 100, 99, true, false},
      {1000, 0, 100'000, 99, 100, false, true},
      // the node floor holds whatever the work
      {1000, 1001, 0, 1'000'000, 1'000'000, false, false},
      {1001, 1001, 0, 0, 0, true, true},
      // the defaults: 5000 nodes of the default plugins' cost stay serial, a costlier plugin goes parallel
      {5000, kDefaultParallelThreshold, kDefaultParallelMinWorkNs, 50, 79, false, false},
      {5000, kDefaultParallelThreshold, kDefaultParallelMinWorkNs, 80, 80, true, true},
      {500, kDefaultParallelThreshold, kDefaultParallelMinWorkNs, 100'000, 100'000, false, false},
  };
  for (const auto& c : cases) {
    const Engine e = noting_engine(c.filter_cost, c.score_cost, c.threshold, c.min_work_ns);
    EXPECT_EQ(e.filters_in_parallel(c.nodes), c.filters_parallel)
        << c.nodes << " nodes, cost " << c.filter_cost;
    EXPECT_EQ(e.scores_in_parallel(c.nodes), c.scores_parallel) << c.nodes << " nodes, cost " << c.score_cost;
  }
}

// The work floor is what keeps oneTBB's workers (and their spinning after a region) out of cheap
// requests: 5000 nodes passed the node threshold alone and went parallel.
TEST(Engine, BelowTheWorkFloorEveryNodeRunsOnTheCallingThread) {
  auto nodes = random_nodes(5000, 3);
  std::vector<const NodeInfo*> ptrs;
  for (const auto& n : nodes) ptrs.push_back(&n);
  Pod pod;
  PodContext ctx(pod);
  const Engine e = noting_engine(20, 20, kDefaultParallelThreshold, kDefaultParallelMinWorkNs);
  e.filter(ctx, ptrs);
  e.score(ctx, ptrs);
  const std::set<std::thread::id> me{std::this_thread::get_id()};
  EXPECT_EQ(dynamic_cast<const NotingFilter&>(*e.filters()[0]).threads(), me);
  EXPECT_EQ(dynamic_cast<const NotingScore&>(*e.scores()[0].plugin).threads(), me);
}

// Every plugin of the catalogue states what bench/engine_bench.cc measured for it, so the engine's
// estimate is not the fallback's guess.
TEST(Engine, EveryCataloguePluginStatesItsMeasuredCost) {
  for (auto name : filter_names()) {
    EXPECT_NE(make_filter(name)->cost_per_node_ns(), kUnmeasuredCostNs) << name;
  }
  for (auto name : plugin_filter_names()) {
    EXPECT_NE(make_filter(name)->cost_per_node_ns(), kUnmeasuredCostNs) << name;
  }
  for (auto name : score_names()) {
    EXPECT_NE(make_score(name, ScoreArgs{})->cost_per_node_ns(), kUnmeasuredCostNs) << name;
  }
  for (auto name : plugin_score_names()) {
    EXPECT_NE(make_plugin_score(name, PluginArgs{})->cost_per_node_ns(), kUnmeasuredCostNs) << name;
  }
}

TEST(Engine, ReduceRunsPerAlgorithmAndWeightsCombineWithIntegerDivision) {
  std::vector<WeightedScore> scores;
  scores.push_back({std::make_unique<CpuScore>(), 1});
  scores.push_back({std::make_unique<ReversedCpuScore>(), 2});
  Engine engine({}, std::move(scores));
  auto nodes = random_nodes(3, 1);
  nodes[0].node = cpu_node("a", 10);
  nodes[1].node = cpu_node("b", 5);
  nodes[2].node = cpu_node("c", 0);
  std::vector<const NodeInfo*> ptrs{&nodes[0], &nodes[1], &nodes[2]};
  Pod pod;
  ScoreMatrix m = engine.score(PodContext(pod), ptrs);
  // Row 0 raw = 10, 5, 0 (no reduce). Row 1 raw = same, reversed normalisation: 0, 5, 10.
  EXPECT_EQ(m.at(0, 0), 10);
  EXPECT_EQ(m.at(1, 0), 0);
  EXPECT_EQ(m.at(1, 1), 5);
  EXPECT_EQ(m.at(1, 2), 10);
  EXPECT_EQ(m.raw_at(1, 2), 0);
  // (1*10 + 2*0)/3 = 3; (5 + 10)/3 = 5; (0 + 20)/3 = 6.
  EXPECT_EQ(m.combined, (std::vector<int64_t>{3, 5, 6}));
}

TEST(Engine, AlwaysCheckAllPredicatesCollectsEveryReason) {
  Policy p = parse_policy(R"({"predicates":[{"name":"CheckNodeUnschedulable"},{"name":"PodFitsResources"}],
      "priorities":[],"alwaysCheckAllPredicates":true})");
  auto engine = build_engine(p);
  NodeInfo n;
  auto node = cpu_node("n", 100);
  node->unschedulable = true;
  n.node = node;
  Pod pod;
  Container c;
  c.requests.milli_cpu = 50;
  c.requests.memory = 2LL << 30;
  c.has_cpu_request = c.has_memory_request = true;
  pod.containers.push_back(c);
  std::vector<const NodeInfo*> ptrs{&n};
  auto st = engine->filter(PodContext(pod), ptrs);
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].code, FilterCode::kUnresolvable);
  EXPECT_EQ(st[0].reasons.size(), 2u);
}

// A filter that fails every node; can_fail says whether it admits it for the pod at hand.
class RefusingFilter final : public FilterPlugin {
 public:
  explicit RefusingFilter(bool can_fail) : can_fail_(can_fail) {}
  std::string_view name() const override { return "Refusing"; }
  bool can_fail(const PodContext&) const override { return can_fail_; }
  FilterCode check(const PodContext&, const NodeInfo&, std::vector<std::string>& reasons) const override {
    ++checks_;
    reasons.emplace_back("refused");
    return FilterCode::kUnschedulable;
  }
  size_t checks() const { return checks_; }

 private:
  bool can_fail_;
  mutable size_t checks_ = 0;  // serial: 3 nodes stay under the parallel threshold
};

// The engine asks can_fail once per request and leaves the filter out of the node loop when it says no;
// fits() (preemption's dry runs, one node at a time) still runs every filter.
TEST(Engine, LeavesOutFiltersThatCannotFailThePod) {
  auto nodes = random_nodes(3, 5);
  std::vector<const NodeInfo*> ptrs;
  for (const auto& n : nodes) ptrs.push_back(&n);
  Pod pod;
  const PodContext ctx(pod);
  for (const bool can_fail : {false, true}) {
    SCOPED_TRACE(can_fail ? "can fail" : "cannot fail");
    std::vector<std::unique_ptr<FilterPlugin>> filters;
    filters.push_back(std::make_unique<RefusingFilter>(can_fail));
    const Engine e(std::move(filters), {});
    const auto& refusing = dynamic_cast<const RefusingFilter&>(*e.filters()[0]);
    const auto st = e.filter(ctx, ptrs);
    ASSERT_EQ(st.size(), 3u);
    for (const auto& s : st) {
      EXPECT_EQ(s.code, can_fail ? FilterCode::kUnschedulable : FilterCode::kSuccess);
      EXPECT_EQ(s.reasons, can_fail ? std::vector<std::string>{"refused"} : std::vector<std::string>{});
    }
    EXPECT_EQ(refusing.checks(), can_fail ? 3u : 0u);
    EXPECT_FALSE(e.fits(ctx, nodes[0]));
  }
}

TEST(DefaultNormalizeScore, StaysInRangeForExtremeRawScores) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  struct Case {
    std::string name;
    bool reverse;
    std::vector<int64_t> raw, want;
  };
  const std::vector<Case> cases = {
      {"ordinary", false, {8, 3, 0}, {10, 3, 0}},
      {"ordinary reversed", true, {8, 3, 0}, {0, 7, 10}},
      // 10 * max overflowed int64 before the division.
      {"int64 max raw score", false, {kMax, kMax / 2, 0}, {10, 4, 0}},
      {"int64 max raw score reversed", true, {kMax, kMax / 2, 0}, {0, 6, 10}},
      {"negative raw scores count as 0", false, {-5, 5}, {0, 10}},
      {"only negative raw scores", false, {-5, 0}, {0, 0}},
      {"only negative raw scores reversed", true, {-5, 0}, {10, 10}},
  };
  for (auto c : cases) {
    SCOPED_TRACE(c.name);
    default_normalize_score(10, c.reverse, c.raw);
    EXPECT_EQ(c.raw, c.want);
  }
}

TEST(Engine, Int64MaxWeightsCombineWithoutOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<WeightedScore> scores;
  scores.push_back({std::make_unique<CpuScore>(), kMax});
  scores.push_back({std::make_unique<ReversedCpuScore>(), kMax - 1});
  Engine engine({}, std::move(scores));
  auto nodes = random_nodes(3, 1);
  nodes[0].node = cpu_node("a", 10);
  nodes[1].node = cpu_node("b", 5);
  nodes[2].node = cpu_node("c", 0);
  std::vector<const NodeInfo*> ptrs{&nodes[0], &nodes[1], &nodes[2]};
  Pod pod;
  // Weight sum 2 max - 1: a 10 max / (2 max - 1) = 5, b (10 max - 5) / (2 max - 1) = 5, c
  // 10 (max - 1) / (2 max - 1) = 4. The wrapped int64 sums gave 3, 5, 6.
  EXPECT_EQ(engine.score(PodContext(pod), ptrs).combined, (std::vector<int64_t>{5, 5, 4}));
}

}  // namespace
}  // namespace engine_test
}  // namespace kext
