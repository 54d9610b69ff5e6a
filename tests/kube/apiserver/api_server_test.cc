// The in-repo Kubernetes API server (kube/apiserver/api_server.h) as extender-sim --extender runs it:
// lists and watches from a resourceVersion, Bindings, the write that would unbind a bound pod, and a
// busy address.
#include "kube/apiserver/api_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "json/json.h"
#include "kubeobjects/model_json.h"
#include "tests/support/wait.h"

namespace kext::kube {
namespace api_server_test {
namespace {

using namespace model_json;
using kext::testing::wait_until;

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

TEST(ApiServer, ResourceVersionGoesFirstInMetadata) {
  EXPECT_EQ(with_resource_version(R"({"kind":"Pod","metadata":{"name":"a"}})", 7),
            R"({"kind":"Pod","metadata":{"resourceVersion":"7","name":"a"}})");
  EXPECT_EQ(with_resource_version(R"({"metadata":{}})", 8), R"({"metadata":{"resourceVersion":"8"}})");
  EXPECT_THROW(with_resource_version("{}", 1), std::invalid_argument);
}

// GET /version as kube-apiserver's version.Info: major and minor from the gitVersion, which a test sets.
TEST(ApiServer, ServesItsVersion) {
  ApiServer server(ApiServer::Options{});
  httplib::Client c("127.0.0.1", server.port());
  auto version = [&] {
    auto r = c.Get("/version");
    EXPECT_TRUE(r);
    return r ? std::make_pair(r->status, r->body) : std::make_pair(0, std::string());
  };
  auto [status, body] = version();
  EXPECT_EQ(status, 200);
  rapidjson::Document d = parse(body);
  EXPECT_STREQ(d["gitVersion"].GetString(), "v1.36.3");
  EXPECT_STREQ(d["major"].GetString(), "1");
  EXPECT_STREQ(d["minor"].GetString(), "36");
  server.set_git_version("v1.31.0+k3s1");
  d = parse(version().second);
  EXPECT_STREQ(d["gitVersion"].GetString(), "v1.31.0+k3s1");
  EXPECT_STREQ(d["minor"].GetString(), "31");
  server.fail_version(500);
  EXPECT_EQ(version().first, 500);
  server.fail_version(0);
  EXPECT_EQ(version().first, 200);
  ApiServer other(ApiServer::Options{.git_version = "v1.29.4"});
  EXPECT_STREQ(
      parse(httplib::Client("127.0.0.1", other.port()).Get("/version")->body)["gitVersion"].GetString(),
      "v1.29.4");
}

// Reads a watch until `lines` events arrived (or 5 s passed).
std::vector<std::string> watch_lines(int port, const std::string& path, size_t lines) {
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(5, 0);
  std::string buf;
  std::vector<std::string> out;
  c.Get(path, [&](const char* data, size_t n) {
    buf.append(data, n);
    for (size_t at; (at = buf.find('\n')) != std::string::npos;) {
      out.push_back(buf.substr(0, at));
      buf.erase(0, at + 1);
    }
    return out.size() < lines;
  });
  return out;
}

// The pod ns/a, unbound.
Pod pod_a() {
  Pod p;
  p.name = "a";
  p.namespace_ = "ns";
  p.uid = "ua";
  return p;
}

TEST(ApiServer, ListsAndWatchesFromAResourceVersion) {
  ApiServer api({});
  EXPECT_EQ(api.url(), "http://127.0.0.1:" + std::to_string(api.port()));
  Node n;
  n.name = "n1";
  EXPECT_TRUE(api.put(ApiServer::kNodes, "n1", node_json(n)));
  EXPECT_FALSE(api.put(ApiServer::kNodes, "n1", node_json(n))) << "unchanged: no event";
  Pod p = pod_a();
  EXPECT_TRUE(api.put(ApiServer::kPods, "ns/a", pod_json(p)));
  const uint64_t after_add = api.resource_version();

  httplib::Client c("127.0.0.1", api.port());
  auto list = c.Get("/api/v1/pods?limit=500");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->status, 200);
  const auto doc = parse(list->body);
  EXPECT_STREQ(doc["kind"].GetString(), "PodList");
  EXPECT_EQ(doc["metadata"]["resourceVersion"].GetString(), std::to_string(after_add));
  EXPECT_FALSE(doc["metadata"].HasMember("continue"));
  ASSERT_EQ(doc["items"].Size(), 1u);
  EXPECT_EQ(doc["items"][0]["metadata"]["resourceVersion"].GetString(), std::to_string(after_add));
  EXPECT_EQ(parse(c.Get("/api/v1/nodes")->body)["items"].Size(), 1u);
  const auto pdbs = parse(c.Get("/apis/policy/v1/poddisruptionbudgets")->body);
  EXPECT_STREQ(pdbs["kind"].GetString(), "PodDisruptionBudgetList");
  EXPECT_EQ(pdbs["items"].Size(), 0u);
  // Every other resource the extender watches answers too (empty), or it would never be ready.
  for (const auto& [path, kind, version] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"/api/v1/namespaces", "NamespaceList", "v1"},
           {"/api/v1/services", "ServiceList", "v1"},
           {"/api/v1/replicationcontrollers", "ReplicationControllerList", "v1"},
           {"/apis/apps/v1/replicasets", "ReplicaSetList", "apps/v1"},
           {"/apis/apps/v1/statefulsets", "StatefulSetList", "apps/v1"}}) {
    const auto list = parse(c.Get(path)->body);
    EXPECT_EQ(std::string(list["kind"].GetString()), kind) << path;
    EXPECT_EQ(std::string(list["apiVersion"].GetString()), version) << path;
    EXPECT_EQ(list["items"].Size(), 0u) << path;
  }

