// Gang admission at a training cluster's size: 100 gangs of 8 pods admitted one after another on 500 nodes of
// 16 CPU, each gang's pods asking 2 to 12 CPU (a different size per gang, so that the cluster
// fragments), through kube-scheduler's whole default profile. Each admitted gang's room is held for
// the next. Reports the time to admit one gang and the share of the cluster's CPU the admitted gangs
// hold, with kube-scheduler's default profile and with one that packs.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "algorithms/gang/admission.h"
#include "algorithms/gang/topology.h"
#include "algorithms/namespaced_key.h"
#include "bench/synthetic_cluster.h"
#include "extender/gang/coordinator.h"
#include "extender/verbs/verbs.h"
#include "kube/state/cluster_view.h"
#include "policy/config.h"

namespace {

constexpr int kNodes = 500;
constexpr int kGangs = 100;
constexpr int kMembers = 8;
constexpr int64_t kNodeCpu = 16000;
constexpr int64_t kGiB = int64_t{1} << 30;

std::vector<kext::NodeInfo> cluster() {
  std::vector<kext::NodeInfo> out(kNodes);
  for (int i = 0; i < kNodes; ++i) {
    auto node = std::make_shared<kext::Node>();
    node->name = "node-" + std::to_string(i);
    node->labels = {{"kubernetes.io/hostname", node->name},
                    {"topology.kubernetes.io/zone", "zone-" + std::to_string(i % 3)}};
    node->allocatable.milli_cpu = kNodeCpu;
    node->allocatable.memory = 64 * kGiB;
    node->allocatable.pods = 110;
    out[i].node = std::move(node);
  }
  return out;
}

std::vector<std::shared_ptr<const kext::Pod>> gang_pods(int g) {
  std::vector<std::shared_ptr<const kext::Pod>> out;
  const int64_t cpu = 2000 * (1 + g % 6);  // 2 to 12 CPU
  for (int m = 0; m < kMembers; ++m) {
    auto p = std::make_shared<kext::Pod>();
    p->namespace_ = "train";
    p->name = "job-" + std::to_string(g) + "-" + std::to_string(m);
    p->uid = kext::namespaced_key(p->namespace_, p->name);
    p->labels = kext::Labels{{std::string(kext::gang::kPodGroupLabel), "job-" + std::to_string(g)}};
    kext::Container c;
    c.name = "worker";
    c.requests.milli_cpu = cpu;
    c.requests.memory = 4 * kGiB;
    c.has_cpu_request = c.has_memory_request = true;
    p->containers.push_back(std::move(c));
    out.push_back(std::move(p));
  }
  return out;
}

// kube-scheduler's default profile; with MostAllocated scoring instead of LeastAllocated.
constexpr const char* kDefaultProfile =
    R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})";
constexpr const char* kPackingProfile =
    R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration",
    "pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAllocated"}}}]})";

