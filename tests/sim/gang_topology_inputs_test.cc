// What extender-sim's gang scheduling is given for topology: the PodGroups' topology annotations from
// the cluster file, each configuration's gang.topologyLevels (--config, and --compare's own), and the
// nodes of a group's bound members (sim/core/cycle.cc members_of).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "json/json.h"
#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::simtool {
namespace gang_topology_inputs_test {
namespace {

using kext::sim::testing::SimFiles;

// A 4-CPU node in `block` and `rack`.
std::string node_json(const std::string& name, const std::string& block, const std::string& rack) {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" +
         name + R"(","example.com/block":")" + block + R"(","example.com/rack":")" + rack +
         R"("}},"status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"110"}}})";
}

// A pod of `cpu` CPUs: running on `node`, or pending without one; a member of `group` unless "".
std::string pod_json(const std::string& name, const std::string& cpu, const std::string& node,
                     const std::string& group = "") {
  const std::string labels = group.empty() ? "{}" : R"({"scheduling.x-k8s.io/pod-group":")" + group + R"("})";
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"train","uid":"uid-)" + name +
         R"(","labels":)" + labels + R"(},"spec":{)" +
         (node.empty() ? "" : R"("nodeName":")" + node + R"(",)") +
         R"("containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
         R"(","memory":"64Mi"}}}]},"status":{"phase":")" + (node.empty() ? "Pending" : "Running") + R"("}})";
}

// scheduler-plugins' PodGroup g of `min_member`, with one topology annotation.
std::string group_json(int min_member, std::string_view annotation) {
  return R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":"g",
      "namespace":"train","annotations":{")" +
         std::string(annotation) + R"(":"example.com/rack"}},"spec":{"minMember":)" +
         std::to_string(min_member) + "}}";
}

std::string list_json(const std::vector<std::string>& items) {
  std::string out = R"({"kind":"List","items":[)";
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : ",") + items[i];
  return out + "]}";
}

std::string config_json(const std::string& gang) {
  return R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration")" + gang + "}";
}

// The blocks the group's members were bound in (n0-n2 are block A, n3 block B).
std::set<std::string> blocks_of(const SimResult& r) {
  std::set<std::string> out;
  for (int i = 0; i < 4; ++i) {
    const auto p = r.placements.find("train/g-" + std::to_string(i));
    if (p == r.placements.end() || p->second.empty()) {
      ADD_FAILURE() << "g-" << i << " not bound";
      continue;
    }
    out.insert(p->second == "n3" ? "B" : "A");
  }
  return out;
}

// A group of four 1-CPU members that prefers one rack, where none has room: block A's racks have 2, 1
// and 1 CPU free, block B's one rack 2. As few racks as possible are a1 and b1, in two blocks; with
// the levels block > rack, the group falls back to one block first: all of A's racks.
TEST(SimGangTopologyInputs, EachConfigurationsLevelsReachItsRun) {
  SimFiles f("gang-topology-levels");
  std::vector<std::string> items = {node_json("n0", "A", "a1"),
                                    node_json("n1", "A", "a2"),
                                    node_json("n2", "A", "a3"),
                                    node_json("n3", "B", "b1"),
                                    pod_json("used-0", "2", "n0"),
                                    pod_json("used-1", "3", "n1"),
                                    pod_json("used-2", "3", "n2"),
                                    pod_json("used-3", "2", "n3"),
                                    group_json(4, gang::kPreferredTopologyAnnotation)};
  for (int i = 0; i < 4; ++i) items.push_back(pod_json("g-" + std::to_string(i), "1", "", "g"));
  SimCommand command;
  command.cluster_file = f.write("cluster.json", list_json(items));
  command.config_file = f.write(
      "levels.json", config_json(R"(,"gang":{"topologyLevels":["example.com/block","example.com/rack"]})"));
  command.compare_file = f.write("none.json", config_json(""));

  const SimConfig levels = load_sim_config(command, command.config_file);
  EXPECT_EQ(levels.topology_levels, (std::vector<std::string>{"example.com/block", "example.com/rack"}));
  sim::SimulatorOptions options;
  apply(levels, options);
  EXPECT_EQ(options.topology_levels, levels.topology_levels);
  EXPECT_TRUE(load_sim_config(command, command.compare_file).topology_levels.empty());

  EXPECT_EQ(blocks_of(run_sim(command, nullptr)), (std::set<std::string>{"A"}));
  EXPECT_EQ(blocks_of(run_sim(compare_command(command), nullptr, "--compare")),
            (std::set<std::string>{"A", "B"}));
}

// A group that lost a member is admitted again in the rack its running member is in (r2), though r1
// packs tighter: its members are held and bound on r2's nodes, the bound member counting towards
// minMember.
TEST(SimGangTopologyInputs, RunningMembersKeepTheGroupInTheirRack) {
  SimFiles f("gang-topology-bound");
  SimCommand command;
  command.cluster_file =
      f.write("cluster.json",
              list_json({node_json("n0", "A", "r1"), node_json("n1", "A", "r1"), node_json("n2", "A", "r2"),
                         node_json("n3", "A", "r2"), pod_json("used", "2", "n0"),
                         group_json(3, gang::kRequiredTopologyAnnotation), pod_json("g-0", "1", "n2", "g"),
                         pod_json("g-1", "1", "", "g"), pod_json("g-2", "1", "", "g")}));
  command.max_time_seconds = 1;  // the admission only
  std::ostringstream log;
  run_sim(command, &log);
  std::map<std::string, std::string> held;  // member -> node it waited or was bound on
  std::istringstream lines(log.str());
  for (std::string line; std::getline(lines, line);) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    ASSERT_TRUE(d.IsObject()) << line;
    const std::string outcome = d["outcome"].GetString();
    if (outcome == "waiting" || outcome == "scheduled") held[d["name"].GetString()] = d["node"].GetString();
  }
  ASSERT_EQ(held.size(), 2u) << log.str();
  for (const auto& [member, node] : held)
    EXPECT_TRUE(node == "n2" || node == "n3") << member << " on " << node;
}

}  // namespace
}  // namespace gang_topology_inputs_test
}  // namespace kext::simtool
