// What extender-sim simulates (sim/run.h load_sim_config): without --config kube-scheduler's
// default profile; an extender's configuration joins a scheduler profile (the default, or
// --scheduler-config's) as kube-scheduler calls an extender, its reply weighed by --extender-weight
// or the profile's extenders entry; the combinations that mean nothing exit 2 naming the flag and file.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "json/json.h"
#include "policy/config.h"
#include "sim/follow/mirror.h"
#include "sim/in_process_extender.h"
#include "sim/run.h"
#include "tests/sim/core/sim_fixtures.h"

namespace kext::simtool {
namespace scheduler_profile_test {
namespace {

using kext::sim::testing::SimFiles;

// A 4-CPU, 16Gi node labelled with its hostname and one of three zones.
std::string node_json(const std::string& name, const std::string& zone = "zone-a") {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" +
         name + R"(","topology.kubernetes.io/zone":")" + zone +
         R"("}},"status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"110"}}})";
}

std::string list_json(const std::vector<std::string>& items) {
  std::string out = R"({"kind":"List","items":[)";
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : ",") + items[i];
  return out + "]}";
}

// Node -> how many of the run's pods it got.
std::map<std::string, int> per_node(const SimResult& r) {
  std::map<std::string, int> out;
  for (const auto& [pod, node] : r.placements)
    if (!node.empty()) ++out[node];
  return out;
}

// The issue's measurement against a real kube-scheduler 1.26: a Deployment of 14 replicas with
// required pod anti-affinity on the hostname, on 12 nodes in three zones. kube-scheduler (its default
// profile's InterPodAffinity filter) put one replica per node and left two pending.
struct AntiAffinityRun {
  SimFiles files{"profile-anti-affinity"};
  SimCommand command;
  AntiAffinityRun() {
    std::vector<std::string> nodes;
    for (int i = 0; i < 12; ++i) {
      const std::string n = std::to_string(i);
      nodes.push_back(
          node_json("node-" + std::string(i < 10 ? "0" : "") + n, std::string("zone-") + "abc"[i % 3]));
    }
    command.cluster_file = files.write("cluster.json", list_json(nodes));
    command.workload_file = files.write(
        "workload.json",
        R"([{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},)"
        R"("spec":{"replicas":14,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":)"
        R"({"app":"web"}},"spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
        R"([{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}},)"
        R"("containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}]}}}}])");
  }
};

TEST(SimSchedulerProfile, DefaultIsKubeSchedulersProfileOneReplicaPerNode) {
  AntiAffinityRun run;
  const SimResult r = run_sim(run.command, nullptr);
  const std::map<std::string, int> placed = per_node(r);
  EXPECT_EQ(placed.size(), 12u);
  for (const auto& [node, pods] : placed) EXPECT_EQ(pods, 1) << node;
  EXPECT_EQ(r.summary.scheduled, 12u);
  EXPECT_EQ(r.summary.pending_at_end, 2u);
  EXPECT_EQ(r.pending_by_reason,
            (std::map<std::string, size_t>{{"node(s) didn't match pod anti-affinity rules", 2}}));
  EXPECT_EQ(r.configuration, load_scheduling_file(default_scheduler_config_json()).effective_config)
      << "the report shows kube-scheduler's default profile";
}

TEST(SimSchedulerProfile, AProfileWithoutInterPodAffinityStacksReplicas) {
  // The extender's embedded legacy default, extender-sim's default before, as the scheduler's own
  // profile: no InterPodAffinity, so nothing stops a second replica on a node and none is pending.
  AntiAffinityRun run;
  run.command.config_file = run.files.write(
      "legacy-profile.yaml",
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
      "- plugins:\n    filter:\n      disabled: [{name: InterPodAffinity}]\n");
  const SimResult r = run_sim(run.command, nullptr);
  EXPECT_EQ(r.summary.scheduled, 14u);
  EXPECT_EQ(r.summary.pending_at_end, 0u);
  EXPECT_LT(per_node(r).size(), 14u);
}

