// POST /capacity on the running kube-extender: the same answers as extender-sim capacity on the same
// cluster and configuration, nothing changed by a question, its budgets, one question at a time, its
// errors and its metrics.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "json/json.h"
#include "tests/sim/core/sim_fixtures.h"
#include "tests/support/command_line.h"
#include "tests/support/extender_process.h"
#include "tests/support/wait.h"

namespace kext::simtool {
namespace capacity_endpoint_test {
namespace {

using sim::testing::SimFiles;

rapidjson::Document parse(const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.c_str());
  return d;
}

const std::string kExamples = std::string(KEXT_SOURCE_DIR) + "/examples/";

// Pods that take each of how_many_fit's paths: nodes filled alone (plain requests, a nodeSelector),
// and whole cycles (per-host anti-affinity, a hard zone spread); and a Deployment, answered in whole
// groups.
const std::vector<std::pair<std::string, std::string>> kPods = {
    {"plain", R"({"kind":"Pod","metadata":{"name":"web","namespace":"default"},"spec":{"containers":[
       {"name":"c","resources":{"requests":{"cpu":"700m","memory":"1Gi"}}}]}})"},
    {"selector", R"({"kind":"Pod","metadata":{"name":"z2","namespace":"ml"},"spec":{
       "nodeSelector":{"topology.kubernetes.io/zone":"zone-2"},
       "containers":[{"name":"c","resources":{"requests":{"cpu":"300m"}}}]}})"},
    {"anti-affinity", R"({"kind":"Pod","metadata":{"name":"one-per-node","namespace":"default",
       "labels":{"app":"solo"}},"spec":{"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
       {"labelSelector":{"matchLabels":{"app":"solo"}},"topologyKey":"kubernetes.io/hostname"}]}},
       "containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}]}})"},
    {"group", R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"api","namespace":"shop"},
       "spec":{"replicas":3,"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}},
       "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"900m"}}}]}}}})"},
    {"spread", R"({"kind":"Pod","metadata":{"name":"spread","namespace":"default","labels":{"app":"s"}},
       "spec":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",
       "whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":{"app":"s"}}}],
       "containers":[{"name":"c","resources":{"requests":{"cpu":"1500m"}}}]}})"},
};

class CapacityEndpoint : public ::testing::Test {
 protected:
  void start(std::vector<std::string> flags = {}, const std::string& snapshot = kExamples + "cluster.json") {
    flags.insert(flags.begin(), {"--snapshot", snapshot});
    extender_ = std::make_unique<testing::ExtenderProcess>(flags);
    ASSERT_GT(extender_->port(), 0) << extender_->log();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", extender_->port());
    client_->set_read_timeout(60, 0);
  }
  httplib::Result ask(const std::string& body, const std::string& query = "") {
    return client_->Post("/capacity" + query, body, "application/json");
  }
  // extender-sim capacity's --json answer on the same cluster, under the extender's own configuration.
  std::string simulator_answer(const std::string& pod_json) {
    const std::string pod = files_.write("pod.json", pod_json), out = files_.path("out.json");
    const std::string config = files_.path("config.json");
    const std::string write = std::string(KEXT_BINARY) + " --write-config >" + config + " 2>/dev/null";
    if (std::system(write.c_str()) != 0) return "kube-extender --write-config failed";
    const std::string run = std::string(KEXT_SIM_BINARY) + " capacity --cluster " + kExamples +
                            "cluster.json --config " + config + " --pod " + pod + " --json >" + out +
                            " 2>/dev/null";
    if (std::system(run.c_str()) != 0) return "extender-sim capacity failed";
    std::string text = testing::slurp(out);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }
  uint64_t counted(const std::string& series) {
    auto r = client_->Get("/metrics");
    if (!r) return 0;
    // A sample line, not the HELP line that names the same series.
    const size_t at = r->body.find("\n" + series + " ");
    return at == std::string::npos ? 0 : std::stoull(r->body.substr(at + series.size() + 2));
  }

  SimFiles files_{"capacity-endpoint"};
  std::unique_ptr<testing::ExtenderProcess> extender_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(CapacityEndpoint, AnswersAsExtenderSimOnTheSameClusterAndChangesNothing) {
  start();
  auto before = client_->Get("/debug/state");
  ASSERT_TRUE(before);
  for (const auto& [what, pod] : kPods) {
    auto r = ask(pod);
    ASSERT_TRUE(r) << what;
    EXPECT_EQ(r->status, 200) << what << ": " << r->body;
    EXPECT_EQ(r->body, simulator_answer(pod)) << what;
    auto d = parse(r->body);
    EXPECT_GT(d["fit"].GetUint64(), 0u) << what << ": " << r->body;
    EXPECT_STREQ(d["stoppedByBudget"].GetString(), "") << what;
  }
  auto after = client_->Get("/debug/state");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->body, before->body) << "a question changed the extender's state";
  EXPECT_EQ(counted(R"(kube_extender_capacity_questions_total{outcome="answered"})"), kPods.size());
}