void BM_AdmitGangs(benchmark::State& state, const char* config) {
  const kext::Profile profile = kext::compile(kext::parse_config(config));
  std::vector<std::vector<std::shared_ptr<const kext::Pod>>> gangs;
  for (int g = 0; g < kGangs; ++g) gangs.push_back(gang_pods(g));
  int admitted = 0;
  int64_t held_cpu = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<kext::NodeInfo> infos = cluster();
    std::vector<const kext::NodeInfo*> nodes;
    for (const auto& n : infos) nodes.push_back(&n);
    admitted = 0;
    held_cpu = 0;
    state.ResumeTiming();
    for (int g = 0; g < kGangs; ++g) {
      kext::gang::PodGroupSpec spec;
      spec.namespace_ = "train";
      spec.name = "job-" + std::to_string(g);
      spec.min_member = kMembers;
      const kext::gang::Admission a = kext::gang::admit(profile.engine, spec, gangs[g], nodes);
      if (!a.admitted) continue;
      ++admitted;
      for (size_t m = 0; m < a.placements.size(); ++m) {
        for (auto& n : infos) {
          if (n.name() != a.placements[m].node) continue;
          auto info = std::make_shared<const kext::PodInfo>(kext::make_pod_info(gangs[g][m]));
          held_cpu += info->requests.milli_cpu;
          n.add_pod(std::move(info));
        }
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * kGangs);
  state.counters["gangs_admitted"] = admitted;
  state.counters["cpu_share_held"] = static_cast<double>(held_cpu) / (kNodeCpu * kNodes);
}
BENCHMARK_CAPTURE(BM_AdmitGangs, default_profile, kDefaultProfile)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();
BENCHMARK_CAPTURE(BM_AdmitGangs, most_allocated, kPackingProfile)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

// Whole-group preemption (admission with Evictions): the 500 nodes full, each running four 4-CPU pods
// of priority 0, and one gang of 8 members of 8 CPU at priority 100, so that every member evicts two
// pods, each through DefaultPreemption's dry run on every node. The extender's /preempt holds the gang
// lock for this long (extender/gang/coordinator.cc), so the figure is wall time.
void BM_AdmitGangWithEvictions(benchmark::State& state) {
  const kext::Profile profile = kext::compile(kext::parse_config(kDefaultProfile));
  std::vector<kext::NodeInfo> infos = cluster();
  for (int i = 0; i < kNodes; ++i) {
    for (int k = 0; k < 4; ++k) {
      auto p = std::make_shared<kext::Pod>();
      p->namespace_ = "default";
      p->name = "low-" + std::to_string(i) + "-" + std::to_string(k);
      p->uid = kext::namespaced_key(p->namespace_, p->name);
      p->node_name = infos[i].name();
      p->priority = 0;
      p->start_time = 1000;
      kext::Container c;
      c.name = "c";
      c.requests.milli_cpu = kNodeCpu / 4;
      c.requests.memory = kGiB;
      c.has_cpu_request = c.has_memory_request = true;
      p->containers.push_back(std::move(c));
      infos[i].add_pod(std::make_shared<const kext::PodInfo>(kext::make_pod_info(std::move(p))));
    }
  }
  std::vector<const kext::NodeInfo*> nodes;
  for (const auto& n : infos) nodes.push_back(&n);
  std::vector<std::shared_ptr<const kext::Pod>> members;
  for (const auto& m : gang_pods(3)) {  // 8 CPU each
    auto p = std::make_shared<kext::Pod>(*m);
    p->priority = 100;
    members.push_back(std::move(p));
  }
  kext::gang::PodGroupSpec spec;
  spec.namespace_ = "train";
  spec.name = "job-3";
  spec.min_member = kMembers;
  const kext::gang::Evictions evictions{{}, 2000, kext::preemption::Semantics::kCurrent};
  size_t victims = 0;
  bool admitted = false;
  for (auto _ : state) {
    const kext::gang::Admission a =
        kext::gang::admit(profile.engine, spec, members, nodes, nullptr, &evictions);
    admitted = a.admitted;
    victims = 0;
    for (const auto& p : a.placements) victims += p.victims.size();
    benchmark::DoNotOptimize(a);
  }
  state.counters["admitted"] = admitted;
  state.counters["victims"] = static_cast<double>(victims);
}
BENCHMARK(BM_AdmitGangWithEvictions)->Unit(benchmark::kMillisecond)->UseRealTime();

// Topology-aware admission at a large training cluster's size: 5,000 nodes of 32 CPU in 250 racks of
// 20 nodes, 25 blocks of 10 racks, running 150,000 pods (30 a node). A group of 64 members of 4 CPU with
// a required rack (algorithms/gang/topology.h): the racks' free room screened, the best-packed rack that
// takes the group placed member by member. `full`: every node runs 30 pods of 1 CPU, so no rack has
// room and the group preempts in the rack whose evictions cost least (each rack's pods at their own
// priority); else they ask 0.5 CPU and racks run 10 to 30 pods a node, so racks differ in free room.
// The cluster as the extender's state holds it (kube/state): the pods grouped as the cache groups them,
// which is what InterPodAffinity's and PodTopologySpread's PreFilter walk.
struct RackCluster {
  std::unique_ptr<const kext::StateClusterView> view;
  std::span<const kext::NodeInfo* const> nodes() const { return view->nodes; }
};

RackCluster rack_cluster(bool full) {
  constexpr int kRackNodes = 20, kRacks = 250, kRacksPerBlock = 10, kPodsPerNode = 30;
  kext::ClusterStateBuilder b;
  for (int i = 0; i < kRackNodes * kRacks; ++i) {
    const int rack = i / kRackNodes;
    kext::Node node;
    node.name = "node-" + std::to_string(i);
    node.labels = {{"kubernetes.io/hostname", node.name},
                   {"example.com/rack", "rack-" + std::to_string(rack)},
                   {"example.com/block", "block-" + std::to_string(rack / kRacksPerBlock)}};
    node.allocatable.milli_cpu = 32000;
    node.allocatable.memory = 128 * kGiB;
    node.allocatable.pods = 110;
    const int pods = full ? kPodsPerNode : 10 + rack % 3 * 10;
    for (int k = 0; k < pods; ++k) {
      kext::Pod p;
      p.namespace_ = "default";
      p.name = "run-" + std::to_string(i) + "-" + std::to_string(k);
      p.uid = kext::namespaced_key(p.namespace_, p.name);
      p.labels = kext::Labels{{"app", "svc-" + std::to_string(rack % 50)}};
      p.node_name = node.name;
      p.phase = "Running";
      p.priority = rack % 50;
      p.start_time = 1000 + rack;
      kext::Container ct;
      ct.name = "c";
      ct.requests.milli_cpu = full ? 1000 : 500;
      ct.requests.memory = kGiB;
      ct.has_cpu_request = ct.has_memory_request = true;
      p.containers.push_back(std::move(ct));
      b.add_pod(std::move(p));
    }
    b.add_node(std::move(node));
  }
  return {kext::cluster_view_of(std::move(b).build())};
}

void BM_AdmitInRack(benchmark::State& state) {
  const bool full = state.range(0) != 0;
  const kext::Profile profile = kext::compile(kext::parse_config(kDefaultProfile));
  const RackCluster c = rack_cluster(full);
  std::vector<std::shared_ptr<const kext::Pod>> members;
  for (int m = 0; m < 64; ++m) {
    auto p = std::make_shared<kext::Pod>(*gang_pods(1)[0]);  // 4 CPU, 4Gi
    p->name = "big-" + std::to_string(m);
    p->uid = kext::namespaced_key(p->namespace_, p->name);
    p->priority = 1000;
    members.push_back(std::move(p));
  }
  kext::gang::PodGroupSpec spec;
  spec.namespace_ = "train";
  spec.name = "big";
  spec.min_member = 64;
  spec.topology.required = "example.com/rack";
  const std::vector<std::string> levels = {"example.com/block", "example.com/rack"};
  const kext::gang::Evictions evictions{{}, 2000, kext::preemption::Semantics::kCurrent};
  kext::gang::Admission a;
  for (auto _ : state) {
    a = kext::gang::admit_in_topology(profile.engine, spec, members, c.nodes(), levels, &c.view->view,
                                      full ? &evictions : nullptr);
    benchmark::DoNotOptimize(a);
  }
  size_t victims = 0;
  for (const auto& p : a.placements) victims += p.victims.size();
  state.counters["admitted"] = a.admitted;
  state.counters["victims"] = static_cast<double>(victims);
  state.SetLabel(a.domain);
}
BENCHMARK(BM_AdmitInRack)
    ->ArgName("full")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

// What gang scheduling adds to an ordinary pod's /filter (in process, no HTTP): 500 names of
// extender-gen's cluster (10 pods a node), without gang scheduling (arg -1), with it and no group
// admitted (0), and with 20 groups of eight 2-CPU members admitted (20), their room held on the nodes
// admission chose, which every ordinary filter counts (the held nodes copied, the held members added).
void BM_OrdinaryFilter(benchmark::State& state) {
  const int groups = static_cast<int>(state.range(0));
  const kext::bench::Workload w = kext::bench::make_workload(500, 10);
  kext::ClusterStateBuilder b;
  kext::load_snapshot_json(w.snapshot, b);
  std::vector<std::shared_ptr<const kext::Pod>> first;  // one member of each group
  for (int g = 0; g < std::max(groups, 0); ++g) {
    kext::gang::PodGroupSpec spec;
    spec.namespace_ = "train";
    spec.name = "job-" + std::to_string(g);
    spec.min_member = kMembers;
    spec.schedule_timeout_seconds = 3600;  // held for the whole run
    b.add_gang(spec);
    std::vector<std::shared_ptr<const kext::Pod>> members = gang_pods(g * 6);  // 2 CPU each
    for (const auto& m : members) b.add_pod(*m);
    first.push_back(members.front());
  }
  kext::StateStore store;
  store.publish(std::move(b).build());
  const kext::Profile profile = kext::compile(kext::parse_policy(kext::default_policy_json()));
  std::unique_ptr<kext::GangCoordinator> gangs;
  if (groups >= 0) {
    kext::GangConfig config;
    gangs = std::make_unique<kext::GangCoordinator>(profile.engine, store, config);
    for (const auto& m : first) gangs->gate(*m, *store.current(), nullptr);
  }
  kext::Verbs verbs(profile, store, kext::kDefaultNodeCacheEntries, nullptr, gangs.get());
  for (auto _ : state) benchmark::DoNotOptimize(verbs.filter(w.names_request));
  state.counters["held_nodes"] = gangs ? static_cast<double>(gangs->held_room()->by_node.size()) : 0;
}
BENCHMARK(BM_OrdinaryFilter)->Arg(-1)->Arg(0)->Arg(20)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
