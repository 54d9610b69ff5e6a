// extender-sim --follow (sim/follow/) against the in-repo API server: a scripted production
// scheduler deciding with the same configuration and seed agrees on every pod, a different one does
// not; live deletions, new nodes, pods created bound and a relist after 410 reach the simulation; and
// every request the follower sends is a GET.
#include "sim/follow/follower.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "json/json.h"
#include "sim/inputs.h"
#include "sim/run.h"
#include "sim/sim_options.h"
#include "tests/support/child_process.h"
#include "tests/support/command_line.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace kext::simtool::follow {
namespace follower_test {
namespace {

using kext::testing::FakeApiServer;
using kext::testing::TempDir;
using kext::testing::wait_until;
using namespace std::chrono_literals;

std::string node_json(const std::string& name, const std::string& cpu = "4",
                      const std::string& memory = "16Gi") {
  return R"({"metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" + name +
         R"("}},"status":{"allocatable":{"cpu":")" + cpu + R"(","memory":")" + memory +
         R"(","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}})";
}

std::string pod_json(const std::string& name, const std::string& node, const std::string& cpu,
                     const std::string& memory = "256Mi", const std::string& phase = "") {
  const std::string status = !phase.empty() ? phase : node.empty() ? "Pending" : "Running";
  return R"({"metadata":{"name":")" + name + R"(","namespace":"live","uid":"u-)" + name +
         R"(","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs-)" +
         name.substr(0, 1) + R"(","uid":"rs","controller":true}]},"spec":{)" +
         (node.empty() ? "" : R"("nodeName":")" + node + R"(",)") +
         R"("priority":0,"containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
         R"(","memory":")" + memory + R"("}}}]},"status":{"phase":")" + status + R"("}})";
}

// A follower run in process against `api`, stopped (and joined) on destruction.
struct Following {
  TempDir dir{"sim-follow"};
  SimCommand command;
  std::ostringstream err;
  std::unique_ptr<Follower> follower;
  std::thread loop;

  Following(FakeApiServer& api, std::vector<std::string> configs, uint64_t seed = 1) {
    command.follow = true;
    command.kubeconfig = (dir.path() / "kubeconfig").string();
    kext::testing::spit(command.kubeconfig, api.kubeconfig());
    command.config_files = std::move(configs);
    command.listen = "127.0.0.1:0";
    command.seed = seed;
    FollowTuning tuning;
    tuning.backoff_initial = 50ms;
    tuning.idle_wake = 100ms;
    follower = std::make_unique<Follower>(command, err, tuning);
    loop = std::thread([this] { follower->run(); });
  }
  ~Following() { end(); }
  void end() {
    follower->stop();
    if (loop.joinable()) loop.join();
  }
  Snapshot snapshot() { return follower->divergence().snapshot(); }
  // The node the (first) policy's simulation has the pod on: "" pending, "-" not there.
  std::string simulated_node(const std::string& uid, size_t policy = 0) {
    std::string node = "-";
    follower->inspect([&](const std::vector<std::unique_ptr<PolicyMirror>>& mirrors) {
      if (auto pod = mirrors.at(policy)->simulator().cluster().pod(uid)) node = pod->node_name;
    });
    return node;
  }
};

void expect_only_gets(const FakeApiServer& api) {
  const auto requests = api.requests();
  EXPECT_FALSE(requests.empty());
  for (const auto& [method, path] : requests) EXPECT_EQ(method, "GET") << method << " " << path;
}

