// extender-sim --extender's pieces that need no running extender: the objects and envelopes it sends
// (kubeobjects/model_json.h, sim/remote_extender.h) and the replies it reads. The API it serves is
// tested in tests/kube/apiserver/, the runs against a real kube-extender in tests/sim/.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "json/json.h"
#include "kube/apiserver/api_server.h"
#include "kube/codec/extender_args.h"
#include "kube/codec/k8s_decode.h"
#include "kube/codec/preemption_args.h"
#include "kubeobjects/model_json.h"
#include "sim/remote_extender.h"
#include "tests/support/wait.h"

namespace kext::simtool {
namespace extender_test {
namespace {

using namespace model_json;
using kext::testing::wait_until;
using kube::ApiServer;
using kube::with_resource_version;

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

Pod rich_pod() {
  Pod p;
  p.name = "web-0";
  p.namespace_ = "prod";
  p.uid = "u-web-0";
  p.labels = Labels{{"app", "web"}, {"tier", "front"}};
  p.node_name = "n1";
  p.phase = "Running";
  p.priority = 1000;
  p.start_time = 1'700'000'123;
  p.terminating = true;
  p.nominated_node_name = "n2";
  p.preemption_policy = "Never";
  Container c;
  c.name = "c";
  c.image = "nginx:1.25";
  c.requests.milli_cpu = 250;
  c.requests.memory = 64 * 1024 * 1024;
  c.requests.set_scalar("example.com/gpu", 1);
  c.has_cpu_request = c.has_memory_request = true;
  p.containers.push_back(c);
  Container init;
  init.name = "side";
  init.requests.memory = 1000;
  init.has_memory_request = true;
  init.restartable = true;
  p.init_containers.push_back(init);
  p.overhead.milli_cpu = 10;
  p.node_selector = {{"disk", "ssd"}};
  NodeAffinity na;
  na.required =
      std::vector<NodeSelectorTerm>{{{{"zone", "In", {"a", "b"}}}, {{"metadata.name", "NotIn", {"n9"}}}}};
  na.preferred = {{7, {{{"gpu", "Exists", {}}}, {}}}};
  p.node_affinity = na;
  p.tolerations = {{"k", "Equal", "v", "NoSchedule"}, {"", "Exists", "", ""}};
  return p;
}

// What the extender decodes from what the sim sends is what the sim has: every field its decoders
// read survives (images excepted, see kubeobjects/model_json.h).
TEST(SimKubeJson, PodRoundTripsThroughTheExtendersDecoder) {
  const Pod p = rich_pod();
  const auto doc = parse(pod_json(p, 1'700'000'200));
  const Pod back = decode_pod(doc, "pod");
  EXPECT_EQ(back.name, p.name);
  EXPECT_EQ(back.namespace_, p.namespace_);
  EXPECT_EQ(back.uid, p.uid);
  EXPECT_EQ(back.labels, p.labels);
  EXPECT_EQ(back.node_name, p.node_name);
  EXPECT_EQ(back.phase, p.phase);
  EXPECT_EQ(back.priority, p.priority);
  EXPECT_EQ(back.start_time, p.start_time);
  EXPECT_TRUE(back.terminating);
  EXPECT_EQ(back.nominated_node_name, "n2");
  EXPECT_EQ(back.preemption_policy, "Never");
  ASSERT_EQ(back.containers.size(), 1u);
  EXPECT_EQ(back.containers[0].requests, p.containers[0].requests);
  EXPECT_EQ(back.containers[0].image, "nginx:1.25");
  EXPECT_TRUE(back.containers[0].has_cpu_request);
  ASSERT_EQ(back.init_containers.size(), 1u);
  EXPECT_TRUE(back.init_containers[0].restartable);
  EXPECT_FALSE(back.init_containers[0].has_cpu_request) << "no cpu key: the scoring default applies";
  EXPECT_EQ(back.init_containers[0].requests.memory, 1000);
  EXPECT_EQ(back.overhead.milli_cpu, 10);
  EXPECT_EQ(back.node_selector, p.node_selector);
  ASSERT_TRUE(back.node_affinity && back.node_affinity->required);
  ASSERT_EQ(back.node_affinity->required->size(), 1u);
  EXPECT_EQ((*back.node_affinity->required)[0].match_expressions[0].values,
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ((*back.node_affinity->required)[0].match_fields[0].op, "NotIn");
  ASSERT_EQ(back.node_affinity->preferred.size(), 1u);
  EXPECT_EQ(back.node_affinity->preferred[0].weight, 7);
  EXPECT_EQ(back.node_affinity->preferred[0].preference.match_expressions[0].op, "Exists");
  ASSERT_EQ(back.tolerations.size(), 2u);
  EXPECT_EQ(back.tolerations[0].effect, "NoSchedule");
  EXPECT_EQ(back.tolerations[1].op, "Exists");
  EXPECT_STREQ(doc["metadata"]["deletionTimestamp"].GetString(), "2023-11-14T22:16:40Z");
}

TEST(SimKubeJson, NodeAndPdbRoundTrip) {
  Node n;
  n.name = "n1";
  n.labels = {{"zone", "a"}};
  n.allocatable.milli_cpu = 3500;
  n.allocatable.memory = 8LL << 30;
  n.allocatable.pods = 110;
  n.allocatable.ephemeral_storage = 1'000'000;
  n.allocatable.set_scalar("example.com/gpu", 2);
  n.taints = {{"dedicated", "ml", "NoSchedule"}, {"flaky", "", "PreferNoSchedule"}};
  n.unschedulable = true;
  const Node nb = decode_node(parse(node_json(n)), "node");
  EXPECT_EQ(nb.name, "n1");
  EXPECT_EQ(nb.labels, n.labels);
  EXPECT_EQ(nb.allocatable, n.allocatable);
  ASSERT_EQ(nb.taints.size(), 2u);
  EXPECT_EQ(nb.taints[0].value, "ml");
  EXPECT_EQ(nb.taints[1].effect, "PreferNoSchedule");
  EXPECT_TRUE(nb.unschedulable);

  PodDisruptionBudget b;
  b.name = "web";
  b.namespace_ = "prod";
  b.selector = LabelSelector{{{"app", "web"}}, {{"tier", "In", {"front"}}}};
  b.disruptions_allowed = 1;
  b.disrupted_pods = {"web-3"};
  const PodDisruptionBudget bb = decode_pdb(parse(pdb_json(b)), "pdb");
  EXPECT_EQ(bb.name, "web");
  EXPECT_EQ(bb.namespace_, "prod");
  ASSERT_TRUE(bb.selector);
  EXPECT_EQ(bb.selector->match_labels, b.selector->match_labels);
  EXPECT_EQ(bb.selector->match_expressions[0].values, (std::vector<std::string>{"front"}));
  EXPECT_EQ(bb.disruptions_allowed, 1);
  EXPECT_EQ(bb.disrupted_pods, b.disrupted_pods);
}

std::vector<NodeInfo> infos(const std::vector<std::string>& names) {
  std::vector<NodeInfo> out;
  for (const auto& name : names) {
    auto n = std::make_shared<Node>();
    n->name = name;
    n->allocatable.milli_cpu = 1000;
    NodeInfo info;
    info.node = n;
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<const NodeInfo*> ptrs(const std::vector<NodeInfo>& v) {
  std::vector<const NodeInfo*> out;
  for (const auto& n : v) out.push_back(&n);
  return out;
}

// kube-scheduler's ExtenderArgs (extender.go Filter/Prioritize): NodeNames with nodeCacheCapable,
// else the full NodeList, the other field null.
TEST(SimExtenderArgs, BothNodeModes) {
  Pod p;
  p.name = "p";
  p.namespace_ = "default";
  p.uid = "u";
  const auto nodes = infos({"n1", "n2"});
  const auto np = ptrs(nodes);

  const auto names = parse(extender_args_json(p, np, true));
  EXPECT_TRUE(names["Nodes"].IsNull());
  ASSERT_TRUE(names["NodeNames"].IsArray());
  EXPECT_EQ(names["NodeNames"].Size(), 2u);
  EXPECT_STREQ(names["NodeNames"][1].GetString(), "n2");
  EXPECT_STREQ(names["Pod"]["metadata"]["uid"].GetString(), "u");

  const std::string full_text = extender_args_json(p, np, false);
  const auto full = parse(full_text);
  EXPECT_TRUE(full["NodeNames"].IsNull());
  ASSERT_EQ(full["Nodes"]["items"].Size(), 2u);
  EXPECT_STREQ(full["Nodes"]["items"][0]["metadata"]["name"].GetString(), "n1");
  EXPECT_STREQ(full["Nodes"]["items"][0]["status"]["allocatable"]["cpu"].GetString(), "1000m");

  // The extender's own decoder takes both (kube/codec/extender_args.h).
  ExtenderArgs args;
  decode_extender_args(full_text, args);
  EXPECT_TRUE(args.full_nodes);
  EXPECT_EQ(args.node_names, (NameList{"n1", "n2"}));
  const std::string names_text = extender_args_json(p, np, true);
  ExtenderArgs args2;
  decode_extender_args(names_text, args2);
  EXPECT_FALSE(args2.full_nodes);
  EXPECT_EQ(args2.node_names, (NameList{"n1", "n2"}));
}

TEST(SimExtenderReply, FilterResult) {
  const auto nodes = infos({"n1", "n2", "n3", "n4"});
  const auto np = ptrs(nodes);
  const auto st = decode_filter_result(
      R"({"NodeNames":["n1"],"FailedNodes":{"n2":"Insufficient cpu, Insufficient memory","n4":"x"},)"
      R"("FailedAndUnresolvableNodes":{"n4":"node(s) had untolerated taint {a: b}"},"Error":""})",
      np, true);
  ASSERT_EQ(st.size(), 4u);
  EXPECT_TRUE(st[0].ok());
  EXPECT_EQ(st[1].code, FilterCode::kUnschedulable);
  EXPECT_EQ(st[1].reasons, (std::vector<std::string>{"Insufficient cpu", "Insufficient memory"}));
  EXPECT_EQ(st[2].code, FilterCode::kUnschedulable) << "not listed: filtered out";
  EXPECT_TRUE(st[2].reasons.empty());
  EXPECT_EQ(st[3].code, FilterCode::kUnresolvable) << "unresolvable wins";
  EXPECT_EQ(st[3].reasons, (std::vector<std::string>{"node(s) had untolerated taint {a: b}"}));

  // Full mode reads Nodes.items; case-insensitive keys as Go's decoder.
  const auto full = decode_filter_result(
      R"({"nodes":{"items":[{"metadata":{"name":"n3"}}]},"NodeNames":null,"failedNodes":{"n1":"a"}})", np,
      false);
  EXPECT_TRUE(full[2].ok());
  EXPECT_FALSE(full[0].ok());

  EXPECT_THROW(decode_filter_result(R"({"Error":"boom"})", np, true), ExtenderError);
  EXPECT_THROW(decode_filter_result(R"({"NodeNames":["n9"]})", np, true), ExtenderError);
  EXPECT_THROW(decode_filter_result("not json", np, true), ExtenderError);
  EXPECT_THROW(decode_filter_result("[]", np, true), ExtenderError);
}

TEST(SimExtenderReply, HostPriorities) {
  const auto nodes = infos({"n1", "n2", "n3"});
  const auto np = ptrs(nodes);
  EXPECT_EQ(decode_host_priorities(R"([{"Host":"n2","Score":7},{"host":"n1","score":3}])", np),
            (std::vector<int64_t>{3, 7, 0}));
  EXPECT_EQ(decode_host_priorities("null", np), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_THROW(decode_host_priorities(R"({"Host":"n1"})", np), ExtenderError);
  EXPECT_THROW(decode_host_priorities(R"([{"Host":"n1","Score":"5"}])", np), ExtenderError);
}

// A cluster with n1 running v1 (priority 5) and v2 (priority 1), n2 running w1.
sim::SimCluster preemption_cluster() {
  sim::SimCluster c;
  for (const char* name : {"n1", "n2"}) {
    Node n;
    n.name = name;
    n.allocatable.milli_cpu = 1000;
    c.add_node(n);
  }
  auto pod = [](std::string name, std::string node, int32_t priority) {
    Pod p;
    p.name = name;
    p.namespace_ = "batch";
    p.uid = "u-" + name;
    p.node_name = std::move(node);
    p.priority = priority;
    p.phase = "Running";
    p.start_time = 1'700'000'000;
    return p;
  };
  c.add_pod(pod("v1", "n1", 5));
  c.add_pod(pod("v2", "n1", 1));
  c.add_pod(pod("w1", "n2", 0));
  return c;
}

// ExtenderPreemptionArgs (preemption.go callExtenders): full victims or their UIDs by node mode.
TEST(SimExtenderPreempt, ArgsInBothModes) {
  const sim::SimCluster cluster = preemption_cluster();
  std::vector<preemption::Candidate> cands(2);
  cands[0].node_name = "n1";
  cands[0].victims = {cluster.pod_info("u-v1"), cluster.pod_info("u-v2")};
  cands[0].num_pdb_violations = 1;
  cands[1].node_name = "n2";
  cands[1].victims = {cluster.pod_info("u-w1")};
  Pod pre;
  pre.name = "vip";
  pre.namespace_ = "prod";
  pre.uid = "u-vip";
  pre.priority = 1000;

  const std::string meta_text = preemption_args_json(pre, cands, cluster, true);
  const auto meta = parse(meta_text);
  EXPECT_TRUE(meta["NodeNameToVictims"].IsNull());
  EXPECT_STREQ(meta["NodeNameToMetaVictims"]["n1"]["Pods"][1]["UID"].GetString(), "u-v2");
  EXPECT_EQ(meta["NodeNameToMetaVictims"]["n1"]["NumPDBViolations"].GetInt(), 1);
  EXPECT_STREQ(meta["Pod"]["metadata"]["uid"].GetString(), "u-vip");
  const std::string full_text = preemption_args_json(pre, cands, cluster, false);
  const auto full = parse(full_text);
  EXPECT_TRUE(full["NodeNameToMetaVictims"].IsNull());
  EXPECT_STREQ(full["NodeNameToVictims"]["n2"]["Pods"][0]["metadata"]["name"].GetString(), "w1");
  EXPECT_STREQ(full["NodeNameToVictims"]["n2"]["Pods"][0]["spec"]["nodeName"].GetString(), "n2");

  // The extender's own decoder reads both.
  const PreemptionArgs m = decode_preemption_args(meta_text);
  EXPECT_TRUE(m.meta);
  ASSERT_EQ(m.nodes.size(), 2u);
  const PreemptionArgs f = decode_preemption_args(full_text);
  EXPECT_FALSE(f.meta);
  ASSERT_EQ(f.nodes.size(), 2u);
}

TEST(SimExtenderPreempt, ResultMapsBackToTheClustersPods) {
  const sim::SimCluster cluster = preemption_cluster();
  const auto kept = decode_preemption_result(
      R"({"NodeNameToMetaVictims":{"n2":{"Pods":[{"UID":"u-w1"}],"NumPDBViolations":2},"n1":{"pods":[{"uid":"u-v2"}]}}})",
      cluster);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].node_name, "n1");
  ASSERT_EQ(kept[0].victims.size(), 1u);
  EXPECT_EQ(kept[0].victims[0]->pod->uid, "u-v2");
  EXPECT_EQ(kept[1].num_pdb_violations, 2);
  EXPECT_TRUE(decode_preemption_result("{}", cluster).empty());
  EXPECT_TRUE(decode_preemption_result(R"({"NodeNameToMetaVictims":null})", cluster).empty());
  for (const char* bad :
       {R"({"NodeNameToMetaVictims":{"n9":{"Pods":[{"UID":"u-w1"}]}}})",
        R"({"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":"u-w1"}]}}})",
        R"({"NodeNameToMetaVictims":{"n1":{"Pods":[]}}})", R"({"NodeNameToMetaVictims":[]})", "nope"}) {
    EXPECT_THROW(decode_preemption_result(bad, cluster), ExtenderError) << bad;
  }
}

TEST(SimExtenderUrl, SplitsAndRejects) {
  const auto u = parse_extender_url("http://127.0.0.1:8888/scheduler/");
  EXPECT_EQ(u.origin, "http://127.0.0.1:8888");
  EXPECT_EQ(u.prefix, "/scheduler");
  EXPECT_EQ(parse_extender_url("https://ext").prefix, "");
  for (const char* bad : {"127.0.0.1:8888", "ftp://x", "http://", "http://:80", "http://h:99999",
                          "http://h:-1", "http://h:+1", "http://h:x", "http://h/p?q=1"}) {
    try {
      parse_extender_url(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("--extender ") + bad), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace extender_test
}  // namespace kext::simtool
