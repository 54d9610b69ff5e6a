// "How many more of this group fit?" in whole groups, each answer worked out by hand: a gang's
// all-or-nothing, a PodGroup's required rack, and a Deployment whose last group cannot complete. Each is
// an answer cluster-capacity, which places one pod at a time, cannot give.
#include "sim/capacity/how_many_groups.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::sim::capacity {
namespace how_many_groups_test {
namespace {

using kext::testing::GiB;
using kext::testing::make_node;
using sim::testing::kEpoch;
using sim::testing::sim_pod;

constexpr const char* kRack = "example.com/rack";

struct Case {
  std::string name{};
  std::vector<std::pair<std::string, std::string>> nodes{};  // name, rack
  int64_t node_cpu = 4000;
  size_t members = 4;
  int64_t member_cpu = 1000;
  bool gang = false;                // in a PodGroup of minMember `members`
  std::string required_topology{};  // the PodGroup's required topology label
  size_t max_groups = 0;
  // The answer, by hand.
  size_t fit = 0;
  std::string each_in_one{};
  std::vector<std::vector<std::string>> domains{};  // per group placed
  size_t fit_one_by_one = 0;                        // how_many_fit's copies of one member, for contrast
};

SimCluster cluster_of(const Case& c) {
  SimCluster cluster;
  for (const auto& [name, rack] : c.nodes) {
    Node node = make_node(name, c.node_cpu, 16 * GiB);
    node.labels[kRack] = rack;
    cluster.add_node(std::move(node));
  }
  return cluster;
}

GroupQuestion question_of(const Case& c) {
  GroupQuestion q;
  if (c.gang) {
    gang::PodGroupSpec g;
    g.namespace_ = "default";
    g.name = "train";
    g.min_member = static_cast<int32_t>(c.members);
    g.creation_unix_seconds = kEpoch;
    g.topology.required = c.required_topology;
    q.gang = g;
  }
  for (size_t i = 0; i < c.members; ++i) {
    Pod p = sim_pod("train-" + std::to_string(i), c.member_cpu, 0);
    Labels labels{{"app", "train"}};
    if (c.gang) labels[std::string(gang::kPodGroupLabel)] = "train";
    p.labels = SharedLabels(std::move(labels));
    p.controller_kind = "Job";
    p.controller_name = "train";
    q.members.push_back(std::move(p));
  }
  return q;
}

SimulatorOptions options_of(const simtool::SimConfig& config) {
  SimulatorOptions options;
  simtool::apply(config, options);
  options.epoch_unix_seconds = kEpoch;
  options.topology_levels = {kRack};
  return options;
}

TEST(HowManyGroups, WholeGroupsWorkedOutByHand) {
  const std::vector<Case> cases = {
      {.name = "a gang of 4 on 6 free CPUs: one group, though 6 members fit one by one",
       .nodes = {{"n1", "r1"}, {"n2", "r1"}, {"n3", "r2"}},
       .node_cpu = 2000,
       .gang = true,
       .fit = 1,
       .fit_one_by_one = 6},
      {.name = "a PodGroup bound to one rack: one group a rack of 6 CPUs",
       .nodes = {{"n1", "r1"}, {"n2", "r1"}, {"n3", "r2"}, {"n4", "r2"}},
       .node_cpu = 3000,
       .gang = true,
       .required_topology = kRack,
       .fit = 2,
       .each_in_one = "rack",
       .domains = {{"rack r1"}, {"rack r2"}},
       .fit_one_by_one = 12},
      {.name = "the same without the rack: the third group spans both racks' last 2 CPUs",
       .nodes = {{"n1", "r1"}, {"n2", "r1"}, {"n3", "r2"}, {"n4", "r2"}},
       .node_cpu = 3000,
       .gang = true,
       .fit = 3,
       .fit_one_by_one = 12},
      {.name = "a Job of 3 on 8 CPUs of one rack: two whole groups, the third one short of a CPU",
       .nodes = {{"n1", "r1"}, {"n2", "r1"}},
       .members = 3,
       .fit = 2,
       .each_in_one = "rack",
       .fit_one_by_one = 8},
  };
  const simtool::SimConfig config = simtool::load_sim_config("");
  const SimulatorOptions options = options_of(config);
  for (const Case& c : cases) {
    const GroupAnswer a =
        how_many_groups(cluster_of(c), *config.engine, options, question_of(c), c.max_groups);
    EXPECT_EQ(a.fit, c.fit) << c.name << ": " << a.message;
    EXPECT_EQ(a.size, c.members) << c.name;
    EXPECT_EQ(a.each_in_one, c.each_in_one) << c.name;
    if (!c.domains.empty()) {
      std::vector<std::vector<std::string>> domains;
      for (const GroupPlacement& g : a.groups) domains.push_back(g.domains);
      std::sort(domains.begin(), domains.end());  // which rack comes first is the scores' choice
      EXPECT_EQ(domains, c.domains) << c.name;
    }
    size_t members = 0;
    for (const GroupPlacement& g : a.groups)
      for (const NodeCount& n : g.per_node) members += n.pods;
    EXPECT_EQ(members, c.fit * c.members) << c.name << ": every group placed whole";
    EXPECT_FALSE(a.message.empty()) << c.name << ": the next group's reason";
    EXPECT_FALSE(a.stopped_at_max) << c.name;
    Pod alone = question_of(c).members.front();  // in no group
    alone.labels = SharedLabels(Labels{{"app", "train"}});
    const CapacityAnswer one_by_one = how_many_fit(cluster_of(c), *config.engine, options, alone);
    EXPECT_EQ(one_by_one.fit, c.fit_one_by_one) << c.name;
  }
}

TEST(HowManyGroups, TheJobsThirdGroupIsShortOfACpuAndSaysSo) {
  const Case c{.name = "job", .nodes = {{"n1", "r1"}, {"n2", "r1"}}, .members = 3};
  const simtool::SimConfig config = simtool::load_sim_config("");
  const GroupAnswer a = how_many_groups(cluster_of(c), *config.engine, options_of(config), question_of(c));
  EXPECT_EQ(a.group, "default/train");
  EXPECT_EQ(a.message, "0/2 nodes are available: 2 Insufficient cpu.");
  EXPECT_EQ(a.reasons, (std::map<std::string, size_t>{{"Insufficient cpu", 2}}));
}

TEST(HowManyGroups, ALimitAndABudgetStopEarly) {
  const Case c{.name = "job", .nodes = {{"n1", "r1"}, {"n2", "r1"}}, .members = 3};
  const simtool::SimConfig config = simtool::load_sim_config("");
  GroupAnswer a = how_many_groups(cluster_of(c), *config.engine, options_of(config), question_of(c), 1);
  EXPECT_EQ(a.fit, 1u);
  EXPECT_TRUE(a.stopped_at_max);
  EXPECT_EQ(a.message, "");
  // A group costs its members times the nodes in checks: 6 a group here.
  Budget budget;
  budget.max_node_checks = 11;
  a = how_many_groups(cluster_of(c), *config.engine, options_of(config), question_of(c), 0, budget);
  EXPECT_EQ(a.fit, 1u);
  EXPECT_EQ(a.stopped_by_budget, "nodes");
  EXPECT_EQ(a.node_checks, 6u);
}

TEST(HowManyGroups, CopiesAreNamedPerGroupAndJoinTheirOwnPodGroup) {
  const Case c{.name = "gang", .nodes = {{"n1", "r1"}}, .gang = true};
  const GroupQuestion q = question_of(c);
  const Pod copy = group_member_copy(q.members[1], q.gang, 2);
  EXPECT_EQ(copy.name, "train-1-2");
  EXPECT_EQ(copy.preemption_policy, "Never");
  EXPECT_EQ(copy.labels.at(std::string(gang::kPodGroupLabel)), "train-2");
  EXPECT_EQ(copy.labels.at("app"), "train");
}

}  // namespace
}  // namespace how_many_groups_test
}  // namespace kext::sim::capacity