// Two 4-CPU nodes; n1 runs a 1-CPU, 1Gi pod. A plain 1-CPU, 1Gi pod scores (default profile,
// 0..100 per plugin): NodeResourcesFit LeastAllocated n1 68 / n2 84, BalancedAllocation n1 81 /
// n2 90, the rest equal: n2 leads by 25. An extender that packs (MostAllocated) replies n1 3 / n2 1,
// which counts x 10 x its weight: weight 1 adds 20 to n1 (n2 still wins), weight 2 adds 40 (n1 wins).
constexpr const char* kPackExtender =
    R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration",
        "plugins":{"score":{"disabled":[{"name":"*"}],"enabled":[{"name":"NodeResourcesFit"}]}},
        "pluginConfig":[{"name":"NodeResourcesFit","args":{"scoringStrategy":{"type":"MostAllocated"}}}]})";
// An extender that spreads pods of a Service hard: at most one more on a node than on the emptiest
// (PodTopologySpread's List defaulting, DoNotSchedule), where the default profile only prefers it.
constexpr const char* kHardSpreadExtender =
    R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration",
        "pluginConfig":[{"name":"PodTopologySpread","args":{"defaultingType":"List","defaultConstraints":[
          {"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"DoNotSchedule"}]}}]})";
// kube-extender's defaults, which check every extended resource a pod requests.
constexpr const char* kDefaultExtender =
    R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})";

std::string scheduler_config(const std::string& rest) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + rest;
}

// A running 1-CPU, 1Gi pod labelled app=`app`.
std::string running(const std::string& name, const std::string& node, const std::string& app) {
  return R"({"kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"shop","uid":"u-)" + name +
         R"(","labels":{"app":")" + app + R"("}},"spec":{"nodeName":")" + node +
         R"(","containers":[{"name":"c","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]},)"
         R"("status":{"phase":"Running","startTime":"2026-11-24T10:00:00Z"}})";
}

// The 1-CPU, 1Gi pod p of app=web, with `extra` requests.
std::string pod_p(const std::string& extra = "") {
  return R"([{"kind":"Pod","metadata":{"name":"p","namespace":"shop","labels":{"app":"web"}},)"
         R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1","memory":"1Gi")" +
         extra + "}}}]}}]";
}

// The decision of the run's one cycle, as the log has it.
rapidjson::Document decide(const SimFiles& f, SimCommand c, const std::vector<std::string>& cluster,
                           const std::string& workload) {
  c.cluster_file = f.write("cluster.json", list_json(cluster));
  c.workload_file = f.write("workload.json", workload);
  std::ostringstream log;
  run_sim(c, &log);
  rapidjson::Document d;
  d.Parse(log.str().c_str());
  EXPECT_TRUE(!d.HasParseError() && d.IsObject()) << log.str();
  return d;
}

TEST(SimSchedulerProfile, AnExtenderScoresBesideTheProfileAtItsWeight) {
  struct Case {
    std::string name;
    std::string extender;           // --config's text; "" none
    std::optional<int64_t> weight;  // --extender-weight
    std::string scheduler;          // --scheduler-config's text; "" none
    std::string node;               // where p goes
    // The extender's term in the decision (its reply x 10) and its weight; nullopt: none.
    std::optional<int64_t> extender_term;
    int64_t term_weight = 0;
  };
  const std::string one_entry = scheduler_config("extenders:\n- {urlPrefix: http://x, weight: 2}\n");
  const std::vector<Case> cases = {
      {"the default profile alone", "", std::nullopt, "", "n2", std::nullopt},
      {"packing at weight 1 is outweighed", kPackExtender, std::nullopt, "", "n2", 10, 1},
      {"packing at --extender-weight 2 wins", kPackExtender, 2, "", "n1", 30, 2},
      {"the weight of the profile's one extenders entry", kPackExtender, std::nullopt, one_entry, "n1", 30,
       2},
      {"several entries: weight 1", kPackExtender, std::nullopt,
       scheduler_config(
           "extenders:\n- {urlPrefix: http://x, weight: 2}\n- {urlPrefix: http://y, weight: 5}\n"),
       "n2", 10, 1},
      {"--extender-weight over the entry's", kPackExtender, 1, one_entry, "n2", 10, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SimFiles f("profile-weight");
    SimCommand cmd;
    cmd.kubernetes_version =
        KubeVersion{35};  // the weights below: 1.36's BalancedAllocation narrows the margin
    if (!c.extender.empty()) cmd.config_file = f.write("extender.json", c.extender);
    if (!c.scheduler.empty()) cmd.scheduler_config_file = f.write("scheduler.yaml", c.scheduler);
    cmd.extender_weight = c.weight;
    const rapidjson::Document d =
        decide(f, cmd, {node_json("n1"), node_json("n2"), running("old", "n1", "batch")}, pod_p());
    ASSERT_TRUE(d.IsObject() && d.HasMember("scores"));
    EXPECT_EQ(std::string(d["node"].GetString()), c.node);
    std::optional<int64_t> term;
    int64_t term_weight = 0;
    int64_t total = 0;
    for (const auto& t : d["scores"].GetArray()) {
      total += t["score"].GetInt64() * t["weight"].GetInt64();
      if (std::string(t["plugin"].GetString()) == "extender") {
        term = t["score"].GetInt64();
        term_weight = t["weight"].GetInt64();
      }
    }
    EXPECT_EQ(term, c.extender_term);
    if (term) {
      EXPECT_EQ(term_weight, c.term_weight);
    }
    EXPECT_EQ(total, d["score"].GetInt64()) << "the profile's weighted sum plus reply x 10 x weight";
  }
}

// A 4-CPU node with `gpus` example.com/gpu.
std::string gpu_node(const std::string& name, int gpus) {
  return R"({"kind":"Node","metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" +
         name + R"("}},"status":{"allocatable":{"cpu":"4","memory":"16Gi","pods":"110","example.com/gpu":")" +
         std::to_string(gpus) + R"("}}})";
}

TEST(SimSchedulerProfile, TheExtendersFilterRunsOnTheNodesTheProfilePassed) {
  struct Case {
    std::string name;
    std::string extender;   // --config's text; "" none
    std::string scheduler;  // --scheduler-config's text; "" none
    std::vector<std::string> cluster;
    std::string workload;
    std::string node;  // where p goes
    int feasible = 0;
  };
  // n0 runs two pods of the Service web, n1 one, n2 none.
  const std::vector<std::string> spread = {
      node_json("n0"),
      node_json("n1"),
      node_json("n2"),
      running("a", "n0", "web"),
      running("b", "n0", "web"),
      running("c", "n1", "web"),
      R"({"kind":"Service","metadata":{"name":"web","namespace":"shop"},"spec":{"selector":{"app":"web"}}})"};
  // The scheduler leaves example.com/gpu to the extender (as managedResources' ignoredByScheduler
  // does): only n1 has one, and n1 is the fuller node.
  const std::string ignores_gpu = scheduler_config(
      "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {ignoredResources: "
      "[example.com/gpu]}\n");
  const std::vector<std::string> gpus = {gpu_node("n1", 1), gpu_node("n2", 0), running("old", "n1", "batch")};
  const std::string wants_gpu = pod_p(R"(,"example.com/gpu":"1")");
  const std::vector<Case> cases = {
      {"the profile's spreading is soft", "", "", spread, pod_p(), "n2", 3},
      {"the extender's is hard: n0 and n1 removed", kHardSpreadExtender, "", spread, pod_p(), "n2", 1},
      {"a resource the profile ignores", "", ignores_gpu, gpus, wants_gpu, "n2", 2},
      {"the extender checks it", kDefaultExtender, ignores_gpu, gpus, wants_gpu, "n1", 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SimFiles f("profile-filter");
    SimCommand cmd;
    cmd.kubernetes_version =
        KubeVersion{35};  // the weights below: 1.36's BalancedAllocation narrows the margin
    if (!c.extender.empty()) cmd.config_file = f.write("extender.json", c.extender);
    if (!c.scheduler.empty()) cmd.scheduler_config_file = f.write("scheduler.yaml", c.scheduler);
    const rapidjson::Document d = decide(f, cmd, c.cluster, c.workload);
    ASSERT_TRUE(d.IsObject() && d.HasMember("node"));
    EXPECT_EQ(std::string(d["node"].GetString()), c.node);
    EXPECT_EQ(d["feasibleNodes"].GetInt(), c.feasible);
  }
}

std::string load_error(const SimCommand& c, const std::string& file, std::string_view flag = "--config") {
  try {
    load_sim_config(c, file, flag);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The files the configuration tests load.
struct ProfileFiles {
  SimFiles f{"profile-flags"};
  const std::string extender = f.write("extender.json", kPackExtender);
  const std::string ksc =
      f.write("ksc.yaml", scheduler_config("extenders:\n- {urlPrefix: http://x/, weight: 4}\n"));
  const std::string policy = f.write("policy.json", R"({"kind":"Policy","apiVersion":"v1"})");
  const std::string broken = f.write("broken.yaml", scheduler_config("bogus: 1\n"));
};

TEST(SimSchedulerProfile, WhatEachConfigurationRuns) {
  const ProfileFiles f;
  SimCommand with_ksc;
  with_ksc.scheduler_config_file = f.ksc;
  {  // An extender's configuration: the profile, the in-process extender, its weight.
    const SimConfig s = load_sim_config(with_ksc, f.extender);
    EXPECT_NE(s.extender, nullptr);
    EXPECT_TRUE(s.scoring.in_tree);
    EXPECT_EQ(s.scoring.extender_weight, 4);
    sim::SimulatorOptions o;
    apply(s, o);
    EXPECT_EQ(o.backend, s.extender.get());
    EXPECT_TRUE(o.scoring.in_tree);
    EXPECT_EQ(o.scoring.extender_weight, 4);
    EXPECT_NE(&dynamic_cast<const InProcessExtender&>(*s.extender).engine(), s.engine.get())
        << "the extender's own configuration, not the profile's";
  }
  for (const std::string& file : {f.ksc, std::string()}) {  // a profile alone
    const SimConfig s = load_sim_config(file);
    EXPECT_EQ(s.extender, nullptr);
    EXPECT_FALSE(s.scoring.in_tree);
  }
  // --extender: the running extender's configuration, the embedded one by default; a profile (from
  // --config or --scheduler-config) runs beside it at its entry's weight for the URL.
  SimCommand remote;
  remote.extender_url = "http://x";
  const SimConfig embedded = load_sim_config(remote, "");
  EXPECT_EQ(embedded.text, default_config_json());
  EXPECT_FALSE(embedded.scoring.in_tree);
  EXPECT_EQ(embedded.extender, nullptr) << "the run connects the running extender itself";
  remote.scheduler_config_file = f.ksc;
  const SimConfig beside = load_sim_config(remote, "");
  EXPECT_TRUE(beside.scoring.in_tree);
  EXPECT_EQ(beside.scoring.extender_weight, 4);
  remote.extender_weight = 9;
  EXPECT_EQ(load_sim_config(remote, "").scoring.extender_weight, 9);
}

TEST(SimSchedulerProfile, ErrorsNameTheFlagAndTheFile) {
  const ProfileFiles f;
  auto scheduler_config_is = [](const std::string& file) {
    SimCommand c;
    c.scheduler_config_file = file;
    return c;
  };
  const SimCommand with_ksc = scheduler_config_is(f.ksc);
  SimCommand weighted;
  weighted.extender_weight = 3;
  SimCommand remote_both = with_ksc;
  remote_both.extender_url = "http://x";
  const std::string none = f.f.path("none.yaml");
  const std::vector<std::tuple<std::string, SimCommand, std::string, std::string>> errors = {
      {"--scheduler-config that is an ExtenderConfiguration", scheduler_config_is(f.extender), f.extender,
       "--scheduler-config " + f.extender + ": an ExtenderConfiguration, not a KubeSchedulerConfiguration"},
      {"--scheduler-config that is a legacy Policy", scheduler_config_is(f.policy), f.extender,
       "--scheduler-config " + f.policy + ": a legacy Policy, not a KubeSchedulerConfiguration"},
      {"--scheduler-config that does not load", scheduler_config_is(f.broken), "",
       "--scheduler-config " + f.broken + ": "},
      {"--scheduler-config that is missing", scheduler_config_is(none), "",
       "--scheduler-config " + none + ": cannot read the file"},
      {"two scheduler profiles", with_ksc, f.ksc,
       "--config " + f.ksc + " is a KubeSchedulerConfiguration, and so is --scheduler-config " + f.ksc},
      {"a weight and no extender", weighted, f.ksc, "--extender-weight 3: this run has no extender to weigh"},
      {"a weight and no --config", weighted, "", "--extender-weight 3: this run has no extender to weigh"},
      {"--config beside --extender and --scheduler-config", remote_both, f.extender,
       "--config " + f.extender + ": with --extender and --scheduler-config"},
  };
  for (const auto& [name, command, file, want] : errors) {
    SCOPED_TRACE(name);
    EXPECT_EQ(load_error(command, file).rfind(want, 0), 0u) << load_error(command, file);
  }
  SimCommand compare_weighted = weighted;
  compare_weighted.compare_file = f.ksc;
  EXPECT_EQ(load_error(compare_weighted, f.ksc), "") << "with --compare the other run may have the extender";
  EXPECT_EQ(load_error(weighted, f.ksc, "--compare"), "") << "--compare's run";
}

TEST(SimSchedulerProfile, FollowRefusesAPolicyLoadedWithoutTheFlags) {
  SimFiles f("profile-follow");
  SimCommand c;
  c.follow = true;
  c.scheduler_config_file = f.write("ksc.yaml", scheduler_config(""));
  const std::string extender = f.write("extender.json", kPackExtender);
  EXPECT_THROW(follow::follow_options(c, load_sim_config(extender), 0), InputError);
  const sim::SimulatorOptions o = follow::follow_options(c, load_sim_config(c, extender), 0);
  EXPECT_NE(o.backend, nullptr);
  EXPECT_TRUE(o.scoring.in_tree);
}

TEST(SimSchedulerProfile, BadCombinationsExit2NamingTheFlag) {
  AntiAffinityRun run;
  const std::string ext = run.files.write("extender.json", kPackExtender);
  const std::string err = run.files.path("err.txt");
  auto exit_code = [&](const std::string& args) {
    const int st = std::system((std::string(KEXT_SIM_BINARY) + " --cluster " + run.command.cluster_file +
                                " " + args + " >/dev/null 2>" + err)
                                   .c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  };
  auto error = [&] {
    std::ifstream in(err);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  EXPECT_EQ(exit_code("--scheduler-config " + ext), 2);
  EXPECT_NE(error().find("--scheduler-config " + ext + ": an ExtenderConfiguration"), std::string::npos)
      << error();
  EXPECT_EQ(exit_code("--extender-weight 0 --config " + ext), 2);
  EXPECT_NE(error().find("--extender-weight"), std::string::npos) << error();
  EXPECT_EQ(exit_code("--extender-weight 2"), 2);
  EXPECT_NE(error().find("--extender-weight 2: this run has no extender to weigh"), std::string::npos)
      << error();
  EXPECT_EQ(exit_code("--extender-weight 2 --config " + ext), 0) << error();
}

}  // namespace
}  // namespace scheduler_profile_test
}  // namespace kext::simtool
