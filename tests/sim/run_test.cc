// extender-sim's decision log (sim/decision_log.h) and whole runs (sim/run.h) on files.
#include "sim/run.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "json/json.h"
#include "sim/cluster_summary.h"
#include "sim/decision_log.h"
#include "sim/inputs.h"
#include "sim/report/html_report.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::simtool {
namespace run_test {
namespace {

using kext::sim::testing::running_pod_json;
using kext::sim::testing::SimFiles;
using kext::sim::testing::small_node_json;

using std::chrono::seconds;

TEST(SimDecisionLog, OneObjectPerDecision) {
  struct Case {
    std::string name;
    sim::CycleRecord d;
    std::string want;
  };
  sim::CycleRecord scheduled;
  scheduled.at = std::chrono::milliseconds(2500);
  scheduled.cycle = 3;
  scheduled.uid = "u-1";
  scheduled.pod = "web/front-0";
  scheduled.priority = 10;
  scheduled.attempts = 2;
  scheduled.outcome = sim::Outcome::kScheduled;
  scheduled.node = "n2";
  scheduled.feasible_nodes = 3;
  scheduled.evaluated_nodes = 3;
  scheduled.score = 8;
  scheduled.runner_up_score = 6;
  sim::CycleRecord preempted;
  preempted.at = seconds(5);
  preempted.cycle = 1;
  preempted.uid = "u-2";
  preempted.pod = "default/vip";
  preempted.priority = 1000;
  preempted.attempts = 1;
  preempted.outcome = sim::Outcome::kPreempted;
  preempted.node = "n1";
  preempted.victims = {"u-a", "u-b"};
  preempted.victim_names = {"batch/a", "batch/b"};
  preempted.evaluated_nodes = 2;
  preempted.reasons = {{"Insufficient cpu", 2}};
  preempted.message = "0/2 nodes are available: 2 Insufficient cpu.";
  sim::CycleRecord failed = preempted;
  failed.outcome = sim::Outcome::kUnschedulable;
  failed.node.clear();
  failed.victims.clear();
  failed.victim_names.clear();
  failed.reasons = {{"Insufficient cpu", 1}, {"node(s) had untolerated taint {a: b}", 1}};
  failed.message = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {a: b}.";
  using sim::MoveEvent;
  using sim::QueueName;
  preempted.moves = {
      {seconds(0), QueueName::kNone, QueueName::kActive, MoveEvent::kPodAdd, ""},
      {seconds(5), QueueName::kNone, QueueName::kUnschedulable, MoveEvent::kScheduleAttemptFailure, "n1"}};
  failed.moves = {
      {seconds(4), QueueName::kUnschedulable, QueueName::kBackoff, MoveEvent::kAssignedPodDelete, ""},
      {std::chrono::milliseconds(4500), QueueName::kBackoff, QueueName::kActive, MoveEvent::kBackoffComplete,
       ""},
      {seconds(5), QueueName::kNone, QueueName::kBackoff, MoveEvent::kScheduleAttemptFailure, ""}};
  const std::vector<Case> cases = {
      {"scheduled by scoring", scheduled,
       R"({"time":2.5,"cycle":3,"namespace":"web","name":"front-0","uid":"u-1","priority":10,"attempts":2,)"
       R"("outcome":"scheduled","node":"n2","victims":[],"victimNames":[],"feasibleNodes":3,"evaluatedNodes":3,"score":8,)"
       R"("runnerUpScore":6,"moves":[]})"},
      {"preempted", preempted,
       R"({"time":5.0,"cycle":1,"namespace":"default","name":"vip","uid":"u-2","priority":1000,"attempts":1,)"
       R"("outcome":"preempted","node":"n1","victims":["u-a","u-b"],"victimNames":["batch/a","batch/b"],)"
       R"("feasibleNodes":0,"evaluatedNodes":2,)"
       R"("reasons":{"Insufficient cpu":2},"message":"0/2 nodes are available: 2 Insufficient cpu.",)"
       R"("moves":[{"time":0.0,"to":"activeQ","event":"PodAdd"},)"
       R"({"time":5.0,"to":"unschedulablePods","event":"ScheduleAttemptFailure","nominatedNode":"n1"}]})"},
      {"unschedulable", failed,
       R"({"time":5.0,"cycle":1,"namespace":"default","name":"vip","uid":"u-2","priority":1000,"attempts":1,)"
       R"("outcome":"unschedulable","victims":[],"victimNames":[],"feasibleNodes":0,"evaluatedNodes":2,)"
       R"("reasons":{"Insufficient cpu":1,"node(s) had untolerated taint {a: b}":1},)"
       R"("message":"0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {a: b}.",)"
       R"("moves":[{"time":4.0,"from":"unschedulablePods","to":"backoffQ","event":"AssignedPodDelete"},)"
       R"({"time":4.5,"from":"backoffQ","to":"activeQ","event":"BackoffComplete"},)"
       R"({"time":5.0,"to":"backoffQ","event":"ScheduleAttemptFailure"}]})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(decision_json(c.d), c.want);
  }
}

// Three 1-CPU nodes full of priority-0 pods (two of 500m each); n2's are the youngest, so preemption
// picks n2 (latest start time among equally good candidates).
std::string full_cluster() {
  return R"({"kind":"List","items":[)" + small_node_json("n1") + "," + small_node_json("n2") + "," +
         small_node_json("n3") + "," + running_pod_json("a1", "n1", "2026-11-24T10:00:00Z") + "," +
         running_pod_json("a2", "n1", "2026-11-24T10:00:00Z") + "," +
         running_pod_json("b1", "n2", "2026-11-24T10:30:00Z") + "," +
         running_pod_json("b2", "n2", "2026-11-24T10:30:00Z") + "," +
         running_pod_json("c1", "n3", "2026-11-24T10:10:00Z") + "," +
         running_pod_json("c2", "n3", "2026-11-24T10:10:00Z") + "]}";
}

// One high-priority pod of 800m (its PriorityClass's 1000): it needs both pods of a node gone.
constexpr const char* kVipWorkload =
    R"([{"kind":"PriorityClass","metadata":{"name":"vip"},"value":1000},
        {"kind":"Deployment","metadata":{"name":"vip","namespace":"prod"},"spec":{"replicas":1,"template":{
        "spec":{"priorityClassName":"vip","containers":[{"name":"c","resources":{"requests":{"cpu":"800m"}}}]}}}}])";

std::vector<rapidjson::Document> parse_lines(const std::string& log) {
  std::vector<rapidjson::Document> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    out.emplace_back();
    out.back().Parse(line.c_str());
    EXPECT_FALSE(out.back().HasParseError()) << line;
  }
  return out;
}

