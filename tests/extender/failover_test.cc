// Failover with three real replicas behind a round-robin TCP balancer that, like a Service, routes only
// to replicas whose /readyz answers 200. A scheduler-like client drives filter -> prioritize -> bind
// for every pending pod, keeps its own assumed pods (kube-scheduler's cache) and retries a pod whose
// cycle failed, while the Lease holder is SIGKILLed and another replica is restarted. Every pod ends
// bound exactly once, no node is over-committed, and the time requests failed is printed.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <map>
#include <set>

#include "tests/support/extender_process.h"
#include "tests/support/kube_objects.h"
#include "tests/support/live_cluster.h"
#include "tests/support/test_server.h"

namespace kext::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Round robin over the backends that answered /readyz 200 at the last check (every 50 ms).
class Balancer {
 public:
  Balancer() {
    listen_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listen_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(listen_, 256) == 0 &&
        getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port_ = ntohs(a.sin_port);
    }
    acceptor_ = std::thread([this] { accept_loop(); });
    checker_ = std::thread([this] { check_loop(); });
  }
  ~Balancer() {
    stop_ = true;
    ::shutdown(listen_, SHUT_RDWR);
    close(listen_);
    acceptor_.join();
    checker_.join();
    while (active_ > 0) std::this_thread::sleep_for(10ms);  // relays notice stop_ within 100 ms
  }
  int port() const { return port_; }
  size_t ready_count() {
    std::lock_guard lock(mu_);
    return ready_.size();
  }
  void set_backends(std::vector<int> ports) {
    std::lock_guard lock(mu_);
    backends_ = std::move(ports);
    // Endpoints that stay keep their readiness until the next check; removed ones go at once.
    std::erase_if(ready_, [this](int p) {
      return std::find(backends_.begin(), backends_.end(), p) == backends_.end();
    });
  }

 private:
  static int connect_to(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  }
  void check_loop() {
    while (!stop_) {
      std::vector<int> all;
      {
        std::lock_guard lock(mu_);
        all = backends_;
      }
      std::vector<int> ready;
      for (int p : all) {
        httplib::Client c("127.0.0.1", p);
        c.set_connection_timeout(0, 200'000);
        c.set_read_timeout(0, 500'000);
        auto r = c.Get("/readyz");
        if (r && r->status == 200) ready.push_back(p);
      }
      {
        std::lock_guard lock(mu_);
        if (all == backends_) ready_ = ready;
      }
      std::this_thread::sleep_for(50ms);
    }
  }
  void accept_loop() {
    while (!stop_) {
      int client = accept(listen_, nullptr, nullptr);
      if (client < 0) {
        if (stop_) return;
        continue;
      }
      ++active_;
      std::thread([this, client] {
        relay(client);
        --active_;
      }).detach();
    }
  }
  void relay(int client) {
    int backend = -1;
    for (int attempt = 0; attempt < 3 && backend < 0; ++attempt) {
      int port = 0;
      {
        std::lock_guard lock(mu_);
        if (!ready_.empty()) port = ready_[next_++ % ready_.size()];
      }
      if (port > 0) backend = connect_to(port);
    }
    if (backend < 0) {
      close(client);
      return;
    }
    pollfd fds[2] = {{client, POLLIN, 0}, {backend, POLLIN, 0}};
    char buf[16384];
    while (!stop_) {
      if (poll(fds, 2, 100) < 0) break;
      bool done = false;
      for (int i = 0; i < 2 && !done; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = recv(fds[i].fd, buf, sizeof buf, 0);
        if (n <= 0 || send(fds[1 - i].fd, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n) done = true;
      }
      if (done) break;
    }
    close(client);
    close(backend);
  }

  int listen_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<int> backends_, ready_;
  size_t next_ = 0;
  std::atomic<int> active_{0};
  std::thread acceptor_, checker_;
};

constexpr int kNodes = 10;
constexpr int64_t kNodeMilli = 4000;
constexpr int kMaxPods = 110;  // node_json's allocatable pods
constexpr int kPods = 1000;
constexpr int64_t kPodMilli = 36;  // 1000 x 36m = 90% of the 10 x 4 CPUs
const std::string kLease = "kube-extender/kube-extender";

std::string node_name(int i) { return "n" + std::to_string(i); }
std::string pod_name(int i) { return "p" + std::to_string(i); }

std::string pod_object(const std::string& name) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"default","uid":"uid-default-)" + name +
         R"("},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":")" +
         std::to_string(kPodMilli) + R"(m","memory":"64Mi"}}}]}})";
}

std::string names_json(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) out += (out.size() > 1 ? ",\"" : "\"") + n + "\"";
  return out + "]";
}

