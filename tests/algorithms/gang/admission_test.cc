// Gang admission (algorithms/gang/admission.h): a group is placed whole, through the profile's
// filters, on the nodes the reservations already held leave, or not at all with a reason naming it.
#include "algorithms/gang/admission.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "policy/config.h"
#include "tests/support/test_builders.h"

namespace kext::gang {
namespace admission_test {
namespace {

using testing::GiB;
using testing::make_node;
using testing::make_pod;

// kube-scheduler's default profile, PodTopologySpread and InterPodAffinity included.
const Engine& modern_engine() {
  static const Profile profile =
      compile(parse_config(R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})"));
  return profile.engine;
}

struct Cluster {
  std::vector<NodeInfo> infos;
  explicit Cluster(int nodes, int64_t cpu_milli = 4000) {
    for (int i = 0; i < nodes; ++i) {
      Node n = make_node("n" + std::to_string(i), cpu_milli, 16 * GiB);
      n.labels = Labels{{"kubernetes.io/hostname", n.name}};
      infos.push_back(testing::node_info(std::move(n)));
    }
  }
  std::vector<const NodeInfo*> nodes() const {
    std::vector<const NodeInfo*> out;
    for (const NodeInfo& n : infos) out.push_back(&n);
    return out;
  }
  // What an admitted group holds from now on: its members on their nodes.
  void hold(const Admission& a, const std::vector<std::shared_ptr<const Pod>>& members) {
    for (const MemberPlacement& p : a.placements) {
      for (const auto& m : members) {
        if (m->uid != p.uid) continue;
        for (NodeInfo& n : infos)
          if (n.name() == p.node) n.add_pod(std::make_shared<const PodInfo>(make_pod_info(m)));
      }
    }
  }
};

PodGroupSpec group(std::string name, int32_t min_member) {
  PodGroupSpec g;
  g.namespace_ = "train";
  g.name = std::move(name);
  g.min_member = min_member;
  return g;
}

// `count` members of `g`, each asking `cpu_milli`; `tweak` edits each.
std::vector<std::shared_ptr<const Pod>> members(const PodGroupSpec& g, int count, int64_t cpu_milli,
                                                const std::function<void(Pod&)>& tweak = {}) {
  std::vector<std::shared_ptr<const Pod>> out;
  for (int i = 0; i < count; ++i) {
    Pod p = make_pod(g.name + "-" + std::to_string(i), cpu_milli, GiB);
    p.namespace_ = g.namespace_;
    p.labels = Labels{{std::string(kPodGroupLabel), g.name}, {"job", g.name}};
    if (tweak) tweak(p);
    out.push_back(std::make_shared<const Pod>(std::move(p)));
  }
  return out;
}

std::map<std::string, int> per_node(const Admission& a) {
  std::map<std::string, int> out;
  for (const MemberPlacement& p : a.placements) ++out[p.node];
  return out;
}

TEST(GangAdmission, AGroupThatFitsIsPlacedWhole) {
  Cluster c(10);
  const PodGroupSpec g = group("a", 8);
  const auto m = members(g, 8, 2000);
  const Admission a = admit(modern_engine(), g, m, c.nodes());
  ASSERT_TRUE(a.admitted) << a.reason;
  ASSERT_EQ(a.placements.size(), 8u);
  for (size_t i = 0; i < m.size(); ++i) EXPECT_EQ(a.placements[i].uid, m[i]->uid);
  for (const auto& [node, n] : per_node(a)) EXPECT_LE(n, 2) << node << " holds more than its 4 CPU";
}

TEST(GangAdmission, OnlyMinMemberArePlaced) {
  Cluster c(2);
  const PodGroupSpec g = group("a", 3);
  const Admission a = admit(modern_engine(), g, members(g, 5, 1000), c.nodes());
  ASSERT_TRUE(a.admitted) << a.reason;
  EXPECT_EQ(a.placements.size(), 3u);
}

TEST(GangAdmission, ThreeGroupsWithRoomForTwoAdmitTwoWhole) {
  // The deadlock measured with a real kube-scheduler 1.26: 10 nodes of 4 CPU, three groups of eight
  // 2-CPU pods. Admitted in order, the first two hold 32 CPU between them; the third is refused
  // whole instead of binding 6 of its 8.
  Cluster c(10);
  std::vector<Admission> admissions;
  for (const char* name : {"a", "b", "c"}) {
    const PodGroupSpec g = group(name, 8);
    const auto m = members(g, 8, 2000);
    admissions.push_back(admit(modern_engine(), g, m, c.nodes()));
    if (admissions.back().admitted) c.hold(admissions.back(), m);
  }
  EXPECT_TRUE(admissions[0].admitted) << admissions[0].reason;
  EXPECT_TRUE(admissions[1].admitted) << admissions[1].reason;
  ASSERT_FALSE(admissions[2].admitted);
  EXPECT_TRUE(admissions[2].placements.empty());
  EXPECT_EQ(
      admissions[2].reason,
      "pod group train/c: member train/c-4 fits no node with 4 of 8 members placed (10 Insufficient cpu)");
}

struct RefusalCase {
  std::string name;
  int nodes;
  int32_t min_member;
  int count;
  std::function<void(Pod&)> tweak;
  Resources min_resources;
  std::string reason;
};

class GangRefusal : public ::testing::TestWithParam<RefusalCase> {};

TEST_P(GangRefusal, NamesTheGroupAndWhatIsMissing) {
  const RefusalCase& t = GetParam();
  Cluster c(t.nodes);
  PodGroupSpec g = group("g", t.min_member);
  g.min_resources = t.min_resources;
  const Admission a = admit(modern_engine(), g, members(g, t.count, 1000, t.tweak), c.nodes());
  EXPECT_FALSE(a.admitted);
  EXPECT_TRUE(a.placements.empty());
  EXPECT_EQ(a.reason, t.reason);
}

Resources cpu(int64_t milli) {
  Resources r;
  r.milli_cpu = milli;
  return r;
}

// Required anti-affinity between the group's own members, one per host.
void one_per_host(Pod& p) {
  auto rules = std::make_shared<PodAffinityRules>();
  PodAffinityTerm t;
  t.label_selector = LabelSelector{};
  t.label_selector->match_labels = Labels{{"job", "g"}};
  t.topology_key = "kubernetes.io/hostname";
  rules->required_anti_affinity.push_back(std::move(t));
  p.affinity = std::move(rules);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GangRefusal,
    ::testing::Values(
        RefusalCase{"TooFewMembers", 3, 4, 3, {}, {}, "pod group train/g: 3 pods pending of minMember 4"},
        RefusalCase{
            "MinResourcesNotFree",
            3,
            2,
            2,
            {},
            cpu(20000),
            "pod group train/g: minResources not free in the cluster: cpu: wants 20000m, 12000m free"},
        RefusalCase{
            "AMemberFitsNowhere",
            3,
            2,
            2,
            [](Pod& p) {
              p.node_selector = Labels{{"gpu", "a100"}};
            },
            {},
            "pod group train/g: member train/g-0 fits no node with 0 of 2 members placed (3 node(s) didn't "
            "match Pod's node affinity/selector)"},
        // The members placed before count in InterPodAffinity's PreFilter state: the fourth finds every
        // host taken by its siblings.
        RefusalCase{
            "SiblingsAntiAffinity",
            3,
            4,
            4,
            one_per_host,
            {},
            "pod group train/g: member train/g-3 fits no node with 3 of 4 members placed (3 node(s) didn't "
            "match pod anti-affinity rules)"}),
    [](const auto& info) { return info.param.name; });

TEST(GangAdmission, SiblingsAntiAffinityPlacesOnePerHost) {
  Cluster c(3);
  const PodGroupSpec g = group("g", 3);
  const Admission a = admit(modern_engine(), g, members(g, 3, 1000, one_per_host), c.nodes());
  ASSERT_TRUE(a.admitted) << a.reason;
  EXPECT_EQ(per_node(a), (std::map<std::string, int>{{"n0", 1}, {"n1", 1}, {"n2", 1}}));
}

TEST(GangAdmission, ResourceGapReadsFreeResourcesOnly) {
  Cluster c(2, 1000);
  c.infos[0].add_pod(std::make_shared<const PodInfo>(
      make_pod_info(std::make_shared<const Pod>(make_pod("busy", 1500, GiB)))));  // over-committed
  EXPECT_EQ(resource_gap(cpu(1000), c.nodes()), "") << "n1's 1000m is free; n0 counts 0, not -500";
  EXPECT_EQ(resource_gap(cpu(1001), c.nodes()), "cpu: wants 1001m, 1000m free");
  Resources gpus;
  gpus.set_scalar("nvidia.com/gpu", 1);
  EXPECT_EQ(resource_gap(gpus, c.nodes()), "nvidia.com/gpu: wants 1, 0 free");
}

// Whole-group preemption: admission with Evictions. Two nodes of 4 CPU; a group of two 3-CPU
// members at priority 100; what runs on the nodes varies.
struct RunningPod {
  std::string name;
  std::string node;
  int64_t cpu_milli;
  int32_t priority;
  std::string group;  // non-empty: a member of that (running) group
};

struct EvictionCase {
  std::string name;
  std::vector<RunningPod> running;
  bool admitted;
  std::map<std::string, std::vector<std::string>> victims;  // member -> victims' names
  std::string reason;
};

class GangEvictions : public ::testing::TestWithParam<EvictionCase> {};

TEST_P(GangEvictions, EvictOnlyWhatMakesRoomForTheWholeGroup) {
  const EvictionCase& t = GetParam();
  Cluster c(2);
  for (const RunningPod& r : t.running) {
    Pod p = make_pod(r.name, r.cpu_milli, GiB);
    p.node_name = r.node;
    p.priority = r.priority;
    p.start_time = 1000;
    if (!r.group.empty()) p.labels = Labels{{std::string(kPodGroupLabel), r.group}};
    for (NodeInfo& n : c.infos)
      if (n.name() == r.node)
        n.add_pod(std::make_shared<const PodInfo>(make_pod_info(std::make_shared<const Pod>(p))));
  }
  const PodGroupSpec g = group("g", 2);
  const auto m = members(g, 2, 3000, [](Pod& p) { p.priority = 100; });
  const Evictions evictions{{}, 2000, preemption::Semantics::kCurrent};
  const Admission a = admit(modern_engine(), g, m, c.nodes(), nullptr, &evictions);
  EXPECT_EQ(a.admitted, t.admitted) << a.reason;
  EXPECT_EQ(a.reason, t.reason);
  std::map<std::string, std::vector<std::string>> victims;
  std::map<std::string, int> members_on;
  for (size_t i = 0; i < a.placements.size(); ++i) {
    ++members_on[a.placements[i].node];
    for (const auto& v : a.placements[i].victims) victims[m[i]->name].push_back(v->pod->name);
  }
  EXPECT_EQ(victims, t.victims);
  for (const auto& [node, n] : members_on) EXPECT_EQ(n, 1) << node << " holds two 3-CPU members";
  // Without evictions the group is refused, as filter refuses it.
  if (!t.victims.empty()) {
    EXPECT_FALSE(admit(modern_engine(), g, m, c.nodes()).admitted);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GangEvictions,
    ::testing::Values(
        EvictionCase{"EachMemberEvictsWhereItGoes",
                     {{"low-a", "n0", 4000, 0, ""}, {"low-b", "n1", 2000, 0, ""}},
                     true,
                     // Ties broken as pickOneNodeForPreemption's last criterion here: the smaller name.
                     {{"g-0", {"low-a"}}, {"g-1", {"low-b"}}},
                     ""},
        EvictionCase{
            "AMemberInFreeRoomEvictsNothing", {{"low-a", "n0", 4000, 0, ""}}, true, {{"g-1", {"low-a"}}}, ""},
        EvictionCase{"AGangMemberIsNeverAVictim",
                     {{"other-0", "n0", 4000, 0, "other"}, {"low-b", "n1", 2000, 0, ""}},
                     false,
                     {},
                     "pod group train/g: member train/g-1 fits no node with 1 of 2 members placed (2 "
                     "Insufficient cpu)"},
        EvictionCase{"NoPodOfEqualOrHigherPriorityIsEvicted",
                     {{"high-a", "n0", 4000, 100, ""}, {"low-b", "n1", 2000, 0, ""}},
                     false,
                     {},
                     "pod group train/g: member train/g-1 fits no node with 1 of 2 members placed (2 "
                     "Insufficient cpu)"}),
    [](const auto& info) { return info.param.name; });

TEST(PodGroup, KeyFromTheLabelAndAdmissionOrder) {
  Pod p = make_pod("w", 100, 0);
  p.namespace_ = "train";
  EXPECT_FALSE(pod_group_key(p).has_value());
  p.labels = Labels{{std::string(kPodGroupLabel), ""}};
  EXPECT_FALSE(pod_group_key(p).has_value()) << "an empty label is no group";
  p.labels = Labels{{std::string(kPodGroupLabel), "job-1"}};
  EXPECT_EQ(pod_group_key(p), "train/job-1");
  // spec.schedulingGroup names an upstream group, the same name in another API: another group.
  p.scheduling_group = "job-1";
  EXPECT_EQ(pod_group_key(p), "train/job-1 (scheduling.k8s.io)");
  PodGroupSpec upstream = group("job-1", 2);
  upstream.api = GroupApi::kWorkload;
  EXPECT_EQ(upstream.key(), pod_group_key(p));
  EXPECT_EQ(upstream.timeout_seconds(), kWorkloadTimeoutSeconds);

  // Membership, without building a key per pod: the same rule as pod_group_key.
  EXPECT_EQ(membership_in(p, "train/job-1 (scheduling.k8s.io)"), Membership::kPending);
  EXPECT_EQ(membership_in(p, "train/job-1"), Membership::kNone) << "its label is not its group";
  EXPECT_EQ(membership_in(p, "other/job-1 (scheduling.k8s.io)"), Membership::kNone);
  EXPECT_EQ(membership_in(p, "train/job-10 (scheduling.k8s.io)"), Membership::kNone);
  p.node_name = "n0";
  EXPECT_EQ(membership_in(p, "train/job-1 (scheduling.k8s.io)"), Membership::kBound);
  p.terminating = true;
  EXPECT_EQ(membership_in(p, "train/job-1 (scheduling.k8s.io)"), Membership::kNone);
  p.terminating = false;
  p.scheduling_group.clear();
  EXPECT_EQ(membership_in(p, "train/job-1"), Membership::kBound);
  EXPECT_EQ(membership_in(p, "train/job-"), Membership::kNone);
  EXPECT_EQ(membership_in(p, "train"), Membership::kNone);

  PodGroupSpec older = group("z", 1), newer = group("a", 1);
  older.creation_unix_seconds = 100;
  newer.creation_unix_seconds = 200;
  EXPECT_TRUE(admitted_before(older, 0, newer, 0)) << "the older group first";
  EXPECT_TRUE(admitted_before(newer, 10, older, 0)) << "a higher priority first";
  newer.creation_unix_seconds = 100;
  EXPECT_TRUE(admitted_before(newer, 0, older, 0)) << "then by name";
  EXPECT_FALSE(admitted_before(older, 0, older, 0));
  EXPECT_EQ(older.timeout_seconds(), kDefaultScheduleTimeoutSeconds);
  older.schedule_timeout_seconds = 300;
  EXPECT_EQ(older.timeout_seconds(), 300);
}

}  // namespace
}  // namespace admission_test
}  // namespace kext::gang