TEST_F(CapacityEndpoint, ABudgetThatRunsOutAnswersALowerBoundAndSaysSo) {
  start({"--capacity-max-node-checks", "7"});
  auto r = ask(kPods[0].second);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto d = parse(r->body);
  EXPECT_STREQ(d["stoppedByBudget"].GetString(), "nodes") << r->body;
  EXPECT_LE(d["nodeChecks"].GetUint64(), 7u);
  EXPECT_LT(d["fit"].GetUint64(), 7u);
  EXPECT_STREQ(d["message"].GetString(), "") << "nothing is known of the next copy";
  EXPECT_EQ(counted(R"(kube_extender_capacity_questions_total{outcome="partial"})"), 1u);

  // A question's own time bound may only be shorter than the extender's; with none left, nothing runs.
  // However long it asks for, the extender's own bound holds ("inf" parses as a number).
  for (const char* forever : {"?timeoutSeconds=inf", "?timeoutSeconds=1e300"}) {
    auto r = ask(kPods[0].second, forever);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << forever << ": " << r->body;
  }
  auto timed = ask(kPods[2].second, "?timeoutSeconds=0.0001");
  ASSERT_TRUE(timed);
  EXPECT_STREQ(parse(timed->body)["stoppedByBudget"].GetString(), "time") << timed->body;
}

TEST_F(CapacityEndpoint, BadQuestionsAre400AndTheServerKeepsServing) {
  start();
  struct Case {
    std::string body, query, error;
  };
  const std::vector<Case> cases = {
      {"{", "", "the body: "},
      {R"({"kind":"List","items":[]})", "", "no pod in it"},
      {kPods[0].second, "?max=-1", "max: expected a non-negative integer, got"},
      {kPods[0].second, "?timeoutSeconds=soon", "timeoutSeconds: expected a positive number of seconds"},
      {kPods[0].second, "?timeoutSeconds=0", "timeoutSeconds: expected a positive number of seconds"},
  };
  for (const Case& c : cases) {
    auto r = ask(c.body, c.query);
    ASSERT_TRUE(r) << c.query;
    EXPECT_EQ(r->status, 400) << c.body << c.query;
    EXPECT_NE(r->body.find(c.error), std::string::npos) << r->body;
  }
  EXPECT_EQ(counted(R"(kube_extender_capacity_questions_total{outcome="invalid"})"), cases.size());
  auto ok = ask(kPods[0].second, "?max=3");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(parse(ok->body)["fit"].GetUint64(), 3u);
}

// A question runs at a time: one asked while another runs is refused with 429 and Retry-After, at once.
TEST_F(CapacityEndpoint, OneQuestionAtATime) {
  // 500 empty nodes of 110 pods each, and a question that takes a cycle per copy (a limit) for 55,000
  // copies: it runs until its time budget.
  std::string cluster = R"({"kind":"List","items":[)";
  for (int i = 0; i < 500; ++i) {
    cluster += std::string(i ? "," : "") + R"({"kind":"Node","metadata":{"name":"n)" + std::to_string(i) +
               R"("},"status":{"allocatable":{"cpu":"64","memory":"256Gi","pods":"110"}}})";
  }
  cluster += "]}";
  start({"--capacity-max-time", "2s", "--capacity-max-node-checks", "1000000000"},
        files_.write("big.json", cluster));
  std::atomic<int> first_status{0};
  std::thread first([&] {
    httplib::Client c("127.0.0.1", extender_->port());
    c.set_read_timeout(60, 0);
    auto r = c.Post("/capacity?max=1000000", R"({"kind":"Pod","metadata":{"name":"tiny"},
        "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1m"}}}]}})",
                    "application/json");
    first_status = r ? r->status : -1;
  });
  ASSERT_TRUE(testing::wait_until(
      [&] { return counted("kube_extender_capacity_questions_running") == 1 || first_status != 0; },
      std::chrono::seconds(30)));
  auto second = ask(kPods[0].second);
  first.join();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 429) << second->body;
  EXPECT_NE(second->body.find("another capacity question is being answered"), std::string::npos);
  EXPECT_EQ(second->get_header_value("Retry-After"), "1");
  EXPECT_EQ(first_status, 200);
  EXPECT_EQ(counted(R"(kube_extender_capacity_questions_total{outcome="busy"})"), 1u);
  EXPECT_EQ(counted(R"(kube_extender_capacity_questions_total{outcome="partial"})"), 1u) << "the time budget";
}

TEST_F(CapacityEndpoint, NoCapacityTurnsItOff) {
  start({"--no-capacity"});
  auto r = ask(kPods[0].second);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
}

}  // namespace
}  // namespace capacity_endpoint_test
}  // namespace kext::simtool
