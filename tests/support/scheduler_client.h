#pragma once
// A client shaped as kube-scheduler drives an extender with every verb (pkg/scheduler/schedule_one.go):
// one scheduling loop takes pods from its queue one at a time (filter, prioritize, pick the best node,
// assume the pod there in its own cache), and hands each pod's bind to a binding goroutine, so that
// several binds are in flight while the loop goes on. A failed bind forgets the assumption and sends
// the pod back to the queue after a backoff (podInitialBackoffSeconds 1, podMaxBackoffSeconds 10),
// unless the API shows it bound (the scheduler's informer would). Requests go over keep-alive
// connections from one idle pool (Go's http.Transport: the most recently used first), so through a
// connection-pinning balancer each request lands on the replica its connection was opened to.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "json/json.h"

namespace kext::testing {

struct SchedulerClientConfig {
  int port = 0;  // the extender (or the balancer in front of the replicas), on 127.0.0.1
  std::vector<std::string> nodes;
  int64_t node_milli = 4000;
  int max_pods_per_node = 110;
  std::vector<std::string> pods;  // in namespace "default", uid "uid-default-<name>"
  int64_t pod_milli = 36;
  // The pod object its calls carry (default: pod_object, a container asking for pod_milli of CPU).
  std::function<std::string(const std::string& pod)> pod_body;
  size_t binders = 64;  // binds in flight at once at most (kube-scheduler: a goroutine per pod)
  // The scheduler's own work in each cycle (its plugins' PreFilter..Score, on its own machine): slept,
  // so that it takes no CPU from the extender's replicas on this one.
  std::chrono::microseconds own_cycle{0};
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{10000};
  std::chrono::milliseconds deadline{60000};
  // Where the API server has the pod bound ("" if nowhere): asked after a failed bind.
  std::function<std::string(const std::string& pod)> bound_in_api;
};

class SchedulerClient {
 public:
  using Clock = std::chrono::steady_clock;

  struct Result {
    int bound = 0;                               // pods whose bind succeeded, or that the API shows bound
    Clock::duration elapsed{};                   // from run() to the last pod bound (or the deadline)
    int bind_errors = 0;                         // bind replies that were not {"Error":""}
    int refusals = 0;                            // of those, refused for not holding the Lease
    int cycle_failures = 0;                      // filter or prioritize failed, or no node fit
    std::string first_bind_error;                // the reply (or transport error) of the first failed bind
    std::vector<Clock::duration> failure_times;  // since run(), every failure above
    std::vector<Clock::duration> bound_times;    // since run(), each pod bound
    double pods_per_second() const {
      const double s = std::chrono::duration<double>(elapsed).count();
      return s > 0 ? bound / s : 0;
    }
  };

  explicit SchedulerClient(SchedulerClientConfig c) : c_(std::move(c)) {
    for (const auto& p : c_.pods) queue_.push_back(Entry{p, Clock::time_point{}, 0});
  }

  // Pods bound so far (another thread may watch it while run() goes on).
  int bound() const { return bound_.load(); }

  Result run() {
    t0_ = Clock::now();
    const auto deadline = t0_ + c_.deadline;
    std::vector<std::thread> binders;
    for (size_t i = 0; i < c_.binders; ++i) binders.emplace_back([this, deadline] { bind_loop(deadline); });
    schedule_loop(deadline);
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : binders) t.join();
    std::lock_guard lock(mu_);
    result_.bound = bound_.load();
    result_.elapsed = (result_.bound == static_cast<int>(c_.pods.size()) && !result_.bound_times.empty())
                          ? result_.bound_times.back()
                          : Clock::now() - t0_;
    return result_;
  }

 private:
  struct Entry {
    std::string pod;
    Clock::time_point ready;  // not before (backoff)
    int attempts;
  };
  struct BindJob {
    Entry entry;
    std::string node;
  };

  std::unique_ptr<httplib::Client> take() {
    {
      std::lock_guard lock(pool_mu_);
      if (!idle_.empty()) {
        auto c = std::move(idle_.back());
        idle_.pop_back();
        return c;
      }
    }
    auto c = std::make_unique<httplib::Client>("127.0.0.1", c_.port);
    c->set_keep_alive(true);
    c->set_tcp_nodelay(true);  // Go's net.Dial sets TCP_NODELAY
    c->set_connection_timeout(1, 0);
    c->set_read_timeout(10, 0);
    return c;
  }
  void give_back(std::unique_ptr<httplib::Client> c) {
    std::lock_guard lock(pool_mu_);
    if (idle_.size() < 25)
      idle_.push_back(std::move(c));  // MaxIdleConnsPerHost (utilnet.SetTransportDefaults)
  }
  httplib::Result post(const std::string& path, const std::string& body) {
    auto c = take();
    auto r = c->Post(path, body, "application/json");
    if (r) give_back(std::move(c));
    return r;
  }