TEST(SimRun, PreemptorIsNominatedThenBoundAfterTheVictimsGracePeriod) {
  SimFiles f("preempt");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", full_cluster());
  c.workload_file = f.write("workload.json", kVipWorkload);
  c.max_time_seconds = 3600;
  std::ostringstream log;
  const SimResult result = run_sim(c, &log);
  const sim::RunSummary& summary = result.summary;
  const auto lines = parse_lines(log.str());
  ASSERT_EQ(lines.size(), 2u) << log.str();

  const auto& nominated = lines[0];
  EXPECT_EQ(nominated["time"].GetDouble(), 0.0);
  EXPECT_STREQ(nominated["namespace"].GetString(), "prod");
  EXPECT_STREQ(nominated["name"].GetString(), "vip-0");
  EXPECT_EQ(nominated["priority"].GetInt(), 1000);
  EXPECT_STREQ(nominated["outcome"].GetString(), "preempted");
  EXPECT_STREQ(nominated["node"].GetString(), "n2") << "the youngest victims";
  ASSERT_EQ(nominated["victims"].Size(), 2u);
  std::set<std::string> victims = {nominated["victims"][0].GetString(), nominated["victims"][1].GetString()};
  EXPECT_EQ(victims, (std::set<std::string>{"u-b1", "u-b2"}));
  ASSERT_EQ(nominated["victimNames"].Size(), 2u);
  victims = {nominated["victimNames"][0].GetString(), nominated["victimNames"][1].GetString()};
  EXPECT_EQ(victims, (std::set<std::string>{"batch/b1", "batch/b2"}));
  EXPECT_EQ(nominated["evaluatedNodes"].GetInt(), 3);
  EXPECT_STREQ(nominated["message"].GetString(), "0/3 nodes are available: 3 Insufficient cpu.");
  // Its moves: created into activeQ at 0; back from the cycle into unschedulablePods (no move request
  // since it was popped), nominated to n2.
  auto moves_of = [](const rapidjson::Document& line) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    line["moves"].Accept(w);
    return std::string(buf.GetString(), buf.GetSize());
  };
  EXPECT_EQ(
      moves_of(nominated),
      R"([{"time":0.0,"to":"activeQ","event":"PodAdd"},)"
      R"({"time":0.0,"to":"unschedulablePods","event":"ScheduleAttemptFailure","nominatedNode":"n2"}])");

  // The victims' terminationGracePeriodSeconds (10 s) later they are gone and vip binds where it
  // was nominated (the only node it fits: bound without scoring).
  const auto& bound = lines[1];
  EXPECT_EQ(bound["time"].GetDouble(), 10.0);
  EXPECT_STREQ(bound["uid"].GetString(), nominated["uid"].GetString());
  EXPECT_STREQ(bound["outcome"].GetString(), "scheduled");
  EXPECT_STREQ(bound["node"].GetString(), "n2");
  EXPECT_EQ(bound["attempts"].GetInt(), 2);
  EXPECT_EQ(bound["victims"].Size(), 0u);
  EXPECT_FALSE(bound.HasMember("score"));
  // The first victim's deletion at 10 s moves it (its 1 s backoff long over) to activeQ; the second
  // deletion finds unschedulablePods empty.
  EXPECT_EQ(moves_of(bound),
            R"([{"time":10.0,"from":"unschedulablePods","to":"activeQ","event":"AssignedPodDelete",)"
            R"("nominatedNode":"n2"}])");

  EXPECT_EQ(summary.preemptions, 1u);
  EXPECT_EQ(summary.victims, 2u);
  EXPECT_EQ(summary.scheduled, 1u);
  EXPECT_EQ(summary.latencies, (std::vector<sim::SimDuration>{seconds(10)}));

  // n1 and n3 full, n2 with vip's 800m.
  EXPECT_EQ(result.use.nodes, 3u);
  EXPECT_EQ(result.use.nodes_used, 3u);
  EXPECT_EQ(result.use.milli_cpu_requested, 2800);
  EXPECT_EQ(result.use.milli_cpu_allocatable, 3000);
  // The typical pod is vip (800m, no memory): it fits nowhere, so all free room is fragmented.
  EXPECT_EQ(result.typical_pod, (PodShape{800, 0}));
  EXPECT_EQ(use_rows(result), (std::vector<std::pair<std::string, std::string>>{
                                  {"nodes used", "3/3"},
                                  {"cpu requested", "93.3 %"},
                                  {"memory requested", "0.0 %"},
                                  {"typical pod cpu", "800m"},
                                  {"typical pod memory", "0"},
                                  {"cpu fragmented", "100.0 %"},
                                  {"memory fragmented", "100.0 %"},
                              }));
  EXPECT_EQ(format_node_use(result.use),
            "nodes by requested share    cpu  memory\n"
            "  [0, 10) %                   0       3\n"
            "  [10, 20) %                  0       0\n"
            "  [20, 30) %                  0       0\n"
            "  [30, 40) %                  0       0\n"
            "  [40, 50) %                  0       0\n"
            "  [50, 60) %                  0       0\n"
            "  [60, 70) %                  0       0\n"
            "  [70, 80) %                  0       0\n"
            "  [80, 90) %                  1       0\n"
            "  [90, 100) %                 0       0\n"
            "  100 %                       2       0\n"
            "  node      cpu   memory  pods\n"
            "  n1    100.0 %    0.0 %  2/110\n"
            "  n2     80.0 %    0.0 %  1/110\n"
            "  n3    100.0 %    0.0 %  2/110\n");

  // Stopped at 5 s, vip waits for its victims.
  c.max_time_seconds = 5;
  const SimResult early = run_sim(c, nullptr);
  EXPECT_EQ(early.summary.pending_at_end, 1u);
  EXPECT_EQ(early.pending_by_reason, (std::map<std::string, size_t>{{std::string(kNominated), 1}}));
}

// README "Simulating a policy"'s worked example: web-0 and web-1 both choose batch-b (web-1's dry run
// still sees it, terminating, on n2), web-2 batch-a. Three preemptions, two pods evicted.
TEST(SimRun, AVictimTwoPreemptorsChoseCountsOnce) {
  SimFiles f("readme");
  auto batch = [](const std::string& name, const std::string& uid, const std::string& node,
                  const std::string& start) {
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
           R"(","namespace":"jobs","uid":")" + uid + R"("},"spec":{"nodeName":")" + node +
           R"(","priority":0,"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"3","memory":"1Gi"}}}]},)"
           R"("status":{"phase":"Running","startTime":")" +
           start + R"("}})";
  };
  auto node = [](const std::string& name) {
    return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
           R"("},"status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"110"}}})";
  };
  SimCommand c;
  c.cluster_file =
      f.write("cluster.json", R"({"apiVersion":"v1","kind":"List","items":[)" + node("n1") + "," +
                                  node("n2") + "," + batch("batch-a", "a", "n1", "2026-11-24T10:00:00Z") +
                                  "," + batch("batch-b", "b", "n2", "2026-11-24T10:05:00Z") + "]}");
  c.workload_file = f.write(
      "workload.json",
      R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},)"
      R"("spec":{"replicas":3,"template":{"spec":{"priority":1000,"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"2","memory":"1Gi"}}}]}}}}]})");
  std::ostringstream log;
  const SimResult result = run_sim(c, &log);
  std::vector<std::string> chosen;
  for (const auto& line : parse_lines(log.str())) {
    for (const auto& v : line["victimNames"].GetArray()) {
      chosen.push_back(line["name"].GetString() + std::string(" ") + v.GetString());
    }
  }
  EXPECT_EQ(chosen,
            (std::vector<std::string>{"web-0 jobs/batch-b", "web-1 jobs/batch-b", "web-2 jobs/batch-a"}));
  EXPECT_EQ(result.summary.preemptions, 3u);
  EXPECT_EQ(result.summary.victims, 2u);
  EXPECT_EQ(result.summary.scheduled, 3u);
  const std::string html = html_report({{"default", &result}}, {}, c);
  EXPECT_NE(html.find("<h2>Evictions (default): 3 preemptions, 2 pods evicted</h2>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>jobs/batch-b (already terminating)</td>"), std::string::npos) << html;
  const auto rows = sim::summary_rows(result.summary);
  EXPECT_NE(std::find(rows.begin(), rows.end(), std::pair<std::string, std::string>{"victims", "2"}),
            rows.end());
}