// The production scheduler of the agreement tests: kube-scheduler's cycle over its own copy of the
// cluster (the sim library), one pod at a time, binding by writing spec.nodeName in the API server.
class Production {
 public:
  Production(const std::vector<std::string>& node_objects, const std::string& config_file, uint64_t seed)
      : config_(load_sim_config(config_file)) {
    std::string items;
    for (const auto& n : node_objects)
      items += std::string(items.empty() ? "" : ",") + R"({"kind":"Node",)" + n.substr(1);
    ClusterInput input = decode_cluster(R"({"kind":"List","items":[)" + items + "]}");
    SimCommand c;
    c.seed = seed;
    sim_ = std::make_unique<sim::Simulator>(std::move(input.cluster), *config_.engine,
                                            follow_options(c, config_, 1'700'000'000));
  }
  // Schedules the pending pod `object` and returns the node it chose ("" if none).
  std::string decide(const std::string& object) {
    rapidjson::Document d;
    d.Parse(object.data(), object.size());
    InputPod p = decode_cluster_pod(d, "pod");
    now_ += 1s;
    sim_->add_pending(std::move(p.pod), now_);
    std::string node;
    sim_->run_until(now_, summary_, [&](const sim::CycleRecord& r) {
      if (r.outcome == sim::Outcome::kScheduled) node = r.node;
    });
    return node;
  }

 private:
  SimConfig config_;
  std::unique_ptr<sim::Simulator> sim_;
  sim::RunSummary summary_;
  sim::SimTime now_{0};
};

// Ten equal nodes (ties everywhere) and sixty pods of mixed sizes created one at a time; production
// binds each before the next is created. Production breaks ties with `production_seed`, the
// follower with `seed`.
Snapshot follow_production(const std::string& production_config,
                           const std::vector<std::string>& follower_configs, uint64_t seed,
                           uint64_t production_seed) {
  FakeApiServer api;
  std::vector<std::string> nodes;
  for (int i = 0; i < 10; ++i) {
    nodes.push_back(node_json("n0" + std::to_string(i)));
    api.put("nodes", nodes.back());
  }
  Production production(nodes, production_config, production_seed);
  Following f(api, follower_configs, seed);
  EXPECT_TRUE(wait_until([&] { return f.snapshot().production_nodes.size() == 10; })) << f.err.str();
  const char* cpus[] = {"100m", "250m", "500m", "1", "250m", "100m"};
  const char* memories[] = {"128Mi", "512Mi", "1Gi", "256Mi"};
  for (int i = 0; i < 60; ++i) {
    const std::string name = "p" + std::to_string(i);
    const std::string cpu = cpus[i % 6], memory = memories[i % 4];
    const std::string pending = pod_json(name, "", cpu, memory);
    api.put("pods", pending);
    // The follower compares only pods it saw pending; on a loaded machine (sanitizers) its pod
    // watch can start after this put, so production binds once the follower has seen the pod.
    EXPECT_TRUE(wait_until([&] { return f.snapshot().production_pending == 1; })) << name;
    const std::string node = production.decide(pending);
    EXPECT_FALSE(node.empty()) << name;
    EXPECT_TRUE(api.update("pods", "live/" + name, [&](const std::string&) -> std::optional<std::string> {
      return pod_json(name, node, cpu, memory);
    }));
    EXPECT_TRUE(wait_until([&] {
      const Snapshot s = f.snapshot();
      for (const PolicyView& p : s.policies)
        if (p.compared != static_cast<uint64_t>(i) + 1 || p.decisions != static_cast<uint64_t>(i) + 1)
          return false;
      return true;
    })) << name
        << ": " << f.err.str();
  }
  f.end();
  Snapshot s = f.snapshot();
  expect_only_gets(api);
  return s;
}

// The share of the pods both sides bound that the policy's own trajectory put on production's node:
// what --follow once reported as agreement.
double trajectory_same_node_percent(const Snapshot& s, size_t policy) {
  size_t both = 0, same = 0;
  for (const PodRow& r : s.recent) {
    const std::string& node = r.policies.at(policy);
    if (r.production.empty() || node.empty() || node == kPreempted) continue;
    ++both;
    same += node == r.production;
  }
  return both == 0 ? 100.0 : 100.0 * static_cast<double>(same) / static_cast<double>(both);
}

TEST(Follow, SameConfigurationAndSeedAgreeOnEveryPod) {
  const Snapshot s = follow_production("", {}, 7, 7);
  ASSERT_EQ(s.policies.size(), 1u);
  EXPECT_EQ(s.policies[0].name, "default");
  EXPECT_EQ(s.policies[0].decisions, 60u);
  EXPECT_EQ(s.policies[0].decisions_agreed, 60u);
  EXPECT_DOUBLE_EQ(s.policies[0].decision_agreement_percent, 100.0);
  EXPECT_DOUBLE_EQ(trajectory_same_node_percent(s, 0), 100.0);
  EXPECT_EQ(s.production_pending, 0u);
}

// Production runs the same configuration but breaks ties its own way, as a real kube-scheduler
// does. Its own trajectory soon compares another cluster (far below 98 % on the same node), while
// every decision, judged on production's cluster, is one the policy could have made.
TEST(Follow, TiesBrokenOtherwiseStillAgreeOnEveryDecision) {
  const Snapshot s = follow_production("", {}, 1, 7);
  ASSERT_EQ(s.policies.size(), 1u);
  EXPECT_EQ(s.policies[0].decisions, 60u);
  EXPECT_GE(s.policies[0].decision_agreement_percent, 98.0);
  EXPECT_EQ(s.policies[0].decisions_agreed, 60u);
  EXPECT_TRUE(s.policies[0].disagreements.empty());
  const double trajectory = trajectory_same_node_percent(s, 0);
  EXPECT_LT(trajectory, 98.0) << "production broke no tie otherwise: the test shows nothing";
  ::testing::Test::RecordProperty("trajectory_same_node_percent", std::to_string(trajectory));
}

TEST(Follow, PackingAgainstSpreadingProductionDisagrees) {
  const std::string spread = std::string(KEXT_SOURCE_DIR) + "/examples/spread.yaml";
  const std::string pack = std::string(KEXT_SOURCE_DIR) + "/examples/pack.yaml";
  const Snapshot s = follow_production(spread, {spread, pack}, 1, 7);
  ASSERT_EQ(s.policies.size(), 2u);
  EXPECT_DOUBLE_EQ(s.policies[0].decision_agreement_percent, 100.0) << "production's own configuration";
  EXPECT_EQ(s.policies[1].decisions, 60u);
  EXPECT_LT(s.policies[1].decision_agreement_percent, 50.0) << "packing would choose other nodes";
  ASSERT_FALSE(s.policies[1].disagreements.empty());
  const DecisionVerdict& v = s.policies[1].disagreements.front().verdict;
  EXPECT_EQ(v.kind, DecisionVerdict::Kind::kOutscored);
  EXPECT_GT(v.rank, 1u);
  EXPECT_GT(v.gap, 0);
  ASSERT_FALSE(v.terms.empty());
  ::testing::Test::RecordProperty("pack_decision_agreement",
                                  std::to_string(s.policies[1].decision_agreement_percent));
}

TEST(Follow, MirrorsDeletionsNewNodesBoundPodsAndARelistAfterGone) {
  FakeApiServer api;
  api.put("nodes", node_json("n1", "1", "4Gi"));
  api.put("pods", pod_json("big", "n1", "800m"));  // running before the follow starts
  Following f(api, {});
  ASSERT_TRUE(wait_until([&] { return f.simulated_node("u-big") == "n1"; })) << f.err.str();

  // No room: p waits; the live deletion of big frees it.
  api.put("pods", pod_json("p", "", "500m"));
  ASSERT_TRUE(wait_until([&] {
    bool failed = false;
    f.follower->inspect([&](const auto& m) { failed = m[0]->summary().unschedulable > 0; });
    return failed;
  }));
  EXPECT_EQ(f.simulated_node("u-p"), "");
  api.remove("pods", "live/big");
  ASSERT_TRUE(wait_until([&] { return f.simulated_node("u-p") == "n1"; })) << "the deletion freed its room";
  EXPECT_EQ(f.simulated_node("u-big"), "-");

  // A node added live is used.
  api.put("pods", pod_json("q", "", "900m"));
  ASSERT_TRUE(wait_until([&] { return f.simulated_node("u-q") == ""; }));
  api.put("nodes", node_json("n2", "1", "4Gi"));
  ASSERT_TRUE(wait_until([&] { return f.simulated_node("u-q") == "n2"; }));

  // A pod created bound (a DaemonSet's) is mirrored where it is.
  api.put("pods", pod_json("ds", "n2", "50m"));
  ASSERT_TRUE(wait_until([&] { return f.simulated_node("u-ds") == "n2"; }));

  // A finished pod leaves the simulation.
  api.update("pods", "live/q", [](const std::string&) -> std::optional<std::string> {
    return pod_json("q", "n2", "900m", "256Mi", "Succeeded");
  });
  ASSERT_TRUE(wait_until([&] { return f.simulated_node("u-q") == "-"; }));

  // p deleted while no stream can deliver it, then every resourceVersion gone: the relist after the
  // 410 finds p missing and deletes it. Pods are forbidden before the streams hang, so no pods watch
  // opens in between; the restart then ends the hung stream, and once the follower has seen that
  // (a failure counted on its pods stream) nothing can still deliver the deletion.
  const auto pods_stream = [&] {
    for (const auto& s : f.follower->stream_status())
      if (s.resource == "pods") return s;
    ADD_FAILURE() << "no pods stream";
    return StreamStatus{};
  };
  const StreamStatus before = pods_stream();
  api.forbid("pods");
  api.hang_streams();
  api.remove("pods", "live/p");
  api.restart();
  ASSERT_TRUE(wait_until([&] { return pods_stream().failures > before.failures; })) << f.err.str();
  EXPECT_EQ(f.simulated_node("u-p"), "n1") << "the old stream ended without delivering the deletion";
  api.forbid("pods", false);
  ASSERT_TRUE(wait_until([&] { return f.simulated_node("u-p") == "-"; })) << f.err.str();
  EXPECT_GT(pods_stream().gone, before.gone) << "a 410 forced the relist";
  f.follower->inspect([&](const auto& m) {
    const auto& cluster = m[0]->simulator().cluster();
    EXPECT_EQ(cluster.node("n1")->requested.milli_cpu, 0);
    EXPECT_EQ(cluster.node("n2")->requested.milli_cpu, 50);
    EXPECT_EQ(cluster.pod_count(), 1u);
  });
  const Snapshot s = f.snapshot();
  EXPECT_EQ(s.production_nodes.size(), 2u);
  expect_only_gets(api);
}

// A pod of `ns` labelled app=`app`, bound to `node` or pending; `anti` adds a required anti-affinity
// to app=db pods in the namespaces labelled tier=data.
std::string labelled_pod(const std::string& name, const std::string& ns, const std::string& app,
                         const std::string& node, bool anti = false) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":")" + ns + R"(","uid":"u-)" + name +
         R"(","labels":{"app":")" + app + R"("}},"spec":{)" +
         (node.empty() ? "" : R"("nodeName":")" + node + R"(",)") +
         (anti
              ? R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{)"
                R"("labelSelector":{"matchLabels":{"app":"db"}},"namespaceSelector":{"matchLabels":{"tier":"data"}},)"
                R"("topologyKey":"kubernetes.io/hostname"}]}},)"
              : "") +
         R"("priority":0,"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]},"status":{"phase":")" +
         (node.empty() ? "Pending" : "Running") + R"("}})";
}