TEST(Failover, EveryPodBoundOnceWhileTheHolderIsKilledAndAReplicaRestarted) {
  FakeApiServer api;
  for (int i = 0; i < kNodes; ++i) api.put("nodes", node_json(node_name(i), "4", "64Gi"));
  for (int i = 0; i < kPods; ++i)
    api.put("pods", pod_json("default", pod_name(i), "", std::to_string(kPodMilli) + "m"));
  const std::string kc = write_temp("failover-kubeconfig", api.kubeconfig(true));
  auto start = [&](const std::string& id) {
    return std::make_unique<ExtenderProcess>(std::vector<std::string>{
        "--kubeconfig", kc, "--enable-bind", "--leader-elect", "--leader-elect-identity", id,
        "--leader-elect-lease-duration", "3s", "--leader-elect-renew-deadline", "2s",
        "--leader-elect-retry-period", "200ms", "--shutdown-delay-seconds", "1"});
  };
  std::map<std::string, std::unique_ptr<ExtenderProcess>> replicas;
  for (const char* id : {"r0", "r1", "r2"}) {
    replicas[id] = start(id);
    ASSERT_GT(replicas[id]->port(), 0) << replicas[id]->log();
  }
  Balancer lb;
  auto publish = [&] {
    std::vector<int> ports;
    for (auto& [id, p] : replicas) {
      if (p) ports.push_back(p->port());
    }
    lb.set_backends(ports);
  };
  publish();
  ASSERT_TRUE(wait_until([&] { return !api.lease_holder(kLease).empty() && lb.ready_count() == 3; }, 10s));

  // The scheduler's side: the queue, its own assumed pods per node, and the failures it saw.
  std::mutex mu;
  std::deque<int> queue;
  for (int i = 0; i < kPods; ++i) queue.push_back(i);
  std::map<std::string, int64_t> used;  // node -> milli-CPU of pods bound or assumed
  std::map<std::string, int> count;     // node -> pods bound or assumed
  std::set<int> done;
  std::vector<Clock::duration> failures;  // since t0
  int refusals = 0;                       // binds refused by a replica that does not hold the Lease
  const auto t0 = Clock::now();
  const auto deadline = t0 + 45s;
  std::atomic<int> bound{0};

  auto fail = [&](int pod) {
    std::lock_guard lock(mu);
    failures.push_back(Clock::now() - t0);
    queue.push_back(pod);
  };
  auto worker = [&] {
    httplib::Client c("127.0.0.1", lb.port());
    c.set_connection_timeout(1, 0);
    c.set_read_timeout(5, 0);
    while (Clock::now() < deadline) {
      int pod = -1;
      std::vector<std::string> candidates;
      {
        std::lock_guard lock(mu);
        if (queue.empty()) {
          if (static_cast<int>(done.size()) == kPods) return;
        } else {
          pod = queue.front();
          queue.pop_front();
          for (int i = 0; i < kNodes; ++i) {
            if (used[node_name(i)] + kPodMilli <= kNodeMilli && count[node_name(i)] < kMaxPods) {
              candidates.push_back(node_name(i));
            }
          }
        }
      }
      if (candidates.empty()) {
        std::this_thread::sleep_for(5ms);
        continue;
      }
      const std::string name = pod_name(pod);
      auto f = c.Post("/filter",
                      R"({"Pod":)" + pod_object(name) + R"(,"NodeNames":)" + names_json(candidates) + "}",
                      "application/json");
      if (!f || f->status != 200) {
        fail(pod);
        continue;
      }
      auto fd = parse(f->body);
      std::vector<std::string> fits;
      if (fd.IsObject() && fd.HasMember("NodeNames") && fd["NodeNames"].IsArray()) {
        for (auto& n : fd["NodeNames"].GetArray()) fits.push_back(n.GetString());
      }
      if (fits.empty()) {
        fail(pod);
        continue;
      }
      auto p =
          c.Post("/prioritize", R"({"Pod":)" + pod_object(name) + R"(,"NodeNames":)" + names_json(fits) + "}",
                 "application/json");
      if (!p || p->status != 200) {
        fail(pod);
        continue;
      }
      auto pd = parse(p->body);
      std::string node;
      {
        std::lock_guard lock(mu);
        int64_t best = -1;
        if (pd.IsArray()) {
          for (auto& h : pd.GetArray()) {
            const std::string host = h["Host"].GetString();
            if (h["Score"].GetInt64() > best && used[host] + kPodMilli <= kNodeMilli &&
                count[host] < kMaxPods) {
              best = h["Score"].GetInt64();
              node = host;
            }
          }
        }
        if (!node.empty()) {  // assumed, as kube-scheduler's cache does
          used[node] += kPodMilli;
          ++count[node];
        }
      }
      if (node.empty()) {
        fail(pod);
        continue;
      }
      auto b = c.Post("/bind",
                      R"({"PodName":")" + name + R"(","PodNamespace":"default","PodUID":"uid-default-)" +
                          name + R"(","Node":")" + node + "\"}",
                      "application/json");
      if (b && b->status == 200 && b->body == R"({"Error":""})") {
        std::lock_guard lock(mu);
        done.insert(pod);
        ++bound;
        continue;
      }
      // Whether the Binding was created before the reply was lost: the scheduler's informer would say.
      std::string bound_to;
      for (const auto& bd : api.bindings()) {
        if (bd.name == name) bound_to = bd.node;
      }
      std::lock_guard lock(mu);
      used[node] -= kPodMilli;
      --count[node];
      if (!bound_to.empty()) {
        used[bound_to] += kPodMilli;
        ++count[bound_to];
        done.insert(pod);
        ++bound;
        continue;
      }
      if (b && b->body.find("does not hold the Lease") != std::string::npos) {
        ++refusals;
      } else {
        failures.push_back(Clock::now() - t0);
      }
      queue.push_back(pod);
    }
  };

  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i) workers.emplace_back(worker);

  // Chaos: SIGKILL the Lease holder after a sixth of the pods; once binding resumed, restart another
  // replica the way a rollout does (SIGTERM, then a new one).
  ASSERT_TRUE(wait_until([&] { return bound >= kPods / 6; }, 30s));
  const std::string holder = api.lease_holder(kLease);
  std::fprintf(stderr, "failover: %d bound, killing %s\n", bound.load(), holder.c_str());
  ASSERT_TRUE(replicas.count(holder)) << holder;
  const auto killed_at = Clock::now() - t0;
  const int bound_at_kill = bound;
  kill(replicas[holder]->pid(), SIGKILL);
  replicas[holder]->wait_exit(5s);
  const auto resumed = [&] { return bound > bound_at_kill + 10; };
  EXPECT_TRUE(wait_until(resumed, 30s));
  const auto resumed_at = Clock::now() - t0;
  std::fprintf(stderr, "failover: %d bound, binding resumed\n", bound.load());
  replicas[holder].reset();
  publish();
  std::string restarted;
  for (auto& [id, p] : replicas) {
    if (p && id != api.lease_holder(kLease)) restarted = id;
  }
  ASSERT_FALSE(restarted.empty());
  const auto restart_at = Clock::now() - t0;
  kill(replicas[restarted]->pid(), SIGTERM);
  EXPECT_EQ(replicas[restarted]->wait_exit(20s), 0) << replicas[restarted]->log();
  replicas[restarted] = start(restarted + "-new");
  ASSERT_GT(replicas[restarted]->port(), 0) << replicas[restarted]->log();
  publish();
  std::fprintf(stderr, "failover: %d bound, restarted %s\n", bound.load(), restarted.c_str());

  for (auto& t : workers) t.join();
  std::fprintf(stderr, "failover: %d bound, workers done\n", bound.load());
  const auto finished_at = Clock::now() - t0;

  // Every pod bound exactly once, in the API server's own record.
  std::map<std::string, int> times;
  std::map<std::string, int64_t> per_node;
  std::map<std::string, int> pods_on;
  for (const auto& b : api.bindings()) {
    ++times[b.name];
    per_node[b.node] += kPodMilli;
    ++pods_on[b.node];
  }
  EXPECT_EQ(static_cast<int>(times.size()), kPods);
  for (const auto& [name, n] : times) EXPECT_EQ(n, 1) << name;
  for (const auto& [node, milli] : per_node) EXPECT_LE(milli, kNodeMilli) << node;
  for (const auto& [node, n] : pods_on) EXPECT_LE(n, kMaxPods) << node;

  // Failed requests, grouped into windows of failures less than 300 ms apart.
  auto ms = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  std::sort(failures.begin(), failures.end());
  std::string windows;
  for (size_t i = 0; i < failures.size();) {
    size_t j = i;
    while (j + 1 < failures.size() && failures[j + 1] - failures[j] < 300ms) ++j;
    windows += "  failing from " + std::to_string(ms(failures[i])) + " ms to " +
               std::to_string(ms(failures[j])) + " ms (" + std::to_string(ms(failures[j] - failures[i])) +
               " ms, " + std::to_string(j - i + 1) + " failed cycles)\n";
    i = j + 1;
  }
  std::printf(
      "failover: %zu of %d pods bound in %lld ms; holder %s SIGKILLed at %lld ms, binding resumed at %lld ms "
      "(%lld ms "
      "without binds); %s restarted (SIGTERM) at %lld ms; %zu failed cycles, %d binds refused by "
      "non-holders\n%s",
      times.size(), kPods, static_cast<long long>(ms(finished_at)), holder.c_str(),
      static_cast<long long>(ms(killed_at)), static_cast<long long>(ms(resumed_at)),
      static_cast<long long>(ms(resumed_at - killed_at)), restarted.c_str(),
      static_cast<long long>(ms(restart_at)), failures.size(), refusals, windows.c_str());
}

}  // namespace
}  // namespace kext::testing