TEST(SimRun, SameSeedSameLog) {
  // Twelve 100m pods over three empty nodes: ties in every score, broken by the seeded draws.
  SimFiles f("seed");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", R"({"kind":"List","items":[)" + small_node_json("n1") + "," +
                                               small_node_json("n2") + "," + small_node_json("n3") + "]}");
  c.workload_file =
      f.write("workload.json", R"([{"kind":"ReplicaSet","metadata":{"name":"w"},"spec":{"replicas":12,
      "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]}}}}])");
  c.arrival_interval_seconds = 0.5;
  auto log_of = [&](uint64_t seed) {
    c.seed = seed;
    std::ostringstream log;
    run_sim(c, &log);
    return log.str();
  };
  const std::string first = log_of(7);
  EXPECT_EQ(log_of(7), first);
  const auto lines = parse_lines(first);
  ASSERT_EQ(lines.size(), 12u);
  EXPECT_EQ(lines[11]["time"].GetDouble(), 5.5) << "--arrival-interval apart";
  EXPECT_TRUE(lines[0].HasMember("score")) << "three feasible nodes: chosen by scoring";
  bool differs = false;
  for (uint64_t seed = 1; seed < 20 && !differs; ++seed) differs = log_of(seed) != first;
  EXPECT_TRUE(differs) << "the seed decides the ties";
}

TEST(SimRun, ControlledVictimsAreReplacedAndDefaultGracePeriod) {
  // The same cluster, but n2's pods belong to a ReplicaSet and say no grace period: their
  // replacements arrive when they are gone (30 s, the default) and find no room.
  std::string cluster = full_cluster();
  for (const std::string name : {"b1", "b2"}) {
    const std::string from =
        R"("uid":"u-)" + name + R"("},"spec":{"nodeName":"n2","terminationGracePeriodSeconds":10,)";
    const auto at = cluster.find(from);
    ASSERT_NE(at, std::string::npos);
    cluster.replace(
        at, from.size(),
        R"("uid":"u-)" + name +
            R"(","ownerReferences":[{"kind":"ReplicaSet","name":"b","uid":"rs","controller":true}]},)"
            R"("spec":{"nodeName":"n2",)");
  }
  SimFiles f("recreate");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", cluster);
  c.workload_file = f.write("workload.json", kVipWorkload);
  std::ostringstream log;
  const SimResult result = run_sim(c, &log);
  const sim::RunSummary& summary = result.summary;
  EXPECT_EQ(summary.recreated, 2u);
  std::set<std::string> replacements;
  for (const auto& line : parse_lines(log.str())) {
    if (std::string(line["name"].GetString()) == "vip-0") {
      if (std::string(line["outcome"].GetString()) == "scheduled") {
        EXPECT_EQ(line["time"].GetDouble(), 30.0);
      }
      continue;
    }
    EXPECT_EQ(line["time"].GetDouble(), 30.0) << line["name"].GetString();
    EXPECT_STREQ(line["outcome"].GetString(), "unschedulable") << "priority 0 preempts no one";
    replacements.insert(line["name"].GetString());
  }
  EXPECT_EQ(replacements, (std::set<std::string>{"b1-r1", "b2-r1"}));
  EXPECT_EQ(result.pending_by_reason, (std::map<std::string, size_t>{{"Insufficient cpu", 2}}));
}

TEST(SimRun, PendingByReasonTable) {
  EXPECT_EQ(format_pending_reasons({}), "");
  EXPECT_EQ(
      format_pending_reasons({{"Insufficient cpu", 2}, {"(no cycle yet)", 12}, {"node(s) didn't match", 2}}),
      "pending by reason\n"
      "  (no cycle yet)            12\n"
      "  Insufficient cpu           2\n"
      "  node(s) didn't match       2\n");
}

TEST(SimRun, PercentageOfNodesToScore) {
  // 150 empty nodes: the adaptive default (50 % - 150/125 = 49 %: 73, at least 100) stops the filter
  // at 100 feasible nodes; 100 % filters all of them.
  std::string cluster = R"({"kind":"List","items":[)";
  for (int i = 0; i < 150; ++i) cluster += (i == 0 ? "" : ",") + small_node_json("n" + std::to_string(i));
  cluster += "]}";
  SimFiles f("percentage");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", cluster);
  c.workload_file = f.write("workload.json", R"([{"kind":"Pod","metadata":{"name":"p"}}])");
  auto evaluated = [&](int32_t percentage) {
    c.percentage_of_nodes_to_score = percentage;
    std::ostringstream log;
    run_sim(c, &log);
    const auto lines = parse_lines(log.str());
    return lines.size() == 1 ? lines[0]["evaluatedNodes"].GetInt() : -1;
  };
  EXPECT_EQ(evaluated(0), 100);
  EXPECT_EQ(evaluated(100), 150);
}

TEST(SimRun, TerminatingPodsHoldTheirNodeUntilTheirDeletionTimestamp) {
  // n1 is full, but its pod is terminating: deleted 20 s after the snapshot's latest start time (the
  // epoch), when the pending pod binds there. Its first cycle preempts that pod (SelectVictimsOnNode
  // does not skip terminating pods), which changes nothing: the deletion comes before the 30 s grace
  // period would.
  SimFiles f("terminating");
  SimCommand c;
  c.cluster_file =
      f.write("cluster.json", R"({"kind":"List","items":[)" + small_node_json("n1") + "," +
                                  R"({"kind":"Pod","metadata":{"name":"old","uid":"u-old",)"
                                  R"("deletionTimestamp":"2026-11-24T10:00:20Z"},"spec":{"nodeName":"n1",)"
                                  R"("containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]},)"
                                  R"("status":{"phase":"Running","startTime":"2026-11-24T10:00:00Z"}},)"
                                  R"({"kind":"Pod","metadata":{"name":"new"},"spec":{"priority":5,)"
                                  R"("containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}]})");
  std::ostringstream log;
  run_sim(c, &log);
  const auto lines = parse_lines(log.str());
  ASSERT_EQ(lines.size(), 2u) << log.str();
  EXPECT_STREQ(lines[0]["outcome"].GetString(), "preempted");
  EXPECT_EQ(lines[0]["time"].GetDouble(), 0.0);
  EXPECT_STREQ(lines[1]["outcome"].GetString(), "scheduled");
  EXPECT_EQ(lines[1]["time"].GetDouble(), 20.0);
}