TEST(Follow, MirrorsNamespacesAndWorkloadsForTheTopologyPlugins) {
  FakeApiServer api;
  api.put("nodes", node_json("n1"));
  api.put("namespaces", R"({"metadata":{"name":"team","labels":{"tier":"data"}}})");
  api.put("pods", labelled_pod("db", "team", "db", "n1"));
  api.put("services", R"({"metadata":{"name":"web","namespace":"live"},"spec":{"selector":{"app":"web"}}})");
  api.put(
      "replicasets",
      R"({"metadata":{"name":"web-1","namespace":"live"},"spec":{"selector":{"matchLabels":{"app":"web"}}}})");
  TempDir conf("sim-follow-modern");
  const std::string modern = (conf.path() / "modern.json").string();
  kext::testing::spit(modern, R"({"apiVersion":"kube-extender.io/v1alpha1","kind":"ExtenderConfiguration"})");
  Following f(api, {modern});
  // What the first policy's simulation hands PodTopologySpread and InterPodAffinity.
  auto seen = [&](const std::function<bool(const ClusterView&)>& check) {
    bool ok = false;
    f.follower->inspect([&](const auto& m) { ok = check(m[0]->simulator().cluster().view()); });
    return ok;
  };
  auto tier_of_team = [&](const ClusterView& v) {
    auto it = v.namespace_labels->find("team");
    if (it == v.namespace_labels->end()) return std::string("-");
    auto tier = it->second.find("tier");
    return tier == it->second.end() ? std::string() : tier->second;
  };
  ASSERT_TRUE(wait_until([&] {
    return f.simulated_node("u-db") == "n1" && seen([&](const ClusterView& v) {
             return tier_of_team(v) == "data" && v.services.size() == 1 && v.replica_sets.size() == 1;
           });
  })) << f.err.str();

  // The namespaceSelector picks team by its label: db's node is out for p.
  api.put("pods", labelled_pod("p", "live", "web", "", true));
  ASSERT_TRUE(wait_until([&] {
    bool failed = false;
    f.follower->inspect([&](const auto& m) { failed = m[0]->summary().unschedulable > 0; });
    return failed;
  })) << f.err.str();
  EXPECT_EQ(f.simulated_node("u-p"), "");

  // Relabelled live, team is no longer selected: the next such pod fits beside db.
  ASSERT_TRUE(api.update("namespaces", "team", [](const std::string&) -> std::optional<std::string> {
    return R"({"metadata":{"name":"team","labels":{"tier":"web"}}})";
  }));
  ASSERT_TRUE(
      wait_until([&] { return seen([&](const ClusterView& v) { return tier_of_team(v) == "web"; }); }));
  api.put("pods", labelled_pod("p2", "live", "web", "", true));
  ASSERT_TRUE(wait_until([&] { return f.simulated_node("u-p2") == "n1"; })) << f.err.str();

  // Deletions, and a selector dropped by an update, leave the simulation.
  api.remove("services", "live/web");
  ASSERT_TRUE(api.update("replicasets", "live/web-1", [](const std::string&) -> std::optional<std::string> {
    return R"({"metadata":{"name":"web-1","namespace":"live"},"spec":{}})";
  }));
  api.remove("namespaces", "team");
  ASSERT_TRUE(wait_until([&] {
    return seen([&](const ClusterView& v) {
      return v.services.empty() && v.replica_sets.empty() && tier_of_team(v) == "-";
    });
  }));
  expect_only_gets(api);
}

