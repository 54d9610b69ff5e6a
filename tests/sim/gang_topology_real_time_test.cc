// Topology-aware gangs through the real kube-extender on default flags (--enable-bind), driven as
// kube-scheduler 1.26 drives it: extender-sim --real-time (kube-scheduler's SchedulingQueue in real
// seconds, a bind per pod on its own connection, httpTimeout, PostFilter asking /preempt), as
// gang_real_time_test.cc runs untyped gangs.
//
// The scenario of docs/gang-scheduling.md, "Topology: a whole group in one rack": 8 racks of 4 nodes;
// six scheduler-plugins PodGroups of 8 annotated kube-extender.io/required-topology: example.com/rack
// each bind whole in one rack; ordinary pods of two lower priorities then fill the two racks left; a
// seventh group of higher priority evicts in exactly one rack (the one whose highest victim priority
// is lowest, as pickOneNodeForPreemption ranks nodes), never a gang member, and binds whole there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/gang/pod_group.h"
#include "json/json.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/sim/extender_run.h"

namespace kext::simtool {
namespace gang_topology_real_time_test {
namespace {

using kext::sim::testing::SimFiles;

constexpr int kRacks = 8;
constexpr int kNodesPerRack = 4;
constexpr int kGroups = 6;             // bound first, one rack each
constexpr int kMembers = 8;            // minMember of every group: 8 × 2 CPU fill one rack of 4 × 4 CPU
constexpr double kMaxPartlyBound = 3;  // seconds a group may be seen partly bound
// Seconds between two pods' creation. The six groups' members wait at bind until the first held call
// is answered (the extender's --gang-bind-hold) and kube-scheduler moves them back; the fillers'
// arrivals (16 of them) must outlast that, so that every rack is busy when the seventh group's first pod
// arrives (checked below, not assumed). The groups usually complete 2.3 s after their last member
// arrives, but one more backoff of a member's has made it 6.5 s under TSan, past the 6.4 s that 0.4 s
// gave: 0.5 s gives 8 s.
constexpr double kArrivalInterval = 0.5;
constexpr const char* kRackKey = "example.com/rack";

std::string rack_name(int r) { return "r" + std::to_string(r); }
std::string node_name(int r, int i) { return rack_name(r) + "-n" + std::to_string(i); }
std::string rack_of_node(const std::string& node) { return node.substr(0, node.find('-')); }

std::string nodes_json() {
  std::string out = R"({"kind":"List","items":[)";
  for (int r = 1; r <= kRacks; ++r) {
    for (int i = 0; i < kNodesPerRack; ++i) {
      const std::string n = node_name(r, i);
      out += (out.back() == '[' ? "" : ",") + std::string(R"({"kind":"Node","metadata":{"name":")") + n +
             R"(","labels":{"kubernetes.io/hostname":")" + n + R"(",")" + kRackKey + R"(":")" + rack_name(r) +
             R"("}},"status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"110"}}})";
    }
  }
  return out + "]}";
}

std::string priority_class_json(const std::string& name, int value) {
  return R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":")" + name +
         R"("},"value":)" + std::to_string(value) + "}";
}

// A scheduler-plugins PodGroup of kMembers whose members must share one rack.
std::string pod_group_json(const std::string& name, int second) {
  return R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup","metadata":{"name":")" + name +
         R"(","namespace":"train","creationTimestamp":"2026-11-24T10:00:0)" + std::to_string(second) +
         R"(Z","annotations":{")" + std::string(gang::kRequiredTopologyAnnotation) + R"(":")" + kRackKey +
         R"("}},"spec":{"minMember":)" + std::to_string(kMembers) + R"(,"scheduleTimeoutSeconds":30}})";
}

// A 2-CPU pod: a member of `group`, or an ordinary pod (group "") kept to `rack`. Victims go at once
// (terminationGracePeriodSeconds 0), as the e2e's filler pods do without a kubelet.
std::string pod_json(const std::string& name, const std::string& group, const std::string& priority_class,
                     const std::string& rack) {
  const std::string labels =
      group.empty() ? R"({"app":"filler"})" : R"({"scheduling.x-k8s.io/pod-group":")" + group + R"("})";
  std::string spec = R"({"terminationGracePeriodSeconds":0)";
  if (!priority_class.empty()) spec += R"(,"priorityClassName":")" + priority_class + R"(")";
  if (!rack.empty()) spec += R"(,"nodeSelector":{")" + std::string(kRackKey) + R"(":")" + rack + R"("})";
  spec += R"(,"containers":[{"name":"c","resources":{"requests":{"cpu":"2"}}}]})";
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"train","labels":)" + labels +
         R"(},"spec":)" + spec + "}";
}