TEST(SimRun, ArrivalsPastMaxTimeDoNotOverflowTheClock) {
  // 10,000 pods 10^9 s apart: the last would arrive at 10^13 s, 10^19 microseconds, past int64.
  SimFiles f("overflow");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", R"({"kind":"List","items":[)" + small_node_json("n1") + "]}");
  c.workload_file =
      f.write("workload.json", R"([{"kind":"ReplicaSet","metadata":{"name":"w"},"spec":{"replicas":10000,
      "template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"10m"}}}]}}}}])");
  c.arrival_interval_seconds = 1e9;
  c.max_time_seconds = 1e9;
  std::ostringstream log;
  const SimResult result = run_sim(c, &log);
  const sim::RunSummary& summary = result.summary;
  const auto lines = parse_lines(log.str());
  ASSERT_FALSE(lines.empty());
  EXPECT_LE(lines.size(), 2u) << "the pods at 0 s and 10^9 s at most";
  for (const auto& line : lines) EXPECT_GE(line["time"].GetDouble(), 0.0);
  EXPECT_LE(summary.end, seconds(1'000'000'000));
  EXPECT_GE(result.pending_by_reason.at(std::string(kNotTried)), 9998u) << "never arrived";
}

TEST(SimRun, RuntimeCompletesBoundPods) {
  SimFiles f("runtime");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", full_cluster());
  c.workload_file = f.write("workload.json", kVipWorkload);
  c.runtime_seconds = 60;
  const sim::RunSummary summary = run_sim(c, nullptr).summary;
  EXPECT_EQ(summary.completed, 1u) << "vip, bound at 10 s; the running pods keep running";
  EXPECT_EQ(summary.end, seconds(70));
}

TEST(SimRun, AWorkloadsRuntimeAnnotationOverridesTheFlag) {
  SimFiles f("runtime-annotation");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", R"({"kind":"List","items":[)" + small_node_json("n1") + "]}");
  c.workload_file = f.write("workload.json", R"([{"kind":"Pod","metadata":{"name":"short","annotations":{")" +
                                                 std::string(kRuntimeAnnotation) + R"(":"30"}}},
      {"kind":"Pod","metadata":{"name":"long"}}])");
  c.runtime_seconds = 100;
  const sim::RunSummary summary = run_sim(c, nullptr).summary;
  EXPECT_EQ(summary.completed, 2u);
  EXPECT_EQ(summary.end, seconds(100)) << "short done at 30 s, long at 100 s";
  c.runtime_seconds.reset();
  const sim::RunSummary only_short = run_sim(c, nullptr).summary;
  EXPECT_EQ(only_short.completed, 1u);
  EXPECT_EQ(only_short.end, seconds(30));
}

TEST(SimRun, UsageProfilesSampledAtTheInterval) {
  SimFiles f("usage");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", R"({"kind":"List","items":[)" + small_node_json("n1") + "]}");
  const std::string requests = R"(,"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":")";
  c.workload_file = f.write("workload.json", R"([{"kind":"Pod","metadata":{"name":"ramp","annotations":{")" +
                                                 std::string(kUsageAnnotation) + R"(":"0s:0.5,20s:1"}})" +
                                                 requests + R"(400m"}}}]}},
      {"kind":"Pod","metadata":{"name":"plain"})" +
                                                 requests + R"(200m"}}}]}}])");
  c.runtime_seconds = 40;
  const sim::RunSummary plain = run_sim(c, nullptr).summary;
  ASSERT_EQ(plain.node_usage.size(), 1u) << "the annotation turns sampling on";
  EXPECT_EQ(plain.node_usage[0].used_peak_milli_cpu, 600) << "plain uses its requests";
  c.usage_fraction = 0.5;
  c.usage_interval_seconds = 10;
  // Samples at 0 (before the pods), 10 (ramp at half, plain at --usage), 20, 30 and 40 (ramp whole).
  const SimResult result = run_sim(c, nullptr);
  const sim::RunSummary& summary = result.summary;
  ASSERT_EQ(summary.node_usage.size(), 1u);
  EXPECT_EQ(summary.node_usage[0], (sim::NodeUsageSummary{"n1", 1000, 600, 500, 500}));
  const std::string html = html_report({{"default", &result}}, {});
  EXPECT_NE(html.find("<h2>Node usage (default): CPU, of allocatable</h2>"), std::string::npos);
  const auto rows = sim::summary_rows(summary);
  EXPECT_EQ(rows.back(),
            std::make_pair(std::string("node usage peak, highest (CPU)"), std::string("50.0 %")));
  const std::string table = format_node_usage(summary.node_usage);
  EXPECT_NE(table.find("n1                60.0 %     50.0 %     50.0 %"), std::string::npos) << table;

  c.workload_file = f.write("workload.json", R"([{"kind":"Pod","metadata":{"name":"p"}}])");
  c.usage_fraction.reset();
  c.usage_interval_seconds.reset();
  EXPECT_TRUE(run_sim(c, nullptr).summary.node_usage.empty()) << "no annotation, flag or load-aware score";
}

// A scheduler profile that packs (examples/pack.yaml's): MostAllocated, without the two scores that
// spread.
constexpr const char* kPackingProfile = R"({"apiVersion":"kubescheduler.config.k8s.io/v1",
    "kind":"KubeSchedulerConfiguration","profiles":[{"plugins":{"score":{"disabled":[
      {"name":"PodTopologySpread"},{"name":"NodeResourcesBalancedAllocation"}]}},
    "pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAllocated"}}}]}]})";

// MostRequestedPriority alone: an extender's configuration that packs.
constexpr const char* kPackingPolicy = R"({"kind":"Policy","apiVersion":"v1",
    "predicates":[{"name":"PodFitsResources"}],"priorities":[{"name":"MostRequestedPriority","weight":1}]})";