TEST(Follow, AServerWithoutPriorityClassesIsProbedOnce) {
  FakeApiServer api;
  api.put("nodes", node_json("n1"));
  Following f(api, {});
  ASSERT_TRUE(wait_until([&] { return f.snapshot().production_nodes.size() == 1; }));
  auto probes_sent = [&] {
    int n = 0;
    for (const auto& [method, path] : api.requests())
      n += path == "/apis/scheduling.k8s.io/v1/priorityclasses";
    return n;
  };
  ASSERT_TRUE(wait_until([&] { return probes_sent() >= 1; }));
  const int probes = probes_sent();
  EXPECT_EQ(probes, 1) << "a 404 is not retried";
  for (const auto& s : f.follower->stream_status()) EXPECT_NE(s.resource, "priorityclasses");
}

TEST(Follow, FlagsNameTheirErrors) {
  auto error_of = [](std::vector<std::string> args) {
    return kext::testing::command_line_error(
        [&] { kext::testing::parse_command_line("extender-sim", std::move(args), parse_sim_options); });
  };
  EXPECT_NE(error_of({"--follow", "--cluster", "c.json"}).find("--follow"), std::string::npos);
  EXPECT_NE(error_of({"--kubeconfig", "k", "--follow", "--workload", "w"}).find("--workload"),
            std::string::npos);
  EXPECT_NE(error_of({"--kubeconfig", "k", "--follow", "--compare", "x"}).find("--compare"),
            std::string::npos);
  EXPECT_NE(error_of({"--kubeconfig", "k", "--config", "a", "--config", "b"}).find("--config"),
            std::string::npos);
  EXPECT_NE(error_of({"--kubeconfig", "k", "--duration", "5"}).find("--duration"), std::string::npos);
  EXPECT_NE(error_of({"--kubeconfig", "k", "--follow", "--duration", "-1"}).find("--duration"),
            std::string::npos);
  const SimCommand c =
      kext::testing::parse_command_line("extender-sim",
                                        {"--kubeconfig", "k", "--follow", "--config", "a.yaml", "--config",
                                         "b.yaml", "--listen", "0.0.0.0:9", "--duration", "2.5"},
                                        parse_sim_options);
  EXPECT_TRUE(c.follow);
  EXPECT_EQ(c.config_files, (std::vector<std::string>{"a.yaml", "b.yaml"}));
  EXPECT_EQ(c.config_file, "a.yaml");
  EXPECT_EQ(c.listen, "0.0.0.0:9");
  EXPECT_EQ(c.duration_seconds, 2.5);

  TempDir dir("sim-follow-flags");
  SimCommand bad;
  bad.follow = true;
  bad.kubeconfig = (dir.path() / "kubeconfig").string();
  FakeApiServer api;
  kext::testing::spit(bad.kubeconfig, api.kubeconfig());
  bad.listen = "nowhere";
  std::ostringstream err;
  try {
    Follower f(bad, err);
    ADD_FAILURE() << "a bad --listen";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--listen nowhere"), std::string::npos) << e.what();
  }
}

