// extender-sim --extender against the real kube-extender (a child process watching the API the
// simulation serves; filter, prioritize and preempt over HTTP): the decision log is the in-process
// run's, line for line, in both node modes;
// and the failures (unreachable extender, an error reply, bad flags) are errors that name it.
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "json/json.h"
#include "policy/config.h"
#include "sim/remote_extender.h"
#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/sim/extender_run.h"

namespace kext::simtool {
namespace extender_mode_test {
namespace {

using kext::sim::testing::running_pod_json;
using kext::sim::testing::SimFiles;
using kext::sim::testing::small_node_json;

// Three full 1-CPU nodes (run_test's preemption cluster) and two empty ones. Four controlled
// 300m pods arrive a second apart and spread over n4 and n5 by score (ties drawn by selectHost);
// then a priority-1000 pod of 800m fits nowhere and preempts two of them (n4 or n5: the youngest
// victims), binds after their 30 s grace period, and their replacements look for room: one binds,
// one is unschedulable.
std::string cluster_json() {
  return R"({"kind":"List","items":[)" + small_node_json("n1") + "," + small_node_json("n2") + "," +
         small_node_json("n3") + "," + small_node_json("n4") + "," + small_node_json("n5") + "," +
         running_pod_json("a1", "n1", "2026-11-24T10:00:00Z") + "," +
         running_pod_json("a2", "n1", "2026-11-24T10:00:00Z") + "," +
         running_pod_json("b1", "n2", "2026-11-24T10:30:00Z") + "," +
         running_pod_json("b2", "n2", "2026-11-24T10:30:00Z") + "," +
         running_pod_json("c1", "n3", "2026-11-24T10:10:00Z") + "," +
         running_pod_json("c2", "n3", "2026-11-24T10:10:00Z") + "]}";
}

constexpr const char* kWorkload = R"([{"kind":"PriorityClass","metadata":{"name":"vip"},"value":1000},
  {"kind":"ReplicaSet","metadata":{"name":"small","namespace":"web"},"spec":{"replicas":4,"template":{
   "metadata":{"labels":{"app":"small"}},
   "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"300m","memory":"100Mi"}}}]}}}},
  {"kind":"Deployment","metadata":{"name":"vip","namespace":"prod"},"spec":{"replicas":1,"template":{
   "spec":{"priorityClassName":"vip","containers":[{"name":"c","resources":{"requests":{"cpu":"800m"}}}]}}}}])";

// The runs compared rank on the extender reply's 0..10 (--rank-by extender-reply): a scheduler whose
// only score is this extender. Both run the extender's embedded default: in process as --config, an
// extender configuration beside kube-scheduler's default profile (whose filters pass what the
// extender's pass here), and as the running extender's configuration with --extender.
std::string embedded_extender_config(const SimFiles& f) {
  return f.write("extender-default.json", std::string(default_config_json()));
}

SimCommand command(const SimFiles& f) {
  SimCommand c;
  c.score_scale = ScoreScale::kExtenderReply;
  c.config_file = embedded_extender_config(f);
  c.cluster_file = f.write("cluster.json", cluster_json());
  c.workload_file = f.write("workload.json", kWorkload);
  c.arrival_interval_seconds = 1;
  c.max_time_seconds = 3600;
  return c;
}

// A log without its "scores" terms: in process they are the plugins', through the extender its reply.
std::string without_score_terms(const std::string& log) {
  static const std::regex kTerms(R"(,"scores":\[[^\]]*\])");
  return std::regex_replace(log, kTerms, "");
}

TEST(SimExtenderMode, SameDecisionsAsInProcessInBothNodeModes) {
  SimFiles f("same");
  const SimCommand c = command(f);
  std::ostringstream in_process;
  run_sim(c, &in_process);
  // The scenario exercises scoring with ties, preemption, replacements and a failure.
  const std::string want = in_process.str();
  EXPECT_NE(want.find(R"("outcome":"preempted")"), std::string::npos) << want;
  EXPECT_NE(want.find(R"("score":)"), std::string::npos) << want;
  EXPECT_NE(want.find(R"("outcome":"unschedulable")"), std::string::npos) << want;
  EXPECT_NE(want.find("-r1"), std::string::npos) << want;

  for (bool names : {false, true}) {
    SCOPED_TRACE(names ? "NodeNames" : "full Nodes");
    // Bound through the extender's bindVerb in one mode: the Bindings change nothing the cycles see.
    SimCommand through = c;
    if (names) through.bind_verb = "bind";
    const HttpRun run = run_with_extender(through, names, "", {"--enable-bind"});
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(without_score_terms(run.log), without_score_terms(want));
    EXPECT_EQ(
        run.metrics.find(R"(kube_extender_requests_total{verb="bind",code="200"})") != std::string::npos,
        names)
        << run.metrics;
    // The decisions came from the extender: it answered filter and prioritize.
    EXPECT_NE(run.metrics.find(R"(kube_extender_requests_total{verb="filter",code="200"})"),
              std::string::npos)
        << run.metrics;
    EXPECT_NE(run.metrics.find(R"(kube_extender_requests_total{verb="prioritize",code="200"})"),
              std::string::npos)
        << run.metrics;
    EXPECT_NE(run.metrics.find(R"(kube_extender_requests_total{verb="preempt",code="200"})"),
              std::string::npos)
        << run.metrics;
  }
}

// An extender's configuration given to --config runs in process beside kube-scheduler's default
// profile; the same configuration in a running kube-extender, beside the same profile
// (--scheduler-config), answers the same: the logs are equal byte for byte, the score terms (the
// profile's plugins and the extender's reply x 10 x its weight) included. Its preemption stays the
// profile's (no preemptVerb), as in process.
TEST(SimExtenderMode, InProcessExtenderAnswersAsTheRunningOne) {
  SimFiles f("beside");
  SimCommand c = command(f);
  c.score_scale = ScoreScale::kSchedulerTotal;
  c.extender_weight = 3;
  c.config_file = f.write("pack.json", R"({"apiVersion":"kube-extender.io/v1alpha1",
      "kind":"ExtenderConfiguration","plugins":{"score":{"disabled":[{"name":"*"}],
      "enabled":[{"name":"NodeResourcesFit"}]}},"pluginConfig":[{"name":"NodeResourcesFit",
      "args":{"scoringStrategy":{"type":"MostAllocated"}}}]})");
  std::ostringstream in_process;
  run_sim(c, &in_process);
  const std::string want = in_process.str();
  EXPECT_NE(want.find(R"({"plugin":"extender","weight":3,"score":)"), std::string::npos) << want;
  EXPECT_NE(want.find(R"({"plugin":"TaintToleration","weight":3,"score":)"), std::string::npos) << want;
  EXPECT_NE(want.find(R"("outcome":"preempted")"), std::string::npos) << want;

  SimCommand remote = c;
  remote.config_file.clear();
  remote.scheduler_config_file =
      f.write("default-profile.json", std::string(default_scheduler_config_json()));
  remote.preempt_verb = "";
  for (bool names : {false, true}) {
    SCOPED_TRACE(names ? "NodeNames" : "full Nodes");
    const HttpRun run = run_with_extender(remote, names, "", {"--config", c.config_file});
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(run.log, want);
  }
}

// The model keeps only hashes of image names; the nodes' status.images go to the extender as the
// input had them (in the API and in full Nodes), so its ImageLocality scores what the in-process run
// scores: the pod goes to the one node holding its large image, with the same scores in the log.
TEST(SimExtenderMode, NodeImagesReachTheExtender) {
  SimFiles f("images");
  SimCommand c;
  c.score_scale = ScoreScale::kExtenderReply;
  c.config_file = embedded_extender_config(f);
  c.cluster_file = f.write("cluster.json", R"({"kind":"List","items":[)" + small_node_json("n1") + "," +
                                               R"({"kind":"Node","metadata":{"name":"n2"},"status":{)"
                                               R"("allocatable":{"cpu":"1","memory":"4Gi","pods":"110"},)"
                                               R"("images":[{"names":["registry.example/big:1"],)"
                                               R"("sizeBytes":2000000000}]}},)" +
                                               small_node_json("n3") + "]}");
  c.workload_file = f.write("workload.json", R"([{"kind":"Pod","metadata":{"name":"p","namespace":"ml"},
      "spec":{"containers":[{"name":"c","image":"registry.example/big:1",
      "resources":{"requests":{"cpu":"100m"}}}]}}])");
  std::ostringstream in_process;
  run_sim(c, &in_process);
  const std::string want = in_process.str();
  EXPECT_NE(want.find(R"("node":"n2")"), std::string::npos) << want;
  EXPECT_NE(want.find(R"("score":6,"runnerUpScore":5)"), std::string::npos) << want;
  for (bool names : {false, true}) {
    SCOPED_TRACE(names ? "NodeNames" : "full Nodes");
    const HttpRun run = run_with_extender(c, names);
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(without_score_terms(run.log), without_score_terms(want));
  }
}

// Without a preemptVerb the extender is not asked (kube-scheduler skips extenders that do not
// SupportsPreemption): same log, no preempt request.
TEST(SimExtenderMode, NoPreemptVerbNoPreemptCall) {
  SimFiles f("nopreempt");
  SimCommand c = command(f);
  std::ostringstream in_process;
  run_sim(c, &in_process);
  c.preempt_verb = "";
  const HttpRun run = run_with_extender(c, true);
  ASSERT_EQ(run.error, "");
  EXPECT_EQ(without_score_terms(run.log), without_score_terms(in_process.str()));
  EXPECT_NE(run.metrics.find(R"(kube_extender_requests_total{verb="filter",code="200"})"), std::string::npos);
  EXPECT_EQ(run.metrics.find(R"(kube_extender_requests_total{verb="preempt")"), std::string::npos)
      << run.metrics;
}

// Twelve 4-CPU nodes in three zones, partly used by running pods of three priorities under a PDB,
// and 120 pods of six ReplicaSets (three priorities, one with a nodeSelector) arriving 0.2 s apart:
// hundreds of cycles with score ties, preemptions while other preemptors are nominated, PDB
// violations, replacements, unschedulable pods. With preemption's choice in process the extender's
// filter and prioritize give the in-process log line for line in both node modes.
TEST(SimExtenderMode, ManyCyclesSameLog) {
  SimFiles f("many");
  std::string cluster = R"({"kind":"List","items":[)";
  const int priorities[] = {0, 10, 100};
  const int cpus[] = {200, 500, 700};
  for (int i = 0; i < 12; ++i) {
    const std::string node = "node-" + std::to_string(10 + i);
    cluster += R"({"kind":"Node","metadata":{"name":")" + node + R"(","labels":{"zone":"z)" +
               std::to_string(i % 3) +
               R"("}},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}},)";
    for (int j = 0; j < 1 + (i * 7 + 3) % 5; ++j) {
      const std::string name = "run-" + std::to_string(i) + "-" + std::to_string(j);
      cluster += R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"base","uid":"r-)" + name +
                 R"(","labels":{"app":"base"}},"spec":{"nodeName":")" + node + R"(","priority":)" +
                 std::to_string(priorities[(i + j) % 3]) +
                 R"(,"containers":[{"name":"c","resources":{"requests":{"cpu":")" +
                 std::to_string(cpus[(i * 3 + j) % 3]) +
                 R"(m","memory":"256Mi"}}}]},"status":{"phase":"Running",)"
                 R"("startTime":"2026-11-24T10:)" +
                 std::to_string(10 + (i * 13 + j * 7) % 50) + R"(:00Z"}},)";
    }
  }
  cluster +=
      R"({"kind":"PodDisruptionBudget","apiVersion":"policy/v1","metadata":{"name":"base","namespace":"base"},)"
      R"("spec":{"selector":{"matchLabels":{"app":"base"}}},"status":{"disruptionsAllowed":3}}]})";
  std::string workload = R"([{"kind":"PriorityClass","metadata":{"name":"hi"},"value":1000},)"
                         R"({"kind":"PriorityClass","metadata":{"name":"mid"},"value":500})";
  for (int k = 0; k < 6; ++k) {
    const std::string cls =
        k < 2 ? "" : (k % 2 ? R"("priorityClassName":"hi",)" : R"("priorityClassName":"mid",)");
    const std::string selector = k == 3 ? R"("nodeSelector":{"zone":"z0"},)" : "";
    workload +=
        R"(,{"kind":"ReplicaSet","metadata":{"name":"rs)" + std::to_string(k) +
        R"(","namespace":"w"},"spec":{"replicas":20,"template":{"metadata":{"labels":{"app":"rs)" +
        std::to_string(k) + R"("}},"spec":{)" + cls + selector +
        R"("terminationGracePeriodSeconds":5,"containers":[{"name":"c","resources":{"requests":{"cpu":")" +
        std::to_string(400 + 100 * k) + R"(m","memory":"300Mi"}}}]}}}})";
  }
  workload += "]";
  SimCommand c;
  c.score_scale = ScoreScale::kExtenderReply;
  c.config_file = embedded_extender_config(f);
  c.cluster_file = f.write("cluster.json", cluster);
  c.workload_file = f.write("workload.json", workload);
  c.arrival_interval_seconds = 0.2;
  c.seed = 9;
  c.max_time_seconds = 3600;
  std::ostringstream in_process;
  run_sim(c, &in_process);
  const std::string want = in_process.str();
  EXPECT_GT(std::count(want.begin(), want.end(), '\n'), 200) << want;
  EXPECT_NE(want.find(R"("outcome":"preempted")"), std::string::npos);
  EXPECT_NE(want.find(R"("runnerUpScore")"), std::string::npos);
  c.preempt_verb = "";
  for (bool names : {false, true}) {
    SCOPED_TRACE(names ? "NodeNames" : "full Nodes");
    const HttpRun run = run_with_extender(c, names);
    ASSERT_EQ(run.error, "");
    EXPECT_EQ(without_score_terms(run.log), without_score_terms(want));
  }
}