TEST(SimRun, TheConfigurationDecides) {
  // n1 half full, n2 empty. kube-scheduler's default profile spreads (LeastAllocated, balanced
  // allocation); a scheduler profile that packs takes n1. A legacy Policy is an extender's
  // configuration: its MostRequestedPriority reply (n1 3, n2 0) counts x 10 x the extender's weight
  // beside the default profile, which prefers n2 by 52: outweighed at weight 1, deciding at 2. At 1.35:
  // 1.36's BalancedAllocation prefers n2 by less.
  SimFiles f("config");
  SimCommand c;
  c.kubernetes_version = KubeVersion{35};
  c.cluster_file = f.write("cluster.json", R"({"kind":"List","items":[)" + small_node_json("n1") + "," +
                                               small_node_json("n2") + "," +
                                               running_pod_json("half", "n1", "2026-11-24T10:00:00Z") + "]}");
  c.workload_file = f.write("workload.json", R"([{"kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[
      {"name":"c","resources":{"requests":{"cpu":"100m","memory":"100Mi"}}}]}}])");
  auto node_of = [&]() {
    std::ostringstream log;
    run_sim(c, &log);
    const auto lines = parse_lines(log.str());
    return lines.size() == 1 ? std::string(lines[0]["node"].GetString()) : "?";
  };
  EXPECT_EQ(node_of(), "n2");
  c.config_file = f.write("pack.json", kPackingProfile);
  EXPECT_EQ(node_of(), "n1");
  c.config_file = f.write("policy.json", kPackingPolicy);
  EXPECT_EQ(node_of(), "n2");
  c.extender_weight = 2;
  EXPECT_EQ(node_of(), "n1");
}

// n1 half full, n2 empty, and three small pods.
struct SpreadOrPack {
  SimFiles f{"compare"};
  SimCommand c;
  SpreadOrPack() {
    c.cluster_file = f.write(
        "cluster.json", R"({"kind":"List","items":[)" + small_node_json("n1") + "," + small_node_json("n2") +
                            "," + running_pod_json("half", "n1", "2026-11-24T10:00:00Z") + "]}");
    c.workload_file = f.write("workload.json", R"([{"kind":"Deployment","metadata":{"name":"web"},"spec":{
        "replicas":3,"template":{"spec":{"containers":[
        {"name":"c","resources":{"requests":{"cpu":"100m","memory":"100Mi"}}}]}}}}])");
    c.compare_file = f.write("pack.json", kPackingProfile);
  }
};

TEST(SimCompare, SpreadingAgainstPackingListsEachPodPlacedDifferently) {
  SpreadOrPack s;
  const SimResult a = run_sim(s.c, nullptr);
  const SimResult b = run_sim(compare_command(s.c), nullptr, "--compare");
  const std::vector<PlacementDiff> want = {
      {"default/web-0", "n2", "n1"}, {"default/web-1", "n2", "n1"}, {"default/web-2", "n2", "n1"}};
  EXPECT_EQ(placement_diff(a, b), want);
  EXPECT_EQ(placement_diff(a, a), std::vector<PlacementDiff>{});
  EXPECT_EQ(format_placement_diff(want, "default", "pack.json"),
            "placed differently: 3 pods\n"
            "  pod            default  pack.json\n"
            "  default/web-0  n2       n1\n"
            "  default/web-1  n2       n1\n"
            "  default/web-2  n2       n1\n");
  EXPECT_EQ(a.use.nodes_used, 2u);
  EXPECT_EQ(b.use.nodes_used, 1u);
}

TEST(SimCompare, PlacementDiffMergesBothRuns) {
  SimResult a, b;
  a.placements = {{"ns/both-same", "n1"}, {"ns/both-moved", "n1"}, {"ns/only-a", "n2"},
                  {"ns/pending-a", ""},   {"ns/pending-both", ""}, {"ns/tried-only-a", ""}};
  b.placements = {{"ns/both-same", "n1"},
                  {"ns/both-moved", "n3"},
                  {"ns/only-b", "n1"},
                  {"ns/pending-a", "n2"},
                  {"ns/pending-both", ""}};
  const std::vector<PlacementDiff> want = {
      {"ns/both-moved", "n1", "n3"},
      {"ns/only-a", "n2", "pending"},
      {"ns/only-b", "pending", "n1"},
      {"ns/pending-a", "pending", "n2"},
  };
  EXPECT_EQ(placement_diff(a, b), want);
  EXPECT_EQ(format_placement_diff({}, "a", "b"), "placed differently: 0 pods\n");
}

TEST(SimCompare, CompareRunsConfigurationErrorsNameTheFlag) {
  SpreadOrPack s;
  s.c.compare_file =
      s.f.write("bad.yaml", "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\nbogus: 1\n");
  try {
    run_sim(compare_command(s.c), nullptr, "--compare");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--compare " + s.c.compare_file + ": ", 0), 0u) << e.what();
  }
}

TEST(SimCompare, CompareLogFileName) {
  EXPECT_EQ(compare_log_file("out/decisions.jsonl"), "out/decisions.compare.jsonl");
  EXPECT_EQ(compare_log_file("log"), "log.compare.jsonl");
  EXPECT_EQ(compare_log_file(".jsonl"), ".jsonl.compare.jsonl");
}