  static std::string pod_object(const std::string& name, int64_t milli) {
    return R"({"metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-default-)" + name +
           R"("},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":")" +
           std::to_string(milli) + R"(m","memory":"64Mi"}}}]}})";
  }
  static rapidjson::Document parse(const std::string& body) {
    rapidjson::Document d;
    d.Parse(body.data(), body.size());
    return d;
  }
  static std::string names_json(const std::vector<std::string>& names) {
    std::string out = "[";
    for (const auto& n : names) out += (out.size() > 1 ? ",\"" : "\"") + n + "\"";
    return out + "]";
  }

  bool fits(const std::string& node) {
    return used_[node] + c_.pod_milli <= c_.node_milli && count_[node] < c_.max_pods_per_node;
  }

  // mu_ held.
  void requeue(Entry e) {
    ++e.attempts;
    auto backoff = c_.initial_backoff;
    for (int i = 1; i < e.attempts && backoff < c_.max_backoff; ++i) backoff *= 2;
    e.ready = Clock::now() + std::min(backoff, c_.max_backoff);
    queue_.push_back(std::move(e));
  }
  void cycle_failed(Entry e) {
    std::lock_guard lock(mu_);
    ++result_.cycle_failures;
    result_.failure_times.push_back(Clock::now() - t0_);
    requeue(std::move(e));
  }

  void schedule_loop(Clock::time_point deadline) {
    while (Clock::now() < deadline) {
      std::optional<Entry> e;
      std::vector<std::string> candidates;
      {
        std::lock_guard lock(mu_);
        if (bound_.load() == static_cast<int>(c_.pods.size())) return;
        const auto now = Clock::now();
        for (auto it = queue_.begin(); it != queue_.end(); ++it) {
          if (it->ready <= now) {
            e = std::move(*it);
            queue_.erase(it);
            break;
          }
        }
        if (e) {
          for (const auto& n : c_.nodes) {
            if (fits(n)) candidates.push_back(n);
          }
        }
      }
      if (!e) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
      if (candidates.empty()) {
        cycle_failed(std::move(*e));
        continue;
      }
      if (c_.own_cycle.count() > 0) std::this_thread::sleep_for(c_.own_cycle);
      const std::string pod = c_.pod_body ? c_.pod_body(e->pod) : pod_object(e->pod, c_.pod_milli);
      auto f = post("/filter", R"({"Pod":)" + pod + R"(,"NodeNames":)" + names_json(candidates) + "}");
      std::vector<std::string> feasible;
      if (f && f->status == 200) {
        auto fd = parse(f->body);
        if (fd.IsObject() && fd.HasMember("NodeNames") && fd["NodeNames"].IsArray()) {
          for (auto& n : fd["NodeNames"].GetArray()) feasible.push_back(n.GetString());
        }
      }
      if (feasible.empty()) {
        cycle_failed(std::move(*e));
        continue;
      }
      auto p = post("/prioritize", R"({"Pod":)" + pod + R"(,"NodeNames":)" + names_json(feasible) + "}");
      if (!p || p->status != 200) {
        cycle_failed(std::move(*e));
        continue;
      }
      auto pd = parse(p->body);
      std::string node;
      {
        std::lock_guard lock(mu_);
        int64_t best = -1;
        if (pd.IsArray()) {
          for (auto& h : pd.GetArray()) {
            const std::string host = h["Host"].GetString();
            if (h["Score"].GetInt64() > best && fits(host)) {
              best = h["Score"].GetInt64();
              node = host;
            }
          }
        }
        if (!node.empty()) {  // assumed, as kube-scheduler's cache does, then bound asynchronously
          used_[node] += c_.pod_milli;
          ++count_[node];
          binds_.push_back(BindJob{std::move(*e), node});
        }
      }
      if (node.empty()) {
        cycle_failed(std::move(*e));
        continue;
      }
      cv_.notify_one();
    }
  }

  void bind_loop(Clock::time_point deadline) {
    while (true) {
      BindJob job;
      {
        std::unique_lock lock(mu_);
        cv_.wait_until(lock, deadline, [this] { return stop_ || !binds_.empty(); });
        if (binds_.empty()) return;
        job = std::move(binds_.front());
        binds_.pop_front();
      }
      const std::string& name = job.entry.pod;
      auto b =
          post("/bind", R"({"PodName":")" + name + R"(","PodNamespace":"default","PodUID":"uid-default-)" +
                            name + R"(","Node":")" + job.node + "\"}");
      const bool ok = b && b->status == 200 && b->body == R"({"Error":""})";
      const std::string bound_to = ok ? job.node : (c_.bound_in_api ? c_.bound_in_api(name) : "");
      std::lock_guard lock(mu_);
      if (!ok) {
        if (result_.bind_errors++ == 0)
          result_.first_bind_error = b ? b->body : httplib::to_string(b.error());
        if (b && b->body.find("does not hold the Lease") != std::string::npos) ++result_.refusals;
        result_.failure_times.push_back(Clock::now() - t0_);
        used_[job.node] -= c_.pod_milli;
        --count_[job.node];
        if (!bound_to.empty()) {
          used_[bound_to] += c_.pod_milli;
          ++count_[bound_to];
        }
      }
      if (bound_to.empty()) {
        requeue(std::move(job.entry));
        continue;
      }
      if (done_.insert(name).second) {
        ++bound_;
        result_.bound_times.push_back(Clock::now() - t0_);
      }
    }
  }

  SchedulerClientConfig c_;
  Clock::time_point t0_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<httplib::Client>> idle_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::deque<Entry> queue_;
  std::deque<BindJob> binds_;
  std::map<std::string, int64_t> used_;  // node -> milli-CPU of pods bound or assumed
  std::map<std::string, int> count_;     // node -> pods bound or assumed
  std::set<std::string> done_;
  std::atomic<int> bound_{0};
  Result result_;
};

}  // namespace kext::testing