  // Changes after the list: a bind (MODIFIED), a node change that a pod watch must not see, a deletion.
  p.node_name = "n1";
  EXPECT_TRUE(api.put(ApiServer::kPods, "ns/a", pod_json(p)));
  n.unschedulable = true;
  EXPECT_TRUE(api.put(ApiServer::kNodes, "n1", node_json(n)));
  EXPECT_TRUE(api.remove(ApiServer::kPods, "ns/a"));
  EXPECT_FALSE(api.remove(ApiServer::kPods, "ns/a"));
  const auto events = watch_lines(api.port(),
                                  "/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=" +
                                      std::to_string(after_add) + "&timeoutSeconds=5",
                                  2);
  ASSERT_EQ(events.size(), 2u);
  const auto modified = parse(events[0]);
  EXPECT_STREQ(modified["type"].GetString(), "MODIFIED");
  EXPECT_STREQ(modified["object"]["spec"]["nodeName"].GetString(), "n1");
  EXPECT_EQ(modified["object"]["metadata"]["resourceVersion"].GetString(), std::to_string(after_add + 1));
  const auto deleted = parse(events[1]);
  EXPECT_STREQ(deleted["type"].GetString(), "DELETED");
  EXPECT_EQ(deleted["object"]["metadata"]["resourceVersion"].GetString(), std::to_string(after_add + 3));

  // From the start: every event of the kind, ADDED first. A change made while watching arrives too.
  const int watches = api.watches_served();
  std::thread later([&] {
    wait_until([&] { return api.watches_served() > watches; });  // the watch below is open
    api.put(ApiServer::kNodes, "n2", R"({"kind":"Node","metadata":{"name":"n2"}})");
  });
  const auto all = watch_lines(api.port(), "/api/v1/nodes?watch=1&resourceVersion=0&timeoutSeconds=5", 3);
  later.join();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_STREQ(parse(all[0])["type"].GetString(), "ADDED");
  EXPECT_STREQ(parse(all[1])["type"].GetString(), "MODIFIED");
  EXPECT_STREQ(parse(all[2])["object"]["metadata"]["name"].GetString(), "n2");

  // The stream ends at timeoutSeconds.
  const auto start = std::chrono::steady_clock::now();
  const auto none =
      watch_lines(api.port(), "/apis/policy/v1/poddisruptionbudgets?watch=1&timeoutSeconds=1", 1);
  EXPECT_TRUE(none.empty());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));

  EXPECT_EQ(c.Get("/api/v1/pods?watch=1&resourceVersion=abc")->status, 400);
}