TEST(SimRun, BadInputNamesTheFlagAndTheFile) {
  SimFiles f("bad");
  const std::string cluster = f.write("cluster.json", full_cluster());
  struct Case {
    std::string name;
    std::string cluster;
    std::string workload;
    std::string config;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"missing cluster file", (f.dir / "nope.json").string(), "", "",
       "--cluster " + (f.dir / "nope.json").string() + ": cannot read the file"},
      {"bad cluster", f.write("bad-cluster.json", "{"), "", "",
       "--cluster " + (f.dir / "bad-cluster.json").string() + ": invalid JSON"},
      {"bad workload", cluster,
       f.write("bad-workload.json", R"([{"kind":"Pod","metadata":{"name":"x"},"spec":{"priority":1.5}}])"),
       "", "--workload " + (f.dir / "bad-workload.json").string() + ": [0].spec.priority: expected integer"},
      {"duplicate pod", cluster,
       f.write("dup.json",
               R"([{"kind":"Pod","metadata":{"name":"p"}},{"kind":"Pod","metadata":{"name":"p"}}])"),
       "", "--workload " + (f.dir / "dup.json").string() + ": pod default/p: "},
      {"bad config", cluster, "",
       f.write("config.yaml",
               "apiVersion: kube-extender.io/v1alpha1\nkind: ExtenderConfiguration\nbogus: 1\n"),
       "--config " + (f.dir / "config.yaml").string() + ": "},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    SimCommand cmd;
    cmd.cluster_file = c.cluster;
    cmd.workload_file = c.workload;
    cmd.config_file = c.config;
    try {
      run_sim(cmd, nullptr);
      ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(c.error, 0), 0u) << e.what();
    }
  }
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The command itself: exit codes, the summary on stdout, the log file, errors on stderr.
TEST(SimCommand, ExitCodesOutputAndLogFile) {
  SimFiles f("binary");
  const std::string cluster = f.write("cluster.json", full_cluster());
  const std::string workload = f.write("workload.json", kVipWorkload);
  const std::string bad =
      f.write("bad.json", R"([{"kind":"Job","metadata":{"name":"j"},"spec":{"parallelism":-2}}])");
  const std::string out = (f.dir / "out.txt").string();
  const std::string err = (f.dir / "err.txt").string();
  const std::string log = (f.dir / "log.jsonl").string();
  auto run = [&](const std::string& args) {
    const int status =
        std::system((std::string(KEXT_SIM_BINARY) + " " + args + " >" + out + " 2>" + err).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };

  ASSERT_EQ(run("--cluster " + cluster + " --workload " + workload + " --log " + log + " --seed 3"), 0)
      << read_text(err);
  EXPECT_NE(read_text(out).find("preemptions                    1\n"), std::string::npos) << read_text(out);
  EXPECT_NE(read_text(out).find("memory fragmented        100.0 %\n"), std::string::npos) << read_text(out);
  EXPECT_NE(read_text(out).find("nodes by requested share    cpu  memory\n"), std::string::npos)
      << read_text(out);
  EXPECT_NE(read_text(out).find("  n2     80.0 %    0.0 %  1/110\n"), std::string::npos) << read_text(out);
  const auto lines = parse_lines(read_text(log));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_STREQ(lines[0]["outcome"].GetString(), "preempted");
  EXPECT_STREQ(lines[1]["outcome"].GetString(), "scheduled");

  EXPECT_EQ(run("--cluster " + cluster + " --workload " + bad), 2);
  EXPECT_EQ(read_text(err),
            "extender-sim: --workload " + bad + ": [0].spec.parallelism: -2 is not between 0 and 1000000\n");
  EXPECT_EQ(run("--cluster " + (f.dir / "missing.json").string()), 2);
  EXPECT_NE(read_text(err).find("missing.json: cannot read the file"), std::string::npos) << read_text(err);
  EXPECT_EQ(run("--workload " + workload), 2) << "--cluster is required";
  EXPECT_EQ(run("--cluster " + cluster + " --log " + (f.dir / "no-such-dir" / "log").string()), 2);
  EXPECT_NE(read_text(err).find("--log"), std::string::npos) << read_text(err);
  EXPECT_EQ(run("--help"), 0);
  EXPECT_NE(read_text(out).find("--workload FILE"), std::string::npos);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The report stands alone (no reference outside the file, no script) and every element it draws
// is closed.
void expect_self_contained_and_balanced(const std::string& html) {
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">\n", 0), 0u);
  EXPECT_TRUE(html.ends_with("</body>\n</html>\n"));
  for (const char* banned : {"http://", "https://", "<script", "src=", "href=", "url(", "@import"})
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  for (const std::string tag :
       {"html", "head",  "body", "style", "svg", "table", "tr",  "td",   "th",      "section", "div",
        "rect", "title", "text", "h1",    "h2",  "h3",    "pre", "span", "details", "summary", "p"}) {
    EXPECT_EQ(count(html, "<" + tag + ">") + count(html, "<" + tag + " "), count(html, "</" + tag + ">"))
        << tag;
  }
}

TEST(SimHtml, ReportOfARun) {
  SimFiles f("html");
  SimCommand c;
  c.cluster_file = f.write("cluster.json", full_cluster());
  c.workload_file = f.write("workload.json", kVipWorkload);
  const SimResult r = run_sim(c, nullptr);
  const std::string html = html_report({{"default", &r}}, {}, c);
  expect_self_contained_and_balanced(html);
  // The inputs, the seed and the configuration that ran, as --write-config writes it.
  EXPECT_NE(html.find("<tr><th>--cluster</th><td>" + c.cluster_file + "</td></tr>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><th>--workload</th><td>" + c.workload_file + "</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>--config</th><td>(kube-scheduler 1.26 default profile)</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><th>--seed</th><td>1</td></tr>"), std::string::npos);
  ASSERT_FALSE(r.configuration.empty());
  EXPECT_NE(r.configuration.find("\"NodeResourcesFit\""), std::string::npos) << r.configuration;
  EXPECT_NE(html.find("<pre class=\"config\">" + html_escape(r.configuration) + "</pre>"), std::string::npos);
  EXPECT_EQ(html.find("Configuration difference"), std::string::npos) << "only with --compare";
  EXPECT_EQ(count(html, "<svg "), 3u) << "pending over time, cpu and memory per node";
  EXPECT_NE(html.find("<tr><th></th><th>default</th></tr>"), std::string::npos);
  EXPECT_NE(html.find(R"(<tr><td>preemptions</td><td class="n">1</td></tr>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<tr><td>victims</td><td class="n">2</td></tr>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<tr><td>cpu requested</td><td class="n">93.3 %</td></tr>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<tr><td>typical pod cpu</td><td class="n">800m</td></tr>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<tr><td>cpu fragmented</td><td class="n">100.0 %</td></tr>)"), std::string::npos);
  // The vip arrives at 0 s and is pending (nominated) until it binds at 10 s: a step from 1 to 0
  // across the whole width.
  EXPECT_NE(html.find(R"(data-series="0,1 10,0" points="64.0,14.0 544.0,14.0 544.0,196.0")"),
            std::string::npos)
      << html;
  // Its axes: ticks in pods and seconds, and both titles, inside the 64-unit left margin.
  EXPECT_NE(html.find(R"(<text x="58.0" y="18.0" text-anchor="end">1</text>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<text x="544.0" y="212.0" text-anchor="end">10</text>)"), std::string::npos);
  EXPECT_NE(
      html.find(R"(<text x="304.0" y="232.0" text-anchor="middle" class="title">simulated time (s)</text>)"),
      std::string::npos);
  EXPECT_NE(html.find(R"x(class="title" transform="rotate(-90 14 105.0)">pods pending</text>)x"),
            std::string::npos);
  // Nodes by CPU share, fullest first (ties in node order): n1 and n3 full, n2 80 % (the vip's 800m).
  const size_t n1 = html.find("<title>n1: cpu 100.0 %</title>");
  const size_t n3 = html.find("<title>n3: cpu 100.0 %</title>");
  const size_t n2 = html.find("<title>n2: cpu 80.0 %</title>");
  ASSERT_NE(n2, std::string::npos) << html;
  EXPECT_LT(n1, n3);
  EXPECT_LT(n3, n2);
  // Each bar in its row (the third), named on its left and valued on its right: the name column is
  // 10 + 6.4 per character of the longest name (at least 4), the bar four fifths of the 472.4 units left
  // beside the 52 of the value.
  EXPECT_NE(html.find(R"(<text x="29.6" y="73.0" text-anchor="end">n2</text>)"
                      R"(<rect class="cpu" x="35.60" y="63.00" width="377.92" height="12.00">)"
                      R"(<title>n2: cpu 80.0 %</title></rect>)"
                      R"(<text x="417.5" y="73.0" text-anchor="start">80.0 %</text>)"),
            std::string::npos)
      << html;
  // The percentage scale above the rows.
  for (const char* tick : {">0 %</text>", ">50 %</text>", ">100 %</text>"})
    EXPECT_NE(html.find(tick), std::string::npos);
  // The evictions: vip-0 (1000) on n2, over both of n2's priority-0 pods.
  EXPECT_NE(html.find("<h2>Evictions (default): 1 preemptions, 2 pods evicted</h2>"), std::string::npos);
  EXPECT_NE(html.find(R"(<tr><td class="n" rowspan="2">0</td><td rowspan="2">prod/vip-0</td>)"
                      R"(<td class="n" rowspan="2">1000</td><td rowspan="2">n2</td>)"),
            std::string::npos)
      << html;
  for (const char* victim : {"batch/b1", "batch/b2"})
    EXPECT_NE(html.find("<td>" + std::string(victim) + R"(</td><td class="n">0</td></tr>)"),
              std::string::npos)
        << victim;
  EXPECT_NE(html.find("<title>n2: memory 0.0 %</title>"), std::string::npos);
  EXPECT_EQ(html.find("Placed differently"), std::string::npos) << "only with --compare";
}