TEST(Follow, AServerThatCannotBeReachedFailsNamingTheKubeconfig) {
  TempDir dir("sim-follow-unreachable");
  SimCommand c;
  c.follow = true;
  c.kubeconfig = (dir.path() / "kubeconfig").string();
  c.listen = "127.0.0.1:0";
  {
    FakeApiServer gone;  // its port is closed once it is destroyed
    kext::testing::spit(c.kubeconfig, gone.kubeconfig());
  }
  std::ostringstream err;
  FollowTuning tuning;
  tuning.backoff_initial = 20ms;
  Follower f(c, err, tuning);
  try {
    f.run();
    ADD_FAILURE() << "an unreachable server";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--kubeconfig " + c.kubeconfig + " (server https://"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot list the nodes"), std::string::npos) << e.what();
  }
}

TEST(Follow, TheBinaryFollowsForItsDurationServesMetricsAndWritesItsFiles) {
  FakeApiServer api;
  api.put("nodes", node_json("n1"));
  api.put("nodes", node_json("n2"));
  api.put("pods", pod_json("w", "", "500m"));
  TempDir dir("sim-follow-binary");
  const std::string kubeconfig = (dir.path() / "kubeconfig").string();
  kext::testing::spit(kubeconfig, api.kubeconfig());
  const std::string html = (dir.path() / "out.html").string(), log = (dir.path() / "out.jsonl").string();
  const std::string out = (dir.path() / "stdout").string(), err = (dir.path() / "stderr").string();
  int status = -1;
  std::thread run([&] {
    status = std::system((std::string(KEXT_SIM_BINARY) + " --follow --duration 2 --kubeconfig " + kubeconfig +
                          " --listen 127.0.0.1:0 --html " + html + " --log " + log + " >" + out + " 2>" + err)
                             .c_str());
  });
  int port = 0;
  wait_until([&] {
    std::smatch m;
    const std::string text = kext::testing::slurp(err);
    if (!std::regex_search(text, m, std::regex("http://127\\.0\\.0\\.1:([0-9]+)/"))) return false;
    port = std::stoi(m[1]);
    return true;
  });
  ASSERT_GT(port, 0) << kext::testing::slurp(err);
  httplib::Client client("127.0.0.1", port);
  std::string metrics;
  wait_until([&] {
    auto res = client.Get("/metrics");
    if (!res || res->status != 200) return false;
    metrics = res->body;
    return metrics.find("kube_extender_sim_follow_reflector_lists_total{resource=\"pods\"} 1") !=
           std::string::npos;
  });
  EXPECT_NE(metrics.find("kube_extender_sim_follow_reflector_lists_total{resource=\"pods\"} 1"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("kube_extender_sim_follow_decision_agreement_ratio{policy=\"default\"} "),
            std::string::npos)
      << metrics;
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  run.join();
  EXPECT_EQ(status, 0) << kext::testing::slurp(err);
  EXPECT_NE(kext::testing::slurp(html).find("<html"), std::string::npos);
  const std::string lines = kext::testing::slurp(log);
  EXPECT_NE(lines.find(R"({"policy":"default","time":)"), std::string::npos) << lines;
  EXPECT_NE(kext::testing::slurp(out).find("default: decision agreement"), std::string::npos)
      << kext::testing::slurp(out);
  expect_only_gets(api);
}

TEST(Follow, TheBinaryStopsCleanlyOnSigterm) {
  FakeApiServer api;
  api.put("nodes", node_json("n1"));
  TempDir dir("sim-follow-sigterm");
  const std::string kubeconfig = (dir.path() / "kubeconfig").string();
  kext::testing::spit(kubeconfig, api.kubeconfig());
  const std::string html = (dir.path() / "out.html").string(), err = (dir.path() / "stderr").string();
  const std::string out = (dir.path() / "stdout").string();
  const pid_t pid = kext::testing::spawn_child(
      {KEXT_SIM_BINARY, "--follow", "--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0", "--html", html},
      out, err);
  ASSERT_GT(pid, 0);
  // Listening (and so past the point where it blocks the signals) once it names its page; synced once
  // the node is on it.
  ASSERT_TRUE(wait_until([&] { return kext::testing::slurp(err).find("live page") != std::string::npos; }))
      << kext::testing::slurp(err);
  std::smatch m;
  const std::string named = kext::testing::slurp(err);
  ASSERT_TRUE(std::regex_search(named, m, std::regex("http://127\\.0\\.0\\.1:([0-9]+)/"))) << named;
  httplib::Client page("127.0.0.1", std::stoi(m[1]));
  ASSERT_TRUE(wait_until([&] {
    auto res = page.Get("/metrics");
    return res && res->body.find("kube_extender_sim_follow_reflector_lists_total{resource=\"nodes\"} 1") !=
                      std::string::npos;
  })) << kext::testing::slurp(err);
  kill(pid, SIGTERM);
  int status = 0;
  ASSERT_TRUE(wait_until([&] { return waitpid(pid, &status, WNOHANG) == pid; }, 20s));
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << kext::testing::slurp(err);
  EXPECT_NE(kext::testing::slurp(html).find("<html"), std::string::npos);
  EXPECT_NE(kext::testing::slurp(out).find("default: decision agreement"), std::string::npos);
}

}  // namespace
}  // namespace follower_test
}  // namespace kext::simtool::follow
