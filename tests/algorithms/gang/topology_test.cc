// Topology-aware gang admission (algorithms/gang/topology.h): a group's members all in one domain of
// a required key, a preferred key falling back level by level, and whole-group preemption choosing
// the domain that costs least in pickOneNodeForPreemption's order, applied to the group's total.
#include "algorithms/gang/topology.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "algorithms/gang/gatekeeper.h"
#include "algorithms/gpu/gpu_share.h"
#include "policy/config.h"
#include "tests/support/test_builders.h"

namespace kext::gang {
namespace gang_topology_test {
namespace {

using testing::GiB;

constexpr std::string_view kBlock = "example.com/block";
constexpr std::string_view kRack = "example.com/rack";

const Engine& default_engine() {
  static const Profile profile =
      compile(parse_config(R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})"));
  return profile.engine;
}

// A pod running on a node.
struct Running {
  int64_t cpu = 1000;
  int32_t priority = 0;
  bool gang_member = false;  // of a running group: never a victim
  bool protected_by_pdb = false;
  int64_t start = 1000;
};

// A node: its block and rack ("" for no label) and what runs on it.
struct NodeSpec {
  std::string name;
  std::string block;
  std::string rack;
  std::vector<Running> pods;
  int64_t cpu = 4000;
};

struct Layout {
  std::vector<NodeInfo> infos;
  explicit Layout(const std::vector<NodeSpec>& specs) {
    for (const NodeSpec& s : specs) {
      Node n = testing::make_node(s.name, s.cpu, 64 * GiB);
      n.labels = Labels{{"kubernetes.io/hostname", s.name}};
      if (!s.block.empty()) n.labels[std::string(kBlock)] = s.block;
      if (!s.rack.empty()) n.labels[std::string(kRack)] = s.rack;
      std::vector<Pod> pods;
      for (size_t k = 0; k < s.pods.size(); ++k) {
        const Running& r = s.pods[k];
        Pod p = testing::make_pod(s.name + "-p" + std::to_string(k), r.cpu, GiB);
        p.namespace_ = "train";
        p.priority = r.priority;
        p.start_time = r.start;
        Labels labels;
        if (r.gang_member) labels[std::string(kPodGroupLabel)] = "running";
        if (r.protected_by_pdb) labels["protected"] = "yes";
        p.labels = std::move(labels);
        pods.push_back(std::move(p));
      }
      infos.push_back(testing::node_info(std::move(n), std::move(pods)));
    }
  }
  std::vector<const NodeInfo*> nodes() const {
    std::vector<const NodeInfo*> out;
    for (const NodeInfo& n : infos) out.push_back(&n);
    return out;
  }
  std::string rack_of(std::string_view node) const {
    for (const NodeInfo& n : infos)
      if (n.name() == node) {
        auto it = n.node->labels.find(kRack);
        return it == n.node->labels.end() ? "" : it->second;
      }
    return "?";
  }
};

// `count` 2-CPU members of train/job at `priority`.
std::vector<std::shared_ptr<const Pod>> members(int count, int32_t priority = 0, int64_t cpu = 2000) {
  std::vector<std::shared_ptr<const Pod>> out;
  for (int i = 0; i < count; ++i) {
    Pod p = testing::make_pod("job-" + std::to_string(i), cpu, GiB);
    p.namespace_ = "train";
    p.priority = priority;
    p.labels = Labels{{std::string(kPodGroupLabel), "job"}};
    out.push_back(std::make_shared<const Pod>(std::move(p)));
  }
  return out;
}

PodGroupSpec job(int32_t size, std::string required, std::string preferred = "") {
  PodGroupSpec g;
  g.namespace_ = "train";
  g.name = "job";
  g.min_member = size;
  g.topology.required = std::move(required);
  g.topology.preferred = std::move(preferred);
  return g;
}

std::vector<Running> busy(int64_t cpu_each, int n, int32_t priority = 0) {
  return std::vector<Running>(static_cast<size_t>(n), Running{cpu_each, priority});
}

struct Case {
  std::string name;
  std::vector<NodeSpec> nodes;
  PodGroupSpec group;
  std::vector<std::string> levels;
  bool evicting = false;
  int32_t priority = 0;
  bool admitted = true;
  std::string domain;           // Admission::domain
  std::set<std::string> racks;  // the racks members went to
  std::string reason;           // a substring of the reason, when not admitted
  size_t victims = 0;
};

std::vector<Case> cases() {
  const std::string rack(kRack);
  const std::string block(kBlock);
  // Three racks of two 4-CPU nodes: r1 has 2 CPU used, r2 none, r3 6.
  const std::vector<NodeSpec> three_racks = {
      {"a1", "b1", "r1", busy(2000, 1)},
      {"a2", "b1", "r1", {}},
      {"b1", "b1", "r2", {}},
      {"b2", "b1", "r2", {}},
      {"c1", "b2", "r3", busy(2000, 2)},
      {"c2", "b2", "r3", busy(2000, 1)},
  };
  // Four racks of one 4-CPU node, two per block, each with 2 CPU free.
  const std::vector<NodeSpec> half_full = {
      {"a1", "b1", "r1", busy(2000, 1)},
      {"b1", "b1", "r2", busy(2000, 1)},
      {"c1", "b2", "r3", busy(2000, 1)},
      {"d1", "b2", "r4", busy(2000, 1)},
  };
  // Two full racks of two nodes, running pods of 2 CPU each.
  auto full = [](Running r1, Running r2) {
    return std::vector<NodeSpec>{{"a1", "b1", "r1", {r1, r1}},
                                 {"a2", "b1", "r1", {r1, r1}},
                                 {"b1", "b1", "r2", {r2, r2}},
                                 {"b2", "b1", "r2", {r2, r2}}};
  };
  Running low{2000, 50}, mid{2000, 100}, gang{2000, 10, true}, pdb{2000, 50, false, true},
      late{2000, 100, false, false, 5000};
  return {
      // r2 (6 CPU free) packs tighter than r1 (8 free), which comes first by name.
      {"required: the tightest packing rack that takes the whole group",
       {{"a1", "b1", "r1", {}},
        {"a2", "b1", "r1", {}},
        {"b1", "b1", "r2", busy(2000, 1)},
        {"b2", "b1", "r2", {}},
        {"c1", "b2", "r3", busy(2000, 2)},
        {"c2", "b2", "r3", busy(2000, 1)}},
       job(2, rack),
       {},
       false,
       0,
       true,
       "rack r2",
       {"r2"},
       "",
       0},
      {"required: a rack whose free room takes every member",
       three_racks,
       job(4, rack),
       {},
       false,
       0,
       true,
       "rack r2",
       {"r2"},
       "",
       0},
      {"required: more members than any rack takes when empty",
       three_racks,
       job(5, rack),
       {},
       false,
       0,
       false,
       "",
       {},
       "no rack can take 5 × 2 CPU + 1Gi: the largest, rack r1, takes 4 when empty",
       0},
      {"required: no rack has room now",
       half_full,
       job(2, rack),
       {},
       false,
       0,
       false,
       "",
       {},
       "no rack has room for 2 × 2 CPU + 1Gi: best rack r1 fits 1",
       0},
      {"required: a node without the label is never used",
       {{"a1", "", "r1", busy(2000, 1)}, {"big", "", "", {}, 64000}},
       job(2, rack),
       {},
       false,
       0,
       false,
       "",
       {},
       "best rack r1 fits 1",
       0},
      {"required: no node has the label",
       {{"a1", "", "", {}}},
       job(1, rack),
       {},
       false,
       0,
       false,
       "",
       {},
       "no node has label example.com/rack",
       0},
      {"preferred: one rack when one fits",
       three_racks,
       job(4, "", rack),
       {block, rack},
       false,
       0,
       true,
       "rack r2",
       {"r2"},
       "",
       0},
      {"preferred: one block before spreading further",
       half_full,
       job(2, "", rack),
       {block, rack},
       false,
       0,
       true,
       "block b1 (racks r1, r2)",
       {"r1", "r2"},
       "",
       0},
      {"preferred, no level above it: as few racks as fit",
       half_full,
       job(3, "", rack),
       {rack},
       false,
       0,
       true,
       "racks r1, r2, r3",
       {"r1", "r2", "r3"},
       "",
       0},
      {"preemption: the rack whose highest victim priority is lowest",
       full(mid, low),
       job(4, rack),
       {},
       true,
       1000,
       true,
       "rack r2",
       {"r2"},
       "",
       4},
      {"preemption: never a gang member, whatever it costs",
       full(mid, gang),
       job(4, rack),
       {},
       true,
       1000,
       true,
       "rack r1",
       {"r1"},
       "",
       4},
      {"preemption: fewest PDB violations first",
       full(mid, pdb),
       job(4, rack),
       {},
       true,
       1000,
       true,
       "rack r1",
       {"r1"},
       "",
       4},
      {"preemption: the victims that started last, all else equal",
       full(mid, late),
       job(4, rack),
       {},
       true,
       1000,
       true,
       "rack r2",
       {"r2"},
       "",
       4},
      // r1 must evict two 1-CPU pods, r2 one 2-CPU pod, all of priority 100 and none under a PDB:
      // r2 wins by its victims alone (upstream counts them in the sum of priorities, each offset by
      // 2^31, and again as the number of victims), though r1 comes first by name.
      {"preemption: fewest victims",
       {{"a1", "b1", "r1", {{1000, 100}, {1000, 100}, {1000, 100}, {1000, 100}}},
        {"b1", "b1", "r2", {mid, mid}}},
       job(1, rack),
       {},
       true,
       1000,
       true,
       "rack r2",
       {"r2"},
       "",
       1},
      {"preemption: only gang members run: no rack is freed",
       full(gang, gang),
       job(4, rack),
       {},
       true,
       1000,
       false,
       "",
       {},
       "no rack has room",
       0},
  };
}

class TopologyAdmission : public ::testing::TestWithParam<Case> {};

TEST_P(TopologyAdmission, PlacesTheGroupInOneDomainOrSaysWhy) {
  const Case& c = GetParam();
  const Layout layout(c.nodes);
  PodDisruptionBudget budget;
  budget.name = "protect";
  budget.namespace_ = "train";
  budget.selector = LabelSelector{{{"protected", "yes"}}, {}};
  const std::vector<PodDisruptionBudget> pdbs = {budget};
  const Evictions evictions{pdbs, 6000, preemption::Semantics::kCurrent};
  const auto m = members(c.group.min_member, c.priority);
  const Admission a = admit_in_topology(default_engine(), c.group, m, layout.nodes(), c.levels, nullptr,
                                        c.evicting ? &evictions : nullptr);
  ASSERT_EQ(a.admitted, c.admitted) << a.reason;
  if (!c.admitted) {
    EXPECT_NE(a.reason.find(c.reason), std::string::npos) << a.reason;
    EXPECT_EQ(a.reason.rfind("pod group train/job: ", 0), 0u) << a.reason;
    return;
  }
  EXPECT_EQ(a.domain, c.domain);
  ASSERT_EQ(a.placements.size(), static_cast<size_t>(c.group.min_member));
  std::set<std::string> racks;
  size_t victims = 0;
  for (const MemberPlacement& p : a.placements) {
    racks.insert(layout.rack_of(p.node));
    for (const auto& v : p.victims) {
      ++victims;
      EXPECT_EQ(c.racks.count(layout.rack_of(v->pod->node_name)), 1u) << "a victim outside the chosen domain";
      EXPECT_FALSE(pod_group_key(*v->pod).has_value()) << "a gang member evicted";
    }
  }
  EXPECT_EQ(racks, c.racks);
  EXPECT_EQ(victims, c.victims);
}

INSTANTIATE_TEST_SUITE_P(Cases, TopologyAdmission, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string n;
                           for (char ch : i.param.name)
                             n += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return n;
                         });

TEST(TopologyAdmission, WithoutAConstraintTheGroupGoesAnywhere) {
  const Layout layout({{"a1", "", "r1", busy(2000, 1)}, {"big", "", "", {}, 64000}});
  const auto m = members(2);
  const Admission a = admit_in_topology(default_engine(), job(2, ""), m, layout.nodes(), {});
  EXPECT_TRUE(a.admitted) << a.reason;
  EXPECT_EQ(a.domain, "");
}

TEST(TopologyAdmission, AGroupThatLostAMemberKeepsToItsDomain) {
  const Layout layout({{"a1", "", "r1", {}}, {"b1", "", "r2", {}}, {"b2", "", "r2", {}}});
  const auto m = members(2);
  const std::vector<std::string> bound = {"a1"};
  const Admission a = admit_in_topology(default_engine(), job(2, std::string(kRack)), m, layout.nodes(), {},
                                        nullptr, nullptr, bound);
  ASSERT_TRUE(a.admitted) << a.reason;
  EXPECT_EQ(a.domain, "rack r1");
}

// The cheapest domain's search stops early on a bound of each domain's cost: on random full racks it
// chooses what a dry run of every rack chooses.
TEST(TopologyAdmission, PreemptionChoosesWhatADryRunOfEveryRackChooses) {
  std::mt19937 rng(7);
  int preempting = 0;
  for (int round = 0; round < 40; ++round) {
    std::vector<NodeSpec> specs;
    for (int r = 0; r < 6; ++r)
      for (int n = 0; n < 2; ++n) {
        NodeSpec s{"n" + std::to_string(r) + "-" + std::to_string(n), "", "r" + std::to_string(r), {}};
        for (int64_t used = 0; used < 4000;) {
          Running p{static_cast<int64_t>(500 * (1 + rng() % 4)), static_cast<int32_t>(rng() % 4 * 10),
                    rng() % 8 == 0, rng() % 6 == 0, static_cast<int64_t>(1000 + rng() % 5)};
          if (used + p.cpu > 4000) p.cpu = 4000 - used;
          used += p.cpu;
          s.pods.push_back(p);
        }
        specs.push_back(std::move(s));
      }
    const Layout layout(specs);
    const std::vector<const NodeInfo*> nodes = layout.nodes();
    PodDisruptionBudget budget;
    budget.name = "protect";
    budget.namespace_ = "train";
    budget.selector = LabelSelector{{{"protected", "yes"}}, {}};
    const std::vector<PodDisruptionBudget> pdbs = {budget};
    const Evictions evictions{pdbs, 6000, preemption::Semantics::kCurrent};
    const int size = 1 + static_cast<int>(rng() % 4);
    const auto m = members(size, 100, 1000 + 500 * static_cast<int64_t>(rng() % 3));
    const PodGroupSpec g = job(size, std::string(kRack));

    std::optional<std::pair<preemption::RankKey, std::string>> best;  // every rack's dry run
    for (const Domain& d : domains_of(kRack, nodes)) {
      const Admission a = admit(default_engine(), g, m, nodes, nullptr, &evictions, &d.nodes);
      if (!a.admitted) continue;
      preemption::Candidate c;
      for (const MemberPlacement& p : a.placements) {
        c.victims.insert(c.victims.end(), p.victims.begin(), p.victims.end());
        c.num_pdb_violations += p.pdb_violations;
      }
      std::stable_sort(c.victims.begin(), c.victims.end(), [](const auto& x, const auto& y) {
        return x->pod->effective_priority() > y->pod->effective_priority();
      });
      const preemption::RankKey key = preemption::rank_key(c, evictions.now_unix_seconds);
      if (!best || preemption::compare_keys(key, d.value, best->first, best->second).a_first)
        best = std::make_pair(key, d.value);
    }
    const Admission a = admit_in_topology(default_engine(), g, m, nodes, {}, nullptr, &evictions);
    ASSERT_EQ(a.admitted, best.has_value()) << "round " << round << ": " << a.reason;
    if (best) {
      EXPECT_EQ(a.domain, "rack " + best->second) << "round " << round;
      preempting += best->first.has_victims ? 1 : 0;
    }
  }
  EXPECT_GT(preempting, 20) << "most rounds preempt";
}

struct FitCase {
  std::string name;
  Resources request;
  int32_t size;
  std::vector<LevelFit> want;
};

TEST(FitByLevel, CountsTheDomainsOfEachLevelThatTakeAGroup) {
  // Block b1: r1 (2 CPU free), r2 (2 free); block b2: r3 (2 free), r4 (4 free).
  const Layout layout({{"a1", "b1", "r1", busy(2000, 1)},
                       {"b1", "b1", "r2", busy(2000, 1)},
                       {"c1", "b2", "r3", busy(2000, 1)},
                       {"d1", "b2", "r4", {}},
                       {"e1", "", "", {}}});
  Resources two_cpu;
  two_cpu.milli_cpu = 2000;
  const std::vector<std::string> levels = {std::string(kBlock), std::string(kRack)};
  const std::vector<FitCase> table = {
      {"one member", two_cpu, 1, {{levels[0], 2, 2, "b1", 1}, {levels[1], 4, 4, "r1", 1}}},
      {"two members", two_cpu, 2, {{levels[0], 2, 2, "b1", 2}, {levels[1], 4, 1, "r4", 2}}},
      {"three members", two_cpu, 3, {{levels[0], 2, 1, "b2", 3}, {levels[1], 4, 0, "r4", 2}}},
  };
  for (const FitCase& c : table)
    EXPECT_EQ(fit_by_level(levels, layout.nodes(), c.request, c.size), c.want) << c.name;
}

TEST(RequestText, PrintsAMembersRequestAsReasonsDo) {
  Resources r;
  EXPECT_EQ(request_text(r), "no resources");
  r.milli_cpu = 2000;
  EXPECT_EQ(request_text(r), "2 CPU");
  r.milli_cpu = 500;
  r.memory = 4 * GiB;
  r.set_scalar("nvidia.com/gpu", 1);
  EXPECT_EQ(request_text(r), "500m CPU + 4Gi + 1 nvidia.com/gpu");
  EXPECT_EQ(level_name("topology.kubernetes.io/rack"), "rack");
  EXPECT_EQ(level_name("rack"), "rack");
}

// The gatekeeper admits topology-constrained groups one domain each, and its states and reasons name
// the domain: what decision logs, /debug/decisions and the scheduler's FailedScheduling event show.
TEST(GatekeeperTopology, StatesAndReasonsNameTheDomain) {
  // Three racks of one 4-CPU node; r3's pod is of priority 0.
  const Layout layout({{"a1", "", "r1", {}}, {"b1", "", "r2", {}}, {"c1", "", "r3", {{4000, 0}}}});
  GroupMap groups;
  std::map<std::string, std::vector<std::shared_ptr<const Pod>>> pods;
  for (const std::string name : {"g1", "g2", "g3"}) {
    PodGroupSpec g = job(2, std::string(kRack));
    g.name = name;
    groups[g.key()] = g;
    for (int i = 0; i < 2; ++i) {
      Pod p = testing::make_pod(name + "-" + std::to_string(i), 2000, GiB);
      p.namespace_ = "train";
      p.uid = p.name;
      p.priority = name == "g3" ? 100 : 0;
      p.labels = Labels{{std::string(kPodGroupLabel), name}};
      pods[g.key()].push_back(std::make_shared<const Pod>(std::move(p)));
    }
  }
  const MembersOf members_of = [&](std::string_view group, const Pod&) {
    return GroupMembers{pods[std::string(group)], 0, {}};
  };
  const NodesOf nodes_of = [&] { return layout.nodes(); };
  Gatekeeper gates;
  const Engine& engine = default_engine();
  const Gate g1 = gates.gate(engine, *pods["train/g1"][0], groups, members_of, nodes_of, nullptr, Time{0});
  EXPECT_EQ(g1.kind, Gate::Kind::kOnlyNode);
  EXPECT_EQ(g1.state, "admitted now in rack r1");
  const Gate g2 = gates.gate(engine, *pods["train/g2"][0], groups, members_of, nodes_of, nullptr, Time{0});
  EXPECT_EQ(g2.state, "admitted now in rack r2");
  const Gate again = gates.gate(engine, *pods["train/g1"][1], groups, members_of, nodes_of, nullptr, Time{1});
  EXPECT_NE(again.state.find("in rack r1"), std::string::npos) << again.state;

  const Gate g3 = gates.gate(engine, *pods["train/g3"][0], groups, members_of, nodes_of, nullptr, Time{2});
  EXPECT_EQ(g3.kind, Gate::Kind::kRefuse);
  EXPECT_EQ(g3.reason, "pod group train/g3: no rack has room for 2 × 2 CPU + 1Gi: best rack r1 fits 0");
  const Evictions evictions{{}, 6000, preemption::Semantics::kCurrent};
  const GroupPreemption p = gates.preempt_after(engine, *pods["train/g3"][0], g3, members_of, nodes_of,
                                                nullptr, Time{2}, evictions);
  EXPECT_EQ(p.kind, GroupPreemption::Kind::kNode);
  EXPECT_EQ(p.node, "c1");
  EXPECT_EQ(p.state, "admitted now, preempting 1 pod of priority <= 0 in rack r3");
  EXPECT_EQ(gates.domain_of("train/g3"), "rack r3");

  // A PodGroup whose annotation names no label key: its members wait, told why.
  GroupMap bad = groups;
  bad["train/g1"].topology.invalid = "annotation x: \"a/b/c\" is not a node label key";
  const Gate refused = gates.gate(engine, *pods["train/g1"][0], bad, members_of, nodes_of, nullptr, Time{3});
  EXPECT_EQ(refused.kind, Gate::Kind::kRefuse);
  EXPECT_EQ(refused.reason, "pod group train/g1: annotation x: \"a/b/c\" is not a node label key");
}

// Eight cards of 80 GiB, whole ones only in this test.
std::shared_ptr<const gpu::NodeDevices> eight_cards(const std::string& node) {
  gpu::NodeDevices d;
  for (uint32_t i = 0; i < 8; ++i)
    d.devices.push_back(gpu::Device{
        node + "-gpu-" + std::to_string(i), i, 10, 81920, 100, "NVIDIA-H100", 0, true, "hami-core", {}});
  return std::make_shared<const gpu::NodeDevices>(std::move(d));
}

// A member asking `cards` whole GPUs.
Pod gpu_member(const std::string& group, int i, int64_t cards) {
  Container c = testing::make_container(1000, GiB);
  c.requests.set_scalar("nvidia.com/gpu", cards);
  Pod p = testing::make_pod_with(group + "-" + std::to_string(i), {c});
  p.namespace_ = "train";
  p.uid = p.name;
  p.labels = Labels{{std::string(kPodGroupLabel), group}};
  return p;
}

// Gangs see devices: members are placed one after another with the cards each takes (the GPU filter's
// reserve), so a group of 8 × 4 GPUs goes to the rack with 32 cards free, two members a node, not to
// the rack whose nodes each pass one member's filter but have 28 cards in all. The room held for it
// counts those cards for every other pod.
TEST(GatekeeperTopology, GpuMembersCountTheCardsOfThoseBeforeThem) {
  std::vector<NodeInfo> infos;
  for (const std::string rack : {"r1", "r2"}) {
    for (int i = 0; i < 4; ++i) {
      const std::string name = rack + "-n" + std::to_string(i);
      Node n = testing::make_node(name, 64000, 512 * GiB);
      n.labels = Labels{{"kubernetes.io/hostname", name}, {std::string(kRack), rack}};
      n.allocatable.set_scalar("nvidia.com/gpu", 80);
      n.gpus = eight_cards(name);
      std::vector<Pod> running;
      if (rack == "r1" && i == 0) {  // four of r1-n0's cards are in use
        Pod p = testing::make_pod("holder", 1000, GiB);
        auto shares = std::make_shared<gpu::PodShares>();
        for (int c = 0; c < 4; ++c)
          shares->shares.push_back(gpu::DeviceShare{name + "-gpu-" + std::to_string(c), 1, 81920, 100});
        p.gpu_shares = std::move(shares);
        running.push_back(std::move(p));
      }
      infos.push_back(testing::node_info(std::move(n), std::move(running)));
    }
  }
  std::vector<const NodeInfo*> nodes;
  for (const NodeInfo& n : infos) nodes.push_back(&n);
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(make_gpu_share_filter(gpu::SharingConfig{}));
  const Engine engine(std::move(filters), {});

  GroupMap groups;
  std::map<std::string, std::vector<std::shared_ptr<const Pod>>> pods;
  for (const std::string name : {"g1", "g2"}) {
    PodGroupSpec g = job(8, std::string(kRack));
    g.name = name;
    groups[g.key()] = g;
    for (int i = 0; i < 8; ++i) pods[g.key()].push_back(std::make_shared<const Pod>(gpu_member(name, i, 4)));
  }
  const MembersOf members_of = [&](std::string_view group, const Pod&) {
    return GroupMembers{pods[std::string(group)], 0, {}};
  };
  const NodesOf nodes_of = [&] { return nodes; };
  Gatekeeper gates;
  const Gate first = gates.gate(engine, *pods["train/g1"][0], groups, members_of, nodes_of, nullptr, Time{0});
  EXPECT_EQ(first.state, "admitted now in rack r2") << first.reason;
  std::map<std::string, int> per_node;
  for (const auto& member : pods["train/g1"]) {
    const Gate g = gates.gate(engine, *member, groups, members_of, nodes_of, nullptr, Time{1});
    ASSERT_EQ(g.kind, Gate::Kind::kOnlyNode) << g.reason;
    ++per_node[g.node];
  }
  EXPECT_EQ(per_node, (std::map<std::string, int>{{"r2-n0", 2}, {"r2-n1", 2}, {"r2-n2", 2}, {"r2-n3", 2}}));

  // r1 has 28 cards free: seven members of g2, not eight.
  const Gate second =
      gates.gate(engine, *pods["train/g2"][0], groups, members_of, nodes_of, nullptr, Time{2});
  EXPECT_EQ(second.kind, Gate::Kind::kRefuse) << second.state;

  // A pod of no group asking one card: every r2 card is held for g1.
  Pod one = gpu_member("none", 0, 1);
  one.labels = Labels{};
  std::vector<const NodeInfo*> seen = nodes;
  std::deque<NodeInfo> copies;
  apply_held_room(gates.held_room(), seen, copies, "");
  const std::vector<FilterStatus> statuses = engine.filter(PodContext(one), seen);
  for (size_t i = 0; i < seen.size(); ++i)
    EXPECT_EQ(statuses[i].ok(), seen[i]->name().starts_with("r1")) << seen[i]->name();
}

}  // namespace
}  // namespace gang_topology_test
}  // namespace kext::gang