TEST(SimHtml, CompareSideBySideWithThePodsPlacedDifferently) {
  SpreadOrPack s;
  const SimResult a = run_sim(s.c, nullptr);
  const SimResult b = run_sim(compare_command(s.c), nullptr, "--compare");
  const std::string html = html_report({{"spread", &a}, {"pack <&>", &b}}, placement_diff(a, b), s.c);
  expect_self_contained_and_balanced(html);
  EXPECT_NE(html.find("<tr><th>--compare</th><td>" + s.c.compare_file + "</td></tr>"), std::string::npos);
  // Both configurations, and the difference: the packing policy scores MostAllocated.
  EXPECT_EQ(count(html, "<pre class=\"config\">"), 2u);
  const size_t diff = html.find("<pre class=\"diff\">");
  ASSERT_NE(diff, std::string::npos) << html;
  const std::string diff_text = html.substr(diff, html.find("</pre>", diff) - diff);
  EXPECT_NE(diff_text.find(R"(<span class="add">+)"), std::string::npos) << diff_text;
  EXPECT_NE(diff_text.find("MostAllocated"), std::string::npos) << diff_text;
  EXPECT_NE(diff_text.find(R"(<span class="del">-)"), std::string::npos) << diff_text;
  EXPECT_NE(diff_text.find("LeastAllocated"), std::string::npos) << diff_text;
  EXPECT_EQ(count(html, "<section>"), 2u);
  EXPECT_EQ(count(html, "<svg "), 6u);
  EXPECT_NE(html.find("<tr><th></th><th>spread</th><th>pack &lt;&amp;&gt;</th></tr>"), std::string::npos);
  EXPECT_NE(html.find(R"(<tr><td>scheduled</td><td class="n">3</td><td class="n">3</td></tr>)"),
            std::string::npos);
  EXPECT_NE(html.find(R"(<tr><td>nodes used</td><td class="n">2/2</td><td class="n">1/2</td></tr>)"),
            std::string::npos);
  EXPECT_NE(html.find("<h2>Placed differently: 3 pods</h2>"), std::string::npos);
  // Summarised first (by namespace, by owner, by move), then each pod; all before the runs' sections.
  const size_t placed = html.find("<h2>Placed differently");
  EXPECT_LT(placed, html.find("<section>"));
  EXPECT_NE(html.find(R"(<tr><td>default</td><td class="n">3</td></tr>)"), std::string::npos) << html;
  EXPECT_NE(html.find(R"(<tr><td>default/Deployment/web</td><td class="n">3</td></tr>)"), std::string::npos);
  EXPECT_NE(html.find(R"(<tr><td>n2 → n1</td><td class="n">3</td></tr>)"), std::string::npos);
  EXPECT_LT(html.find("<h3>By namespace</h3>"), html.find("<h2>Placed differently: each pod</h2>"));
  size_t last = placed;
  for (const char* pod : {"web-0", "web-1", "web-2"}) {
    const size_t at = html.find("<tr><td>default</td><td>" + std::string(pod) +
                                "</td><td>Deployment/web</td><td>n2</td><td>n1</td></tr>");
    ASSERT_NE(at, std::string::npos) << pod;
    EXPECT_GT(at, last) << pod;
    last = at;
  }
  // Packing: n1 holds the 500m pod and the three of 100m; spreading leaves it at 500m.
  EXPECT_NE(html.find("<title>n1: cpu 80.0 %</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>n1: cpu 50.0 %</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>n2: cpu 30.0 %</title>"), std::string::npos);
  EXPECT_NE(html.find("<title>n2: cpu 0.0 %</title>"), std::string::npos);
}

// The pods placed differently, in order: by namespace, by owner, and by name with numbers as numbers.
TEST(SimHtml, PlacedDifferentlyIsSortedAndCounted) {
  SimResult a, b;
  for (const char* pod : {"ns/web-10", "ns/web-2", "ns/api-1", "ab/x", "ns/web-1-r1"}) {
    a.placements[pod] = "n1";
    b.placements[pod] = "n2";
  }
  a.owners = {{"ns/web-10", "Deployment/web"},
              {"ns/web-2", "Deployment/web"},
              {"ns/web-1", "Deployment/web"},
              {"ns/api-1", "Deployment/api"}};
  const std::string html = html_report({{"a", &a}, {"b", &b}}, placement_diff(a, b));
  expect_self_contained_and_balanced(html);
  std::vector<size_t> at;
  for (const char* row :
       {"<tr><td>ab</td><td>x</td><td>(none)</td>", "<tr><td>ns</td><td>api-1</td><td>Deployment/api</td>",
        "<tr><td>ns</td><td>web-1-r1</td><td>Deployment/web</td>",
        "<tr><td>ns</td><td>web-2</td><td>Deployment/web</td>",
        "<tr><td>ns</td><td>web-10</td><td>Deployment/web</td>"}) {
    at.push_back(html.find(row));
    ASSERT_NE(at.back(), std::string::npos) << row << html;
  }
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()));
  // Counts: most first.
  EXPECT_LT(html.find(R"(<tr><td>ns</td><td class="n">4</td></tr>)"),
            html.find(R"(<tr><td>ab</td><td class="n">1</td></tr>)"));
  EXPECT_NE(html.find(R"(<tr><td>ns/Deployment/web</td><td class="n">3</td></tr>)"), std::string::npos);
  EXPECT_NE(html.find("<p>The two configurations are the same.</p>"), std::string::npos);
}