// In arrival order: the six groups' members interleaved (as a Job controller per group creates them),
// then rack A's fillers (priority 100) and rack B's (priority 50) on the two racks the groups leave,
// then the seventh group (priority 1000).
struct Scenario {
  std::vector<std::string> pods;  // names, in arrival order
  std::string rack_a, rack_b;
  std::string json;
};

Scenario scenario() {
  Scenario s;
  // The groups take the emptiest racks in order of their values when all pack alike
  // (algorithms/gang/topology.cc TopologyAdmission::rank).
  s.rack_a = rack_name(kGroups + 1);
  s.rack_b = rack_name(kGroups + 2);
  std::vector<std::string> items = {priority_class_json("filler-a", 100), priority_class_json("filler-b", 50),
                                    priority_class_json("gang-high", 1000)};
  for (int g = 1; g <= kGroups + 1; ++g) items.push_back(pod_group_json("g" + std::to_string(g), g));
  auto add = [&](const std::string& name, const std::string& group, const std::string& pc,
                 const std::string& rack) {
    s.pods.push_back(name);
    items.push_back(pod_json(name, group, pc, rack));
  };
  for (int i = 0; i < kMembers; ++i)
    for (int g = 1; g <= kGroups; ++g)
      add("g" + std::to_string(g) + "-" + std::to_string(i), "g" + std::to_string(g), "", "");
  for (int i = 0; i < 2 * kNodesPerRack; ++i) add("a-" + std::to_string(i), "", "filler-a", s.rack_a);
  for (int i = 0; i < 2 * kNodesPerRack; ++i) add("b-" + std::to_string(i), "", "filler-b", s.rack_b);
  const std::string last = "g" + std::to_string(kGroups + 1);
  for (int i = 0; i < kMembers; ++i) add(last + "-" + std::to_string(i), last, "gang-high", "");
  s.json = R"({"kind":"List","items":[)";
  for (size_t i = 0; i < items.size(); ++i) s.json += (i ? "," : "") + items[i];
  s.json += "]}";
  return s;
}

// What the decision log says: each pod's node and bind time, and the preemptions.
struct Outcome {
  std::map<std::string, std::string> node;              // pod name -> node it bound to (its last bind)
  std::map<std::string, double> bound_at;               // pod name -> when
  std::map<std::string, std::vector<double>> by_group;  // "g1" -> bind times of its members
  std::set<std::string> victims;                        // "train/b-0", ...
  std::map<std::string, double> created;                // pod name -> arrival
};

Outcome outcome_of(const std::string& log, const Scenario& s) {
  Outcome out;
  for (size_t i = 0; i < s.pods.size(); ++i)
    out.created[s.pods[i]] = kArrivalInterval * static_cast<double>(i);
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    if (!d.IsObject()) continue;
    const std::string outcome = d["outcome"].GetString();
    const std::string name = d["name"].GetString();
    if (outcome == "preempted") {
      for (const auto& v : d["victimNames"].GetArray()) out.victims.insert(v.GetString());
    } else if (outcome == "scheduled") {
      out.node[name] = d["node"].GetString();
      out.bound_at[name] = d["time"].GetDouble();
      if (name.starts_with("g"))
        out.by_group[name.substr(0, name.find('-'))].push_back(d["time"].GetDouble());
    }
  }
  for (auto& [g, times] : out.by_group) std::sort(times.begin(), times.end());
  return out;
}

// The KubeSchedulerConfiguration that manifests/base/scheduler-config.yaml ships in its ConfigMap:
// its profile's plugins filter before the extender, as kube-scheduler's findNodesThatFitPod calls
// extenders only on the nodes they pass, so that a full cluster fails on the scheduler's own
// NodeResourcesFit and PostFilter asks the extender's /preempt.
std::string shipped_scheduler_config() {
  std::ifstream in(std::string(KEXT_SOURCE_DIR) + "/manifests/base/scheduler-config.yaml");
  std::string out;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (inside && !line.empty() && !line.starts_with("    ")) break;
    if (inside) out += (line.empty() ? line : line.substr(4)) + "\n";
    inside = inside || line.ends_with("scheduler-config.yaml: |");
  }
  return out;
}

