#pragma once
// kube-scheduler as the gang tests drive an extender: one pod at a time through /filter, its /bind sent
// on without waiting (the scheduler's binding cycle runs on its own goroutine) on a connection of its
// own, a pod whose filter finds no node or whose bind fails sent back to the queue. And what the tests
// read back from the in-repo API server: the pods bound, by group.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/fake_apiserver.h"
#include "tests/support/test_server.h"

namespace kext::testing {

// Bound pods by name prefix: "a-3" counts for "a", "web-0" for "web".
inline std::map<std::string, int> bound_by_prefix(const FakeApiServer& api) {
  std::map<std::string, int> out;
  for (const auto& b : api.bindings()) ++out[b.name.substr(0, b.name.rfind('-'))];
  return out;
}

// The most pods of group `app` seen bound at once while `run` runs (sampled continually).
inline int most_bound_at_once(const FakeApiServer& api, const std::string& app,
                              const std::function<void()>& run) {
  std::atomic<bool> stop{false};
  std::atomic<int> most{0};
  std::thread monitor([&] {
    while (!stop) {
      most = std::max(most.load(), bound_by_prefix(api)[app]);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  run();
  stop = true;
  monitor.join();
  return std::max(most.load(), bound_by_prefix(api)[app]);
}

// Pods (their JSON) in queue order, each filtered against every node on port `port`, bound on the first
// node that passes, retried shortly after a failure; until `done` or 30 s. Filters take turns over
// `filter_connections` keep-alive connections (behind a balancer that pins connections, each reaches
// one replica).
inline void schedule_gang_pods(int port, const std::vector<std::string>& nodes,
                               const std::vector<std::string>& pods, const std::function<bool()>& done,
                               size_t filter_connections = 1) {
  using Clock = std::chrono::steady_clock;
  using namespace std::chrono_literals;
  struct Item {
    std::string json;
    Clock::time_point not_before;
  };
  std::mutex mu;
  std::deque<Item> queue;
  for (const auto& p : pods) queue.push_back({p, Clock::now()});
  std::vector<std::thread> binds;
  const auto deadline = Clock::now() + 30s;
  std::vector<std::unique_ptr<httplib::Client>> filter_clients;
  for (size_t i = 0; i < std::max<size_t>(1, filter_connections); ++i) {
    filter_clients.push_back(std::make_unique<httplib::Client>("127.0.0.1", port));
    filter_clients.back()->set_keep_alive(true);
    // Connected now, one after another, before any bind's connection: behind a round-robin balancer,
    // each reaches the next replica.
    filter_clients.back()->Get("/healthz");
  }
  size_t filters = 0;
  while (!done() && Clock::now() < deadline) {
    std::optional<Item> item;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (auto it = queue.begin(); it != queue.end(); ++it) {
        if (it->not_before > Clock::now()) continue;
        item = std::move(*it);
        queue.erase(it);
        break;
      }
    }
    if (!item) {
      std::this_thread::sleep_for(10ms);
      continue;
    }
    auto res = filter_clients[filters++ % filter_clients.size()]->Post(
        "/filter", names_request(item->json, nodes), "application/json");
    ASSERT_TRUE(res && res->status == 200);
    auto d = parse(res->body);
    if (!d["NodeNames"].IsArray() || d["NodeNames"].Empty()) {
      std::lock_guard<std::mutex> lock(mu);
      queue.push_back({item->json, Clock::now() + 200ms});
      continue;
    }
    const std::string node = d["NodeNames"][0].GetString();
    auto pod = parse(item->json);
    const std::string body = R"({"PodName":")" + std::string(pod["metadata"]["name"].GetString()) +
                             R"(","PodNamespace":")" + pod["metadata"]["namespace"].GetString() +
                             R"(","PodUID":")" + pod["metadata"]["uid"].GetString() + R"(","Node":")" + node +
                             "\"}";
    auto finished = std::make_shared<std::atomic<bool>>(false);
    binds.emplace_back([port, body, json = item->json, finished, &mu, &queue] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(30, 0);
      auto r = c.Post("/bind", body, "application/json");
      const bool ok = r && r->status == 200 && parse(r->body)["Error"].GetStringLength() == 0;
      if (!ok) {
        std::lock_guard<std::mutex> lock(mu);
        queue.push_back({json, Clock::now() + 200ms});
      }
      *finished = true;
    });
    // The scheduler assumes the pod on its node before binding it; here the extender's own assumption
    // (made as the bind starts) stands in for it: the next filter waits for it, or for a held bind.
    for (int i = 0; i < 10 && !*finished; ++i) std::this_thread::sleep_for(2ms);
  }
  for (auto& t : binds) t.join();
}

}  // namespace kext::testing