// Gang scheduling by the extender's own logic (--bind-verb), on the docs' example
// (docs/simulator.md "Gang scheduling"): ten 4-CPU nodes, three PodGroups of eight 2-CPU workers
// running 600 s (room for two groups) and four 1-CPU web pods. The extender admits two groups at
// filter, holds each member's bind until the eighth of its group reaches bind and then binds all
// eight; the third has no pod bound until the first two finish, then binds whole; the web pods bind
// beside them. The pods bound, and when, are the in-process simulation's.
SimCommand gang_example() {
  SimCommand c;
  c.cluster_file = std::string(KEXT_SOURCE_DIR) + "/examples/gang-cluster.json";
  c.workload_file = std::string(KEXT_SOURCE_DIR) + "/examples/gang-workload.json";
  return c;
}

// namespace/name -> simulated time of every pod the log shows bound (scheduled, or released with its
// group's last member).
std::map<std::string, double> bound_pods(const std::string& log) {
  std::map<std::string, double> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    if (!d.IsObject() || std::string(d["outcome"].GetString()) != "scheduled") continue;
    const double at = d["time"].GetDouble();
    out[std::string(d["namespace"].GetString()) + "/" + d["name"].GetString()] = at;
    if (d.HasMember("released"))
      for (const auto& uid : d["released"].GetArray()) out[uid.GetString()] = at;  // uid: namespace/name
  }
  return out;
}