// The scenario through one kube-extender on default flags apart from --enable-bind.
HttpRun run_scenario(const std::string& name, const Scenario& s) {
  SimFiles f(name);
  SimCommand c;
  const std::string scheduler_config = shipped_scheduler_config();
  EXPECT_NE(scheduler_config.find("\nextenders:"), std::string::npos) << scheduler_config;
  c.scheduler_config_file = f.write("scheduler-config.yaml", scheduler_config);
  c.cluster_file = f.write("cluster.json", nodes_json());
  c.workload_file = f.write("workload.json", s.json);
  c.arrival_interval_seconds = kArrivalInterval;
  c.max_time_seconds = 90;  // bounds a livelock: it fails the test instead of hanging it
  c.bind_verb = "bind";
  c.real_time = true;
  c.http_timeout_seconds = 30;
  return run_with_extender(c, true, "", {"--enable-bind"}, f.path("extender.log"));
}

// The racks a group's members bound in.
std::set<std::string> racks_of(const Outcome& o, const std::string& group) {
  std::set<std::string> racks;
  for (const auto& [pod, node] : o.node)
    if (pod.starts_with(group + "-")) racks.insert(rack_of_node(node));
  return racks;
}

// Every group with a member bound has all kMembers bound, within kMaxPartlyBound of each other.
// Prints when and where each group bound.
void expect_whole(const Outcome& o, const std::string& log) {
  for (const auto& [g, times] : o.by_group) {
    std::string racks;
    for (const std::string& r : racks_of(o, g)) racks += " " + r;
    std::printf("pod group %s: %zu bound from %.2f s to %.2f s in%s\n", g.c_str(), times.size(),
                times.front(), times.back(), racks.c_str());
    EXPECT_EQ(times.size(), static_cast<size_t>(kMembers)) << "pod group " << g << " partly bound\n" << log;
    EXPECT_LE(times.back() - times.front(), kMaxPartlyBound) << g << "\n" << log;
  }
}

TEST(GangTopologyRealTime, SixGroupsOneRackEachThenASeventhPreemptsInOneRack) {
  const Scenario s = scenario();
  const HttpRun r = run_scenario("topology", s);
  ASSERT_EQ(r.error, "");
  const Outcome o = outcome_of(r.log, s);
  expect_whole(o, r.log);
  ASSERT_EQ(o.by_group.size(), static_cast<size_t>(kGroups + 1)) << r.log;
  // Each of the six groups whole in a rack of its own.
  std::set<std::string> group_racks;
  for (int g = 1; g <= kGroups; ++g) {
    const std::string name = "g" + std::to_string(g);
    const std::set<std::string> racks = racks_of(o, name);
    ASSERT_EQ(racks.size(), 1u) << name << " spans racks\n" << r.log;
    group_racks.insert(*racks.begin());
  }
  EXPECT_EQ(group_racks.size(), static_cast<size_t>(kGroups)) << r.log;
  EXPECT_FALSE(group_racks.contains(s.rack_a) || group_racks.contains(s.rack_b)) << r.log;
  // The scenario's premise: every rack busy when the seventh group arrives.
  const std::string last = "g" + std::to_string(kGroups + 1);
  const double arrives = o.created.at(last + "-0");
  for (const std::string& pod : s.pods) {
    if (pod.starts_with(last + "-")) continue;
    ASSERT_TRUE(o.bound_at.contains(pod)) << pod << " never bound\n" << r.log;
    EXPECT_LT(o.bound_at.at(pod), arrives) << pod << " bound after " << last << " arrived\n" << r.log;
  }
  // The seventh: its victims all in rack B (highest victim priority 50 against A's 100), every filler
  // there and none a gang member; its members all there.
  std::printf("pod group %s: %zu victims:", last.c_str(), o.victims.size());
  for (const std::string& v : o.victims) std::printf(" %s", v.c_str());
  std::printf("\n");
  std::set<std::string> expected_victims;
  for (int i = 0; i < 2 * kNodesPerRack; ++i) expected_victims.insert("train/b-" + std::to_string(i));
  EXPECT_EQ(o.victims, expected_victims) << r.log;
  for (const std::string& v : o.victims) {
    const std::string pod = v.substr(v.find('/') + 1);
    EXPECT_FALSE(pod.starts_with("g")) << "a gang member evicted: " << v;
    EXPECT_EQ(rack_of_node(o.node.at(pod)), s.rack_b) << v;
  }
  EXPECT_EQ(racks_of(o, last), std::set<std::string>{s.rack_b}) << r.log;
}

}  // namespace
}  // namespace gang_topology_real_time_test
}  // namespace kext::simtool
