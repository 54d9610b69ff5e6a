#pragma once
// Starts the real extender server on a free loopback port for a test, with a given configuration
// (ExtenderConfiguration or legacy Policy) and state.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/read_file.h"
#include "extender/server/server.h"
#include "json/json.h"
#include "kube/state/snapshot_loader.h"
#include "policy/config.h"

namespace kext::testing {

inline std::string read_file(const std::string& path) {
  std::string text;
  read_whole_file(path, text);  // a missing fixture shows as an empty body in the assertion
  return text;
}

inline std::string fixture_path(const std::string& rel) { return std::string(KEXT_FIXTURES_DIR) + "/" + rel; }

class TestServer {
 public:
  explicit TestServer(std::shared_ptr<const ClusterState> state,
                      std::string policy_text = std::string(default_policy_json()), ServerConfig config = {},
                      std::function<Reply(std::string_view)> bind_handler = {},
                      std::optional<GangConfig> gang = std::nullopt)
      : profile_(load_scheduling_file(policy_text).profile),
        binder_(bind_handler ? std::make_unique<FunctionBinder>(std::move(bind_handler)) : nullptr),
        gangs_(gang
                   ? std::make_unique<GangCoordinator>(profile_.engine, store_, with_levels(*gang), &metrics_)
                   : nullptr),
        verbs_(profile_, store_, kDefaultNodeCacheEntries, binder_.get(), gangs_.get()),
        decisions_(64) {
    store_.publish(std::move(state));
    config.address = "127.0.0.1";
    config.port = 0;
    server_ = std::make_unique<Server>(config, verbs_, store_, ServerObservers{&metrics_, &decisions_});
    std::string error;
    if (!server_->bind(&error)) throw std::runtime_error(error);
    thread_ = std::thread([this] { server_->serve(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_keep_alive(true);
  }
  ~TestServer() {
    client_.reset();
    if (gangs_) gangs_->stop();
    server_->stop();
    thread_.join();
  }

  httplib::Client& client() { return *client_; }
  StateStore& store() { return store_; }
  int port() const { return server_->port(); }
  Server& server() { return *server_; }
  Metrics& metrics() { return metrics_; }
  // Non-null when constructed with a GangConfig.
  GangCoordinator* gangs() { return gangs_.get(); }
  DecisionLog& decisions() { return decisions_; }

  httplib::Result post(const std::string& path, const std::string& body,
                       const std::string& type = "application/json") {
    return client_->Post(path.c_str(), body, type.c_str());
  }

 private:
  // /bind answered by a function: tests that need a verb whose timing and reply they control.
  class FunctionBinder final : public Binder {
   public:
    explicit FunctionBinder(std::function<Reply(std::string_view)> f) : f_(std::move(f)) {}
    Reply bind(std::string_view body, VerbTrace*, Origin) const override { return f_(body); }

   private:
    std::function<Reply(std::string_view)> f_;
  };

  // As kube-extender's main gives them: the configuration's topology levels, unless the test set its own.
  GangConfig with_levels(GangConfig gang) const {
    if (gang.topology_levels.empty()) gang.topology_levels = profile_.topology_levels;
    return gang;
  }

  Profile profile_;
  StateStore store_;
  Metrics metrics_{"test"};
  std::unique_ptr<FunctionBinder> binder_;
  std::unique_ptr<GangCoordinator> gangs_;
  Verbs verbs_;
  DecisionLog decisions_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
};

inline std::shared_ptr<const ClusterState> fixture_cluster() {
  return load_snapshot_files({fixture_path("cluster.json")});
}

inline std::shared_ptr<const ClusterState> state_from_json(const std::string& text) {
  ClusterStateBuilder b;
  load_snapshot_json(text, b);
  return std::move(b).build();
}

inline rapidjson::Document parse(const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.data(), body.size());
  return d;
}

// ExtenderArgs in node-names mode: the pod and the names of the nodes to consider.
inline std::string names_request(const std::string& pod_json, const std::vector<std::string>& names) {
  std::string out = R"({"Pod":)" + pod_json + R"(,"NodeNames":[)";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ",\"" : "\"") + names[i] + "\"";
  return out + "]}";
}

// A /prioritize reply's HostPriorityList as host -> score; a failure (and an empty map) unless it is
// a 200 with `expected_hosts` entries.
inline std::map<std::string, int64_t> host_scores(const httplib::Result& res, size_t expected_hosts) {
  std::map<std::string, int64_t> out;
  if (!res || res->status != 200) {
    ADD_FAILURE() << (res ? res->body : "no reply");
    return out;
  }
  auto r = parse(res->body);
  for (const auto& hs : r.GetArray()) out[hs["Host"].GetString()] = hs["Score"].GetInt64();
  EXPECT_EQ(out.size(), expected_hosts) << res->body;
  return out;
}

}  // namespace kext::testing