TEST(SimExtenderMode, GangsBindThroughTheExtender) {
  SimCommand c = gang_example();
  std::ostringstream in_process;
  run_sim(c, &in_process);
  const std::map<std::string, double> want = bound_pods(in_process.str());
  ASSERT_EQ(want.size(), 28u) << in_process.str();
  for (const auto& [pod, at] : want) EXPECT_EQ(at, pod.starts_with("train/t5-") ? 600.0 : 0.0) << pod;

  c.bind_verb = "bind";
  const std::vector<std::string> extender{"--enable-bind", "--threads", "16", "--gang-max-held-binds", "16"};
  const HttpRun run = run_with_extender(c, true, "", extender);
  ASSERT_EQ(run.error, "");
  EXPECT_EQ(bound_pods(run.log), want) << run.log;
  // Seven members of each group waited at bind; the eighth's bind let them go, never one before: a
  // partial group is never bound. The third group waited unadmitted while the others held the room.
  std::istringstream in(run.log);
  int waiting = 0;
  for (std::string line; std::getline(in, line);) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    const std::string name = d["name"].GetString(), outcome = d["outcome"].GetString();
    waiting += outcome == "waiting";
    if (outcome == "scheduled" && d["namespace"].GetString() == std::string("train")) {
      ASSERT_TRUE(d.HasMember("released")) << line;
      EXPECT_EQ(d["released"].Size(), 7u) << line;
    }
    if (name.starts_with("t5-") && d["time"].GetDouble() == 0) {
      EXPECT_EQ(outcome, "unschedulable") << line;
      EXPECT_NE(line.find("pod group train/t5"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(waiting, 21);
  // The extender's gang scheduling decided: it admitted the three groups and made every Binding.
  EXPECT_NE(run.metrics.find("kube_extender_gang_admissions_total 3\n"), std::string::npos) << run.metrics;
  EXPECT_NE(run.metrics.find(R"(kube_extender_requests_total{verb="bind",code="200"} 28)"), std::string::npos)
      << run.metrics;
  EXPECT_NE(run.metrics.find("kube_extender_gang_held_binds 0\n"), std::string::npos) << run.metrics;
  // Held binds answered on the extender's clock, the same log: a bind returns once every bind sent
  // is answered or held.
  const HttpRun again = run_with_extender(c, false, "", extender);
  ASSERT_EQ(again.error, "");
  EXPECT_EQ(without_score_terms(again.log), without_score_terms(run.log));
}

// PodGroups through an extender need its bindVerb: without one its holds would never run.
TEST(SimExtenderMode, GangsNeedTheBindVerb) {
  SimCommand c = gang_example();
  c.extender_url = "http://127.0.0.1:" + std::to_string(free_port());
  c.api_listen = "127.0.0.1:0";
  try {
    run_sim(c, nullptr);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--extender with PodGroups needs --bind-verb"), std::string::npos)
        << e.what();
  }
}

TEST(SimExtenderMode, AnErrorReplyNamesTheExtender) {
  SimFiles f("error");
  // Nothing is served under /nope: the filter call answers 404.
  const HttpRun run = run_with_extender(command(f), true, "/nope");
  EXPECT_NE(run.error.find("/nope/filter: HTTP 404"), std::string::npos) << run.error;
  EXPECT_NE(run.error.find("--extender http://127.0.0.1:"), std::string::npos) << run.error;
}

// The binary: an extender that never answers is exit 1 naming it; a bad URL or address exit 2.
TEST(SimExtenderMode, ExitCodes) {
  SimFiles f("exit");
  const SimCommand c = command(f);
  const std::string err = f.path("err.txt");
  auto run = [&](const std::string& args) {
    const int status = std::system((std::string(KEXT_SIM_BINARY) + " --cluster " + c.cluster_file +
                                    " --workload " + c.workload_file + " " + args + " >/dev/null 2>" + err)
                                       .c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  auto stderr_text = [&] {
    std::ifstream in(err);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string dead = "http://127.0.0.1:" + std::to_string(free_port());
  EXPECT_EQ(run("--extender " + dead + " --extender-timeout 0.3"), 1);
  EXPECT_NE(stderr_text().find("--extender " + dead + ": not in step"), std::string::npos) << stderr_text();
  EXPECT_NE(stderr_text().find("cannot connect"), std::string::npos) << stderr_text();
  EXPECT_EQ(run("--extender ftp://x"), 2);
  EXPECT_NE(stderr_text().find("--extender ftp://x: scheme must be http or https"), std::string::npos);
  EXPECT_EQ(run("--extender " + dead + " --api-listen nowhere"), 2);
  EXPECT_NE(stderr_text().find("--api-listen nowhere"), std::string::npos) << stderr_text();
  EXPECT_EQ(run("--extender " + dead + " --compare " + c.cluster_file), 2);
  EXPECT_NE(stderr_text().find("--compare cannot be used with --extender"), std::string::npos)
      << stderr_text();
}

}  // namespace
}  // namespace extender_mode_test
}  // namespace kext::simtool