// The extender's bindVerb writes a Binding: the pod gets spec.nodeName (a MODIFIED event), as
// kube-apiserver's assignPod; an unknown pod is 404, an assigned one 409, a Binding without a target 400.
TEST(ApiServer, ABindingAssignsThePodOnce) {
  ApiServer api({});
  ASSERT_TRUE(api.put(ApiServer::kPods, "ns/a", pod_json(pod_a())));
  const uint64_t before = api.resource_version();
  httplib::Client c("127.0.0.1", api.port());
  auto post = [&](const std::string& pod, const std::string& body) {
    return c.Post("/api/v1/namespaces/ns/pods/" + pod + "/binding", body, "application/json");
  };
  const std::string binding =
      R"({"kind":"Binding","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"},)"
      R"("target":{"kind":"Node","name":"n1"}})";
  auto r = post("a", binding);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 201) << r->body;
  EXPECT_STREQ(parse(r->body)["status"].GetString(), "Success");
  const auto pods = parse(c.Get("/api/v1/pods")->body);
  ASSERT_EQ(pods["items"].Size(), 1u);
  EXPECT_STREQ(pods["items"][0]["spec"]["nodeName"].GetString(), "n1");
  EXPECT_EQ(api.resource_version(), before + 1);
  const auto events = watch_lines(
      api.port(), "/api/v1/pods?watch=1&resourceVersion=" + std::to_string(before) + "&timeoutSeconds=5", 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_STREQ(parse(events[0])["type"].GetString(), "MODIFIED");

  r = post("a", binding);
  EXPECT_EQ(r->status, 409);
  EXPECT_NE(r->body.find(R"(pod a is already assigned to node \"n1\")"), std::string::npos) << r->body;
  r = post("b", binding);
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find(R"(pods \"b\" not found)"), std::string::npos) << r->body;
  EXPECT_EQ(post("a", R"({"target":{}})")->status, 400);
  EXPECT_EQ(post("a", "not json")->status, 400);
  EXPECT_EQ(api.bindings(), (std::vector<std::pair<std::string, std::string>>{{"ns/a", "n1"}}));
}

// The simulator may write a pod it still sees unbound just after the extender's Binding landed
// (its sync read the API before the Binding). kube-apiserver keeps spec.nodeName once set
// (pkg/apis/core/validation: ValidatePodSpecUpdate), so the write keeps the pod bound; otherwise
// the API and the extender's watch would disagree with the Binding record until the run stalls.
TEST(ApiServer, AWriteThatWouldUnbindABoundPodKeepsItBound) {
  ApiServer api({});
  ASSERT_TRUE(api.put(ApiServer::kPods, "ns/a", pod_json(pod_a())));
  httplib::Client c("127.0.0.1", api.port());
  auto r = c.Post("/api/v1/namespaces/ns/pods/a/binding",
                  R"({"kind":"Binding","metadata":{"name":"a"},"target":{"kind":"Node","name":"n1"}})",
                  "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  Pod later = pod_a();
  later.priority = 7;
  bool refused = false;
  EXPECT_FALSE(api.put(ApiServer::kPods, "ns/a", pod_json(later), &refused));
  EXPECT_TRUE(refused) << "the caller must not take the dropped object for the API's";
  EXPECT_EQ(api.bound_node("ns/a"), "n1");
  const auto pods = parse(c.Get("/api/v1/pods")->body);
  ASSERT_EQ(pods["items"].Size(), 1u);
  EXPECT_STREQ(pods["items"][0]["spec"]["nodeName"].GetString(), "n1");
  Pod placed = pod_a();
  placed.node_name = "n1";
  EXPECT_TRUE(api.put(ApiServer::kPods, "ns/a", pod_json(placed))) << "a write that keeps the node";
  ASSERT_TRUE(api.remove(ApiServer::kPods, "ns/a"));
  EXPECT_TRUE(api.put(ApiServer::kPods, "ns/a", pod_json(pod_a()))) << "a new pod of the same name";
  EXPECT_EQ(api.bound_node("ns/a"), std::nullopt);
}

TEST(ApiServer, BusyAddressIsAnError) {
  ApiServer a({});
  try {
    ApiServer b({.port = a.port()});
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(a.port())), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace api_server_test
}  // namespace kext::kube