// Long node names are cut in the middle on the bars; moves beyond the ten most common are summed.
TEST(SimHtml, LongNamesAndManyMoves) {
  SimResult a, b;
  a.use.per_node.push_back(NodeUse{"ip-10-0-1-15.eu-west-1.compute.internal", 1, 2, 1, 2, 1, 110, {}});
  for (int i = 0; i < 12; ++i) {
    const std::string pod = "ns/p-" + std::to_string(i);
    a.placements[pod] = "a" + std::to_string(i);
    b.placements[pod] = "b" + std::to_string(i % 11);  // b0 twice
  }
  const std::string html = html_report({{"a", &a}, {"b", &b}}, placement_diff(a, b));
  expect_self_contained_and_balanced(html);
  EXPECT_NE(html.find(">ip-10-0-1-15.eu-west…compute.internal</text>"), std::string::npos) << html;
  EXPECT_NE(html.find("<title>ip-10-0-1-15.eu-west-1.compute.internal: cpu 50.0 %</title>"),
            std::string::npos);
  // Twelve moves, each once: the first ten by name, then the other two in one row.
  EXPECT_NE(html.find(R"(<tr><td>a0 → b0</td><td class="n">1</td></tr>)"), std::string::npos);
  EXPECT_EQ(html.find("<td>a9 → b9</td>"), std::string::npos) << "sorted by name, a9 is the 12th";
  EXPECT_NE(html.find(R"(<tr><td>(2 others)</td><td class="n">2</td></tr>)"), std::string::npos) << html;
  // The list has every pod.
  EXPECT_NE(html.find("<td>p-11</td>"), std::string::npos);
}

TEST(SimHtml, NaturalOrderAndLineDiff) {
  EXPECT_TRUE(natural_less("web-2", "web-10"));
  EXPECT_FALSE(natural_less("web-10", "web-2"));
  EXPECT_TRUE(natural_less("a", "b"));
  EXPECT_TRUE(natural_less("web", "web-0"));
  EXPECT_FALSE(natural_less("x1", "x1"));
  EXPECT_TRUE(natural_less("x01", "x1") != natural_less("x1", "x01"));
  EXPECT_EQ(line_diff("a\nb\nc\n", "a\nB\nc\n", 1), (std::vector<std::string>{" a", "-b", "+B", " c"}));
  EXPECT_EQ(line_diff("1\n2\n3\n4\n5\n6\n", "1\n2\n3\n4\n5\nsix\n", 1),
            (std::vector<std::string>{"…", " 5", "-6", "+six"}));
  EXPECT_TRUE(line_diff("same\n", "same\n").empty());
}

// A large cluster: every node in the distribution, the fullest kLabelledBarsMax named.
TEST(SimHtml, ManyNodesNameTheFullest) {
  SimResult r;
  for (size_t i = 0; i < kLabelledBarsMax + 10; ++i) {
    r.use.per_node.push_back(NodeUse{
        "node-" + std::to_string(i), static_cast<int64_t>(i), 100, static_cast<int64_t>(i), 100, 1, 110, {}});
  }
  const std::string html = html_report({{"big", &r}}, {});
  expect_self_contained_and_balanced(html);
  EXPECT_EQ(count(html, "<title>node-49: cpu 49.0 %</title>"), 2u) << "in both charts";
  EXPECT_EQ(count(html, "<title>node-0: cpu 0.0 %</title>"), 1u) << "in the distribution only";
  EXPECT_EQ(count(html, ">node-0</text>"), 0u);
  EXPECT_EQ(count(html, ">node-10</text>"), 2u) << "cpu and memory";
  EXPECT_NE(html.find("The fullest 40 of 50 nodes"), std::string::npos);
}

TEST(SimHtml, Escape) {
  EXPECT_EQ(html_escape(R"(a<b>&"c'd)"), "a&lt;b&gt;&amp;&quot;c&#39;d");
  EXPECT_EQ(html_escape(""), "");
}

// The command with --compare: two summary columns, each run's cluster use, the pods placed
// differently, and the second run's log beside the first.
TEST(SimCommand, CompareOutputAndLogs) {
  SpreadOrPack s;
  const std::string out = (s.f.dir / "out.txt").string();
  const std::string err = (s.f.dir / "err.txt").string();
  const std::string log = (s.f.dir / "log.jsonl").string();
  const std::string html = (s.f.dir / "report.html").string();
  const std::string cmd = std::string(KEXT_SIM_BINARY) + " --cluster " + s.c.cluster_file + " --workload " +
                          s.c.workload_file + " --compare " + s.c.compare_file + " --log " + log +
                          " --html " + html + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_text(err);
  const std::string text = read_text(out);
  const std::string p = s.c.compare_file;
  const SimResult a_run = run_sim(s.c, nullptr);
  const SimResult b_run = run_sim(compare_command(s.c), nullptr, "--compare");
  EXPECT_EQ(text.rfind(format_result_summary(a_run, "default", &b_run, p) + "\n", 0), 0u) << text;
  // That table has the cluster's use and fragmentation in both columns (the 100m pods fit on both
  // nodes in both runs).
  const auto a_rows = use_rows(a_run);
  const auto b_rows = use_rows(b_run);
  EXPECT_EQ(a_rows[0], (std::pair<std::string, std::string>{"nodes used", "2/2"}));
  EXPECT_EQ(b_rows[0], (std::pair<std::string, std::string>{"nodes used", "1/2"}));
  EXPECT_EQ(a_rows[5], (std::pair<std::string, std::string>{"cpu fragmented", "0.0 %"}));
  EXPECT_EQ(b_rows[6], (std::pair<std::string, std::string>{"memory fragmented", "0.0 %"}));
  // Each run's nodes under its name: spread uses both, packing fills n1 to 80 %.
  EXPECT_NE(text.find("default\nnodes by requested share    cpu  memory\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  n1     50.0 %    0.0 %  1/110\n  n2     30.0 %    7.3 %  3/110\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(p + "\nnodes by requested share    cpu  memory\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  n1     80.0 %    7.3 %  4/110\n  n2      0.0 %    0.0 %  0/110\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("placed differently: 3 pods\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  default/web-2  n2       n1\n"), std::string::npos) << text;
  const auto a = parse_lines(read_text(log));
  const auto b = parse_lines(read_text(compare_log_file(log)));
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_STREQ(a[0]["node"].GetString(), "n2");
  EXPECT_STREQ(b[0]["node"].GetString(), "n1");
  // The report names the inputs as the command line gave them (--log and --html are outputs).
  EXPECT_EQ(read_text(html),
            html_report({{"default", &a_run}, {p, &b_run}}, placement_diff(a_run, b_run), s.c));

  // Without --compare: one run in the report; a report that cannot be created is a bad command line.
  auto run = [&](const std::string& args) {
    const int st = std::system((std::string(KEXT_SIM_BINARY) + " --cluster " + s.c.cluster_file + " " + args +
                                " >" + out + " 2>" + err)
                                   .c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  };
  ASSERT_EQ(run("--workload " + s.c.workload_file + " --html " + html), 0) << read_text(err);
  SimCommand one = s.c;
  one.compare_file.clear();
  EXPECT_EQ(read_text(html), html_report({{"default", &a_run}}, {}, one));
  EXPECT_EQ(run("--html " + (s.f.dir / "no-such-dir" / "r.html").string()), 2);
  EXPECT_NE(read_text(err).find("--html " + (s.f.dir / "no-such-dir" / "r.html").string() +
                                ": cannot create the file"),
            std::string::npos)
      << read_text(err);
}

}  // namespace
}  // namespace run_test
}  // namespace kext::simtool
