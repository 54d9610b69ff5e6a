// PodTopologySpread and InterPodAffinity at a large cluster's size: 5,000 nodes in 3 zones, 150,000 pods of
// 1,500 Deployments, every pod with a required hostname anti-affinity to its own Deployment; the pod
// asked about is one more replica with a zone spread (DoNotSchedule), a hostname spread
// (ScheduleAnyway), the same anti-affinity and a preferred zone anti-affinity. Filter and prioritize
// of 500 names through the whole default profile, serially, CPU per request; and what a watch event
// costs the cache (a pod bound, then deleted).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/cpu_time.h"
#include "kube/state/cluster_view.h"
#include "kube/state/state_cache.h"
#include "policy/config.h"

namespace {

constexpr size_t kNodes = 5000;
constexpr size_t kDeployments = 1500;
constexpr size_t kReplicas = 100;
constexpr size_t kNames = 500;
const char* const kZones[] = {"zone-a", "zone-b", "zone-c"};

kext::LabelSelector app_selector(size_t d) {
  kext::LabelSelector s;
  s.match_labels["app"] = "d" + std::to_string(d);
  return s;
}

std::shared_ptr<const kext::PodAffinityRules> deployment_affinity(size_t d) {
  auto rules = std::make_shared<kext::PodAffinityRules>();
  kext::PodAffinityTerm host;
  host.label_selector = app_selector(d);
  host.topology_key = "kubernetes.io/hostname";
  rules->required_anti_affinity.push_back(host);
  kext::WeightedPodAffinityTerm zone{100, host};
  zone.term.topology_key = "topology.kubernetes.io/zone";
  rules->preferred_anti_affinity.push_back(zone);
  return rules;
}

kext::Pod replica(size_t d, size_t r, const std::string& node) {
  kext::Pod p;
  p.name = "d" + std::to_string(d) + "-" + std::to_string(r);
  p.namespace_ = "ns" + std::to_string(d % 10);
  p.uid = "uid-" + p.name;
  p.labels = kext::Labels{{"app", "d" + std::to_string(d)}, {"pod-template-hash", "h" + std::to_string(d)}};
  p.node_name = node;
  p.phase = node.empty() ? "Pending" : "Running";
  p.affinity = deployment_affinity(d);
  kext::Container c;
  c.name = "c";
  c.requests.milli_cpu = 100;
  c.requests.memory = 128 << 20;
  c.has_cpu_request = c.has_memory_request = true;
  p.containers.push_back(c);
  p.controller_kind = "ReplicaSet";
  p.controller_name = "d" + std::to_string(d) + "-h" + std::to_string(d);
  return p;
}

std::string node_name(size_t i) { return "node-" + std::to_string(i); }

struct Fixture {
  kext::StateCache cache;
  std::shared_ptr<const kext::ClusterState> state;
  std::vector<const kext::NodeInfo*> names;  // the request's 500 nodes
  kext::Pod pod;
};

Fixture& fixture() {
  static Fixture* f = [] {
    auto* f = new Fixture;
    {
      auto b = f->cache.batch();
      for (size_t i = 0; i < kNodes; ++i) {
        kext::Node n;
        n.name = node_name(i);
        n.labels = {{"kubernetes.io/hostname", n.name}, {"topology.kubernetes.io/zone", kZones[i % 3]}};
        n.allocatable.milli_cpu = 64000;
        n.allocatable.memory = int64_t{256} << 30;
        n.allocatable.pods = 110;
        b.upsert_node(std::move(n));
      }
      for (size_t d = 0; d < kDeployments; ++d)
        for (size_t r = 0; r < kReplicas; ++r)
          b.upsert_pod(replica(d, r, node_name((d * 7919 + r * 53) % kNodes)));
    }
    f->state = f->cache.view();
    for (size_t i = 0; i < kNames; ++i)
      f->names.push_back(f->state->find_node(node_name(i * (kNodes / kNames))));
    f->pod = replica(0, kReplicas, "");
    kext::TopologySpreadConstraint zone;
    zone.topology_key = "topology.kubernetes.io/zone";
    zone.max_skew = 1;
    zone.label_selector = app_selector(0);
    kext::TopologySpreadConstraint host = zone;
    host.topology_key = "kubernetes.io/hostname";
    host.when_unsatisfiable = "ScheduleAnyway";
    f->pod.topology_spread_constraints = {zone, host};
    return f;
  }();
  return *f;
}

using kext::bench::process_cpu_us;

// A configuration of only `plugins` (filter and score).
std::string only(std::string_view plugins) {
  return std::string(R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration","plugins":{
      "filter":{"disabled":[{"name":"*"}],"enabled":[)") +
         std::string(plugins) + R"(]},"score":{"disabled":[{"name":"*"}],"enabled":[)" +
         std::string(plugins) + "]}}}";
}

// range(0): 0 the whole default profile (kube-scheduler's plugins and weights), 1 only
// PodTopologySpread and InterPodAffinity, 2 only PodTopologySpread, 3 only InterPodAffinity.
// range(1): 0 filter, 1 prioritize. Serial: CPU = time.
void BM_TopologyRequest(benchmark::State& st) {
  Fixture& f = fixture();
  const std::string configs[] = {
      R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})",
      only(R"({"name":"PodTopologySpread"},{"name":"InterPodAffinity"})"),
      only(R"({"name":"PodTopologySpread"})"),
      only(R"({"name":"InterPodAffinity"})"),
  };
  const char* labels[] = {"default profile", "spread+affinity", "PodTopologySpread", "InterPodAffinity"};
  kext::Config config = kext::parse_config(configs[st.range(0)]);
  config.parallel_threshold = INT64_MAX;
  const kext::Profile profile = kext::compile(config);
  const bool scoring = st.range(1) == 1;
  st.SetLabel(std::string(labels[st.range(0)]) + (scoring ? ", prioritize" : ", filter"));
  const double cpu0 = process_cpu_us();
  for (auto _ : st) {
    // What a verb does per request: the view of the cluster, then the engine.
    auto view = kext::cluster_view_of(f.state);
    kext::PodContext ctx(f.pod, &view->view);
    if (scoring) {
      benchmark::DoNotOptimize(profile.engine.score(ctx, f.names));
    } else {
      benchmark::DoNotOptimize(profile.engine.filter(ctx, f.names));
    }
  }
  st.counters["cpu_us"] = (process_cpu_us() - cpu0) / static_cast<double>(st.iterations());
}
BENCHMARK(BM_TopologyRequest)->ArgsProduct({{0, 1, 2, 3}, {0, 1}})->Unit(benchmark::kMicrosecond);

// The figures behind the two plugins' cost_per_node_ns: what check() costs per node once PreFilter
// has run (range(1) 0), and a score's map and reduce per node once prepare has run (1). PreFilter and
// prepare are per request, not per node, and run serially: BM_TopologyRequest has them.
void BM_TopologyPluginCost(benchmark::State& st) {
  Fixture& f = fixture();
  static const kext::Profile profile = kext::compile(kext::parse_config(
      R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration","plugins":{
      "filter":{"disabled":[{"name":"*"}],"enabled":[{"name":"PodTopologySpread"},{"name":"InterPodAffinity"}]},
      "score":{"disabled":[{"name":"*"}],"enabled":[{"name":"PodTopologySpread"},{"name":"InterPodAffinity"}]}}})"));
  const auto index = static_cast<size_t>(st.range(0));
  auto view = kext::cluster_view_of(f.state);
  kext::PodContext ctx(f.pod, &view->view);
  profile.engine.prepare(ctx, f.names);
  if (st.range(1) == 0) {
    const kext::FilterPlugin& plugin = *profile.engine.filters()[index];
    st.SetLabel(std::string(plugin.name()) + " filter");
    std::vector<std::string> reasons;
    for (auto _ : st) {
      for (const kext::NodeInfo* n : f.names) {
        benchmark::DoNotOptimize(plugin.check(ctx, *n, reasons));
        reasons.clear();
      }
    }
  } else {
    const kext::ScorePlugin& plugin = profile.engine.scores()[index].plugin->on_scheduler_scale();
    st.SetLabel(std::string(plugin.name()) + " score");
    auto prepared = plugin.prepare(ctx, f.names);
    std::vector<int64_t> row(f.names.size());
    for (auto _ : st) {
      for (size_t i = 0; i < f.names.size(); ++i) row[i] = plugin.score_at(ctx, prepared.get(), f.names, i);
      if (plugin.has_reduce()) plugin.reduce(row);
      benchmark::DoNotOptimize(row.data());
    }
  }
  st.counters["ns_per_node"] = benchmark::Counter(static_cast<double>(st.iterations() * f.names.size()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TopologyPluginCost)->ArgsProduct({{0, 1}, {0, 1}});

// One watch event's upkeep in the cache at this size: a new replica bound (upsert), then deleted;
// each iteration is two events, the view not published (the reflector publishes once per batch).
void BM_WatchEventUpkeep(benchmark::State& st) {
  Fixture& f = fixture();
  size_t i = 0;
  for (auto _ : st) {
    kext::Pod p = replica(i % kDeployments, kReplicas + 1, node_name(i % kNodes));
    const std::string key = kext::StateCache::pod_key(p);
    {
      auto b = f.cache.batch();
      b.upsert_pod(std::move(p));
      b.delete_pod(key);
    }
    ++i;
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()) * 2);
}
BENCHMARK(BM_WatchEventUpkeep)->Unit(benchmark::kMicrosecond);

// The index upkeep alone: a replica joining its Deployment's group of 100 and leaving it again, with a
// publish between events as the reflector does (so that each write copies the group's shard).
void BM_PodGroupUpkeep(benchmark::State& st) {
  Fixture& f = fixture();
  kext::PodGroupIndex index;
  std::vector<std::shared_ptr<const kext::PodInfo>> pods;
  f.state->pod_groups.for_each([&](const auto&, const std::shared_ptr<const kext::PodGroup>& g) {
    for (const auto& p : g->pods) pods.push_back(p);
  });
  for (const auto& p : pods) index.add(p);
  size_t i = 0;
  for (auto _ : st) {
    const auto& p = pods[(i++ * 7919) % pods.size()];
    index.remove(p.get());
    benchmark::DoNotOptimize(index.publish());
    index.add(p);
    benchmark::DoNotOptimize(index.publish());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()) * 2);
}
BENCHMARK(BM_PodGroupUpkeep)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
