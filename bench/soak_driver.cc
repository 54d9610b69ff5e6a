// soak-driver (run by bench/soak): the real kube-extender watching the in-repo API server while that
// server churns pods and restarts or compacts every so often, with extender-load replaying filter,
// prioritize, preempt and bind traffic; then a report that fails on unexpected errors, drift of the heap
// in use after warm-up, RSS that ends above its early peak, growth of file descriptors or threads, a
// cache that differs from a from-scratch build of the server's objects, or an unclean shutdown.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "algorithms/namespaced_key.h"
#include "common/cli.h"
#include "common/quantile.h"
#include "common/read_file.h"
#include "common/rfc3339.h"
#include "extender/observe/metrics.h"
#include "json/json.h"
#include "kube/state/state_dump.h"
#include "kubeobjects/objects.h"
#include "load/exchanges.h"
#include "load/http_connection.h"
#include "tests/support/child_process.h"
#include "tests/support/extender_process.h"
#include "tests/support/fake_apiserver.h"
#include "tests/support/live_cluster.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using kext::median;
using namespace std::chrono_literals;

struct Options {
  double seconds = 1800;   // traffic and churn
  std::string work;        // extender-gen --bind output: cluster.json, names/
  std::string extender;    // the kube-extender binary
  std::string load;        // the extender-load binary
  double churn_rate = 40;  // pod events per second
  double rate = 300;       // requests per second over all connections; 0 = closed loop
  int connections = 4;
  double period = 0;        // a restart and a compaction per period; 0 = seconds/3 within [20, 180]
  double sample_every = 0;  // 0 = seconds/60 within [1, 5]
  double heap_limit = 5;    // % drift of the heap in use allowed after warm-up
  double rss_limit = 20;    // % RSS allowed over its peak before the baseline ended
  uint64_t seed = 1;
};

// Returns false for --help (printed here).
bool parse_options(int argc, char** argv, Options& o) {
  CLI::App app("soak-driver: the real kube-extender against the in-repo API server under churn",
               "soak-driver");
  kext::cli::configure(app);
  app.add_option("--seconds", o.seconds, "traffic and churn")->check(CLI::Range(10.0, 86400.0));
  app.add_option("--work", o.work,
                 "extender-gen --bind output (cluster.json, names/); logs are written there")
      ->required()
      ->type_name("DIR");
  app.add_option("--extender", o.extender, "the kube-extender binary")->required()->type_name("BIN");
  app.add_option("--load", o.load, "the extender-load binary")->required()->type_name("BIN");
  app.add_option("--churn-rate", o.churn_rate, "pod events per second on the API server")
      ->check(CLI::Range(0.1, 10000.0));
  app.add_option("--rate", o.rate, "requests per second, 0 = closed loop")->check(CLI::Range(0.0, 1e6));
  app.add_option("--connections", o.connections, "extender-load connections")->check(CLI::Range(1, 64));
  app.add_option("--period", o.period,
                 "one restart and one compaction per period (default S/3 within [20, 180])")
      ->check(CLI::Range(5.0, 86400.0))
      ->default_str("");
  app.add_option("--sample-every", o.sample_every, "/proc sampling interval (default S/60 within [1, 5])")
      ->check(CLI::Range(0.2, 600.0))
      ->default_str("");
  app.add_option("--heap-limit", o.heap_limit, "drift of the heap in use allowed after warm-up, in percent")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--rss-limit", o.rss_limit,
                 "RSS allowed at the end over its peak up to the baseline's end, in percent")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--seed", o.seed, "churn choices");
  if (!kext::cli::parse(app, argc, argv)) {
    std::cout << kext::cli::help_text(app);
    return false;
  }
  if (o.period == 0) o.period = std::clamp(o.seconds / 3, 20.0, 180.0);
  if (o.sample_every == 0) o.sample_every = std::clamp(o.seconds / 60, 1.0, 5.0);
  return true;
}

std::string to_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return std::string(sb.GetString(), sb.GetSize());
}

void set_member(rapidjson::Value& obj, const char* name, rapidjson::Value v,
                rapidjson::Document::AllocatorType& a) {
  if (obj.HasMember(name)) obj.RemoveMember(name);
  obj.AddMember(rapidjson::Value(name, a), v, a);
}

rapidjson::Value& object_member(rapidjson::Value& obj, const char* name,
                                rapidjson::Document::AllocatorType& a) {
  if (!obj.HasMember(name) || !obj[name].IsObject())
    set_member(obj, name, rapidjson::Value(rapidjson::kObjectType), a);
  return obj[name];
}

// ---- the cluster and the churned pods ----

struct Cluster {
  std::vector<std::string> nodes;
  size_t pods = 0;
  size_t pdbs = 0;
};

// cluster.json into the API server.
Cluster load_cluster(kext::testing::FakeApiServer& api, const std::string& path) {
  std::string text;
  if (!kext::read_whole_file(path, text)) throw std::runtime_error(path + ": cannot read");
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("items") || !d["items"].IsArray()) {
    throw std::runtime_error(path + ": not a v1 List");
  }
  Cluster c;
  for (const auto& item : d["items"].GetArray()) {
    const std::string kind =
        item.HasMember("kind") && item["kind"].IsString() ? item["kind"].GetString() : "";
    if (kind == "Node") {
      api.put("nodes", to_json(item));
      c.nodes.push_back(item["metadata"]["name"].GetString());
    } else if (kind == "Pod") {
      api.put("pods", to_json(item));
      ++c.pods;
    } else if (kind == "PodDisruptionBudget") {
      api.put("poddisruptionbudgets", to_json(item));
      ++c.pdbs;
    }
  }
  if (c.nodes.empty()) throw std::runtime_error(path + ": no nodes");
  return c;
}

struct PoolPod {
  std::string key;   // namespace/name
  std::string json;  // pending, with its TypeMeta
};

// The pods the recorded cycles schedule (and bind): churn creates, updates and deletes exactly these, so
// the binds in the traffic meet pods that exist and are pending, exist and are bound, or are gone.
std::vector<PoolPod> load_pool(const std::string& recording) {
  std::vector<PoolPod> pool;
  std::set<std::string> seen;
  for (const auto& ex : kext::load::read_exchanges(recording, {{"filter"}, false})) {
    rapidjson::Document d;
    d.Parse(ex.record.body.data(), ex.record.body.size());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("Pod"))
      throw std::runtime_error(ex.source + ": no Pod");
    const auto& md = d["Pod"]["metadata"];
    const std::string key = kext::namespaced_key(md["namespace"].GetString(), md["name"].GetString());
    if (!seen.insert(key).second) continue;
    // The pod with its TypeMeta first, as the API server serves it.
    auto& a = d.GetAllocator();
    rapidjson::Value pod(rapidjson::kObjectType);
    pod.AddMember("kind", "Pod", a);
    pod.AddMember("apiVersion", "v1", a);
    for (auto& m : d["Pod"].GetObject()) pod.AddMember(m.name, m.value, a);
    pool.push_back({key, to_json(pod)});
  }
  if (pool.empty()) throw std::runtime_error(recording + ": no filter requests to take pods from");
  return pool;
}

struct ChurnCounts {
  std::atomic<uint64_t> created{0}, updated{0}, deleted{0};
  uint64_t total() const { return created + updated + deleted; }
};

class Churn {
 public:
  Churn(kext::testing::FakeApiServer& api, std::vector<PoolPod> pool, std::vector<std::string> nodes,
        uint64_t seed)
      : api_(api), pool_(std::move(pool)), nodes_(std::move(nodes)), rng_(seed) {}

  // Creates about as many pods as the churn keeps alive, so that the cache starts near its steady size.
  void populate() {
    for (size_t i = 0; i < pool_.size(); ++i)
      if (chance(0.75)) create(pool_[i]);
  }

  // One event on a random pod of the pool: create it if absent; otherwise delete it (35 %) or update it.
  void step() {
    PoolPod& p = pool_[std::uniform_int_distribution<size_t>(0, pool_.size() - 1)(rng_)];
    if (!api_.object("pods", p.key)) {
      create(p);
    } else if (chance(0.35)) {
      api_.remove("pods", p.key);
      ++counts.deleted;
    } else {
      update(p);
    }
  }

  ChurnCounts counts;

 private:
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  const std::string& random_node() {
    return nodes_[std::uniform_int_distribution<size_t>(0, nodes_.size() - 1)(rng_)];
  }
  std::string now() const {
    return kext::rfc3339_seconds(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()));
  }

  // Pending as the scheduler sees it (70 %), or already running on a node, as a pod that another
  // scheduler or the kubelet (a static pod) placed.
  void create(const PoolPod& p) {
    if (chance(0.7)) {
      api_.put("pods", p.json);
    } else {
      rapidjson::Document d;
      d.Parse(p.json.data(), p.json.size());
      auto& a = d.GetAllocator();
      set_member(d["spec"], "nodeName", rapidjson::Value(random_node().c_str(), a), a);
      run(d["status"], a);
      api_.put("pods", to_json(d));
    }
    ++counts.created;
  }

  void run(rapidjson::Value& status, rapidjson::Document::AllocatorType& a) {
    set_member(status, "phase", rapidjson::Value("Running"), a);
    set_member(status, "startTime", rapidjson::Value(now().c_str(), a), a);
  }

  // What the kubelet and controllers change: conditions, the phase (Running, sometimes Succeeded), a label.
  void update(const PoolPod& p) {
    const double r = std::uniform_real_distribution<double>(0, 1)(rng_);
    const uint64_t n = ++generation_;
    const std::string stamp = now();
    api_.update("pods", p.key, [&](const std::string& json) -> std::optional<std::string> {
      rapidjson::Document d;
      d.Parse(json.data(), json.size());
      auto& a = d.GetAllocator();
      auto& status = object_member(d, "status", a);
      const bool bound = d["spec"].HasMember("nodeName") && d["spec"]["nodeName"].IsString() &&
                         d["spec"]["nodeName"].GetStringLength() > 0;
      const std::string phase =
          status.HasMember("phase") && status["phase"].IsString() ? status["phase"].GetString() : "";
      if (phase == "Succeeded" || phase == "Failed" || r < 0.3) {
        auto& labels = object_member(object_member(d, "metadata", a), "labels", a);
        set_member(labels, "soak-tier", rapidjson::Value(rapidjson::StringRef(n % 2 ? "a" : "b")), a);
      } else if (!bound) {
        rapidjson::Value cond(rapidjson::kObjectType);
        cond.AddMember("type", "PodScheduled", a);
        cond.AddMember("status", "False", a);
        cond.AddMember("reason", "Unschedulable", a);
        cond.AddMember(
            "message",
            rapidjson::Value(("0/N nodes are available (churn " + std::to_string(n) + ")").c_str(), a), a);
        cond.AddMember("lastTransitionTime", rapidjson::Value(stamp.c_str(), a), a);
        rapidjson::Value conds(rapidjson::kArrayType);
        conds.PushBack(cond, a);
        set_member(status, "conditions", std::move(conds), a);
      } else if (r < 0.4) {
        set_member(status, "phase", rapidjson::Value("Succeeded"), a);
      } else {
        if (phase != "Running") run(status, a);
        rapidjson::Value cond(rapidjson::kObjectType);
        cond.AddMember("type", "Ready", a);
        cond.AddMember("status", rapidjson::Value(rapidjson::StringRef(n % 2 ? "True" : "False")), a);
        cond.AddMember("lastTransitionTime", rapidjson::Value(stamp.c_str(), a), a);
        rapidjson::Value conds(rapidjson::kArrayType);
        conds.PushBack(cond, a);
        set_member(status, "conditions", std::move(conds), a);
      }
      return to_json(d);
    });
    ++counts.updated;
  }

  kext::testing::FakeApiServer& api_;
  std::vector<PoolPod> pool_;
  std::vector<std::string> nodes_;
  std::mt19937_64 rng_;
  uint64_t generation_ = 0;
};

// ---- the extender's process ----

struct Sample {
  double t = 0;  // seconds since traffic started
  double rss_kib = 0;
  double heap_kib = 0;  // kube_extender_heap_bytes{state="in_use"}: what the program holds
  int threads = 0;
  int fds = 0;
};

// False when the process is gone.
bool sample_process(pid_t pid, double t, Sample& s) {
  s = Sample{};
  s.t = t;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  if (!status) return false;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) s.rss_kib = std::strtod(line.c_str() + 6, nullptr);
    if (line.rfind("Threads:", 0) == 0) s.threads = std::atoi(line.c_str() + 8);
    if (line.rfind("State:", 0) == 0 && line.find("Z (zombie)") != std::string::npos) return false;
  }
  std::error_code ec;
  for (fs::directory_iterator it("/proc/" + std::to_string(pid) + "/fd", ec), end; !ec && it != end;
       it.increment(ec))
    ++s.fds;
  return !ec && s.rss_kib > 0;
}

bool http_get(int port, const std::string& path, kext::load::HttpReply& reply) {
  kext::load::HttpConnection c("127.0.0.1", port, std::chrono::seconds(10));
  return c.get(path, reply) == kext::load::HttpFailure::kNone;
}

// The extender's heap in use from its /metrics, in KiB; 0 when it cannot be read.
double heap_in_use_kib(int port) {
  kext::load::HttpReply reply;
  if (!http_get(port, "/metrics", reply) || reply.status != 200) return 0;
  const size_t at = reply.body.find("\n" + std::string(kext::kHeapInUseSeries));
  return at == std::string::npos
             ? 0
             : std::strtod(reply.body.c_str() + at + 1 + kext::kHeapInUseSeries.size(), nullptr) / 1024;
}

// Lines in one text and not the other, a few of each.
std::string difference(const std::string& want, const std::string& got, size_t shown) {
  auto lines = [](const std::string& text) {
    std::set<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.insert(l);
    return out;
  };
  const auto w = lines(want), g = lines(got);
  std::string out;
  size_t n = 0;
  for (const auto& l : w)
    if (!g.contains(l) && n++ < shown) out += "  expected: " + l.substr(0, 300) + "\n";
  n = 0;
  for (const auto& l : g)
    if (!w.contains(l) && n++ < shown) out += "  cached:   " + l.substr(0, 300) + "\n";
  return out;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

uint64_t member_u64(const rapidjson::Value& obj, const char* name) {
  return obj.IsObject() && obj.HasMember(name) && obj[name].IsUint64() ? obj[name].GetUint64() : 0;
}

// Stops the children if the run overruns its time by far (a hung child or server): everything ends.
class Watchdog {
 public:
  Watchdog(std::chrono::seconds limit, std::function<void()> on_expiry)
      : thread_([this, limit, f = std::move(on_expiry)] {
          std::unique_lock lock(mu_);
          if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::cerr << "soak: watchdog: the run overran by far; stopping" << std::endl;
            f();
            std::_Exit(1);
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

int run(const Options& o) {
  const fs::path work(o.work);
  const auto sec = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };

  kext::testing::FakeApiServer api;
  const Cluster cluster = load_cluster(api, (work / "cluster.json").string());
  Churn churn(api, load_pool((work / "names").string()), cluster.nodes, o.seed);
  churn.populate();
  api.compact();  // the loading history is of no use to a client that lists first
  const std::string kubeconfig = (work / "kubeconfig").string();
  std::ofstream(kubeconfig) << api.kubeconfig();

  std::atomic<pid_t> extender_pid{-1}, load_pid{-1};
  Watchdog watchdog(std::chrono::seconds(static_cast<int64_t>(o.seconds) + 300), [&] {
    if (extender_pid > 0) kill(extender_pid, SIGKILL);
    if (load_pid > 0) kill(load_pid, SIGKILL);
  });

  kext::testing::ExtenderProcess extender(o.extender, {"--kubeconfig", kubeconfig, "--enable-bind"},
                                          (work / "extender.log").string());
  extender_pid = extender.pid();
  if (extender.port() == 0) {
    std::cerr << "soak: kube-extender did not start:\n" << extender.log() << std::endl;
    return 1;
  }
  const int port = extender.port();
  kext::load::HttpReply reply;
  for (int i = 0; i < 600 && !(http_get(port, "/readyz", reply) && reply.status == 200); ++i)
    std::this_thread::sleep_for(50ms);
  if (reply.status != 200) {
    std::cerr << "soak: kube-extender never became ready:\n" << extender.log() << std::endl;
    return 1;
  }

  std::vector<std::string> load_args = {o.load,
                                        "--url",
                                        "http://127.0.0.1:" + std::to_string(port),
                                        "--connections",
                                        std::to_string(o.connections),
                                        "--duration",
                                        fixed(o.seconds, 3),
                                        "--json",
                                        "--quiet",
                                        "--expect-error",
                                        "bind:HTTP 409: ",
                                        "--expect-error",
                                        "bind:HTTP 404: ",
                                        (work / "names").string()};
  if (o.rate > 0) load_args.insert(load_args.end() - 1, {"--rate", fixed(o.rate, 3)});
  const auto start = Clock::now();
  load_pid =
      kext::testing::spawn_child(load_args, (work / "load.json").string(), (work / "load.log").string());
  const auto end = start + sec(o.seconds);

  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  auto wait_until = [&](Clock::time_point t) {
    std::unique_lock lock(mu);
    return !cv.wait_until(lock, std::min(t, end), [&] { return stop; }) && t < end;
  };

  std::thread churner([&] {
    auto next = start;
    while (wait_until(next)) {
      churn.step();
      next += sec(1 / o.churn_rate);
    }
  });

  int restarts = 0, compactions = 0, bookmarks = 0;
  std::thread faults([&] {
    // Per period: a restart at 30 % (streams break, every kind relists from a new resourceVersion
    // history), a compaction at 65 % (each open stream gets 410 Gone and relists). A bookmark every 20 s
    // keeps quiet streams (nodes, PDBs) alive, as the API's are.
    struct Due {
      double at;
      int what;  // 0 restart, 1 compaction, 2 bookmark
    };
    std::vector<Due> plan;
    for (double p = 0; p < o.seconds; p += o.period) {
      plan.push_back({p + 0.30 * o.period, 0});
      plan.push_back({p + 0.65 * o.period, 1});
    }
    for (double b = 20; b < o.seconds; b += 20) plan.push_back({b, 2});
    std::sort(plan.begin(), plan.end(), [](const Due& a, const Due& b) { return a.at < b.at; });
    for (const Due& d : plan) {
      if (!wait_until(start + sec(d.at))) return;
      if (d.what == 0) {
        api.restart();
        ++restarts;
      } else if (d.what == 1) {
        api.compact();
        api.expire_streams();
        ++compactions;
      } else {
        api.bookmark();
        ++bookmarks;
      }
    }
  });

  std::vector<Sample> samples;
  bool died = false;
  for (auto next = start; wait_until(next); next += sec(o.sample_every)) {
    Sample s;
    if (!sample_process(extender.pid(), std::chrono::duration<double>(Clock::now() - start).count(), s)) {
      died = true;
      break;
    }
    s.heap_kib = heap_in_use_kib(port);
    samples.push_back(s);
  }
  {
    std::lock_guard lock(mu);
    stop = true;
  }
  cv.notify_all();
  churner.join();
  faults.join();
  const double traffic_s = std::chrono::duration<double>(Clock::now() - start).count();
  const int load_exit = kext::testing::wait_child(load_pid, 60s);
  load_pid = -1;

  // Converged: the cache equals a from-scratch build of the server's objects (bind assumptions resolve
  // within --bind-assume-ttl-seconds, 30 s, so a minute bounds the wait).
  std::string want, got;
  bool equal = false;
  const auto converge_start = Clock::now();
  while (!died && Clock::now() - converge_start < 60s) {
    want = kext::testing::dump_from_scratch(api);
    if (http_get(port, "/debug/state", reply) && reply.status == 200) got = reply.body;
    if (want == got) {
      equal = true;
      break;
    }
    std::this_thread::sleep_for(200ms);
  }
  const double converge_s = std::chrono::duration<double>(Clock::now() - converge_start).count();
  if (!equal) {
    std::ofstream(work / "state.expected") << want;
    std::ofstream(work / "state.cached") << got;
  }

  int extender_exit = -1;
  if (!died) {
    kill(extender.pid(), SIGTERM);
    extender_exit = extender.wait_exit(30s);
  }
  extender_pid = -1;
  const std::string extender_log = extender.log();
  const auto bindings = api.bindings().size();

  // extender-load's report.
  std::string load_text;
  kext::read_whole_file((work / "load.json").string(), load_text);
  rapidjson::Document lr;
  lr.Parse(load_text.data(), load_text.size());
  const bool load_ok =
      !lr.HasParseError() && lr.IsObject() && lr.HasMember("verbs") && lr.HasMember("errors");
  static const rapidjson::Value kNull;
  const rapidjson::Value& verbs = load_ok ? lr["verbs"] : kNull;
  uint64_t conflicts = 0, gone = 0;
  if (load_ok && lr.HasMember("expected") && lr["expected"].IsArray()) {
    for (const auto& e : lr["expected"].GetArray()) {
      const std::string text = e["text"].GetString();
      (text.find("409") != std::string::npos ? conflicts : gone) += e["count"].GetUint64();
    }
  }
  const uint64_t unexpected = load_ok ? member_u64(lr["errors"], "total") : 0;
  const auto verb = [&](const char* v) -> const rapidjson::Value& {
    return load_ok && verbs.HasMember(v) ? verbs[v] : kNull;
  };
  const uint64_t bind_requests = member_u64(verb("bind"), "requests");
  const uint64_t bound =
      bind_requests - std::min(bind_requests, conflicts + gone + member_u64(verb("bind"), "errors"));

  // Warm-up: the first period, which holds a restart and a compaction with their relists, the churned
  // pods at their steady number, every worker and connection in use and the decision log filled. The
  // baseline is the first quarter after it, the end the last quarter.
  //
  // A leak is judged on the heap in use, not on RSS: RSS also carries glibc's free pages and
  // fragmentation, which climb over the first minutes of this load and then level off while the live
  // heap stays flat (heaptrack; docs/performance.md). Without a leak the RSS drift between runs spread
  // wide enough to fail a tight limit at random, and the same bytes leaked are a larger share of the
  // heap (as mallinfo2 counts it) than of RSS, so the heap check is also the stricter one. RSS keeps a guard
  // against runaway growth outside the heap (stacks, mappings): it must not end above the highest it
  // reached up to the baseline's end (warm-up relists included) by more than rss_limit. That limit is
  // looser than the heap's because the allocator alone moves RSS (most on a CI run sharing the cores
  // with a compile); a leak is the heap check's to catch.
  const double warm = o.period;
  const double quarter = (o.seconds - warm) / 4;
  std::vector<double> base_rss, end_rss, base_heap, end_heap;
  int base_fd_max = 0, end_fd_min = INT32_MAX, base_thr_max = 0, end_thr_min = INT32_MAX;
  std::vector<double> base_fds, end_fds, base_thr, end_thr;
  double rss_max = 0, rss_early_peak = 0;
  size_t heap_missing = 0;
  for (const auto& s : samples) {
    rss_max = std::max(rss_max, s.rss_kib);
    if (s.heap_kib <= 0) ++heap_missing;
    if (s.t < warm + quarter) rss_early_peak = std::max(rss_early_peak, s.rss_kib);
    if (s.t >= warm && s.t < warm + quarter) {
      base_rss.push_back(s.rss_kib);
      if (s.heap_kib > 0) base_heap.push_back(s.heap_kib);
      base_fds.push_back(s.fds);
      base_thr.push_back(s.threads);
      base_fd_max = std::max(base_fd_max, s.fds);
      base_thr_max = std::max(base_thr_max, s.threads);
    }
    if (s.t >= o.seconds - quarter) {
      end_rss.push_back(s.rss_kib);
      if (s.heap_kib > 0) end_heap.push_back(s.heap_kib);
      end_fds.push_back(s.fds);
      end_thr.push_back(s.threads);
      end_fd_min = std::min(end_fd_min, s.fds);
      end_thr_min = std::min(end_thr_min, s.threads);
    }
  }
  const auto percent = [](double from, double to) { return from > 0 ? (to - from) / from * 100 : 0; };
  const double rss_base = median(base_rss), rss_end = median(end_rss);
  const double drift = percent(rss_base, rss_end);
  const double over_peak = percent(rss_early_peak, rss_end);
  const double heap_base = median(base_heap), heap_end = median(end_heap);
  const double heap_drift = percent(heap_base, heap_end);
  {
    std::ofstream tsv(work / "samples.tsv");
    tsv << "seconds\trss_kib\theap_kib\tthreads\tfds\n";
    for (const auto& s : samples)
      tsv << fixed(s.t, 1) << "\t" << s.rss_kib << "\t" << fixed(s.heap_kib, 0) << "\t" << s.threads << "\t"
          << s.fds << "\n";
  }
  size_t bad_objects = 0;
  for (size_t at = 0; (at = extender_log.find("does not decode", at)) != std::string::npos; ++at)
    ++bad_objects;
  size_t log_lines = std::count(extender_log.begin(), extender_log.end(), '\n');

  std::vector<std::string> failures;
  if (died) failures.push_back("kube-extender died during the run");
  if (!load_ok) failures.push_back("extender-load gave no report (exit " + std::to_string(load_exit) + ")");
  if (unexpected > 0) failures.push_back(std::to_string(unexpected) + " unexpected errors");
  for (const char* v : {"filter", "prioritize", "preempt", "bind"})
    if (member_u64(verb(v), "requests") == 0) failures.push_back(std::string("no ") + v + " requests");
  if (bound != bindings)
    failures.push_back("binds: " + std::to_string(bound) + " replied bound, the API server saw " +
                       std::to_string(bindings));
  if (base_rss.size() < 3 || end_rss.size() < 3 || base_heap.size() < 3 || end_heap.size() < 3)
    failures.push_back("too few samples after warm-up");
  if (heap_missing > 0)
    failures.push_back(std::to_string(heap_missing) + " samples without the heap from /metrics");
  if (heap_drift > o.heap_limit)
    failures.push_back("heap in use drift " + fixed(heap_drift, 1) + " % > " + fixed(o.heap_limit, 1) + " %");
  if (over_peak > o.rss_limit)
    failures.push_back("RSS ended " + fixed(over_peak, 1) + " % over its early peak > " +
                       fixed(o.rss_limit, 1) + " %");
  if (!end_fds.empty() && end_fd_min > base_fd_max) failures.push_back("file descriptors grew");
  if (!end_thr.empty() && end_thr_min > base_thr_max) failures.push_back("threads grew");
  if (!equal) failures.push_back("the cache differs from a from-scratch build");
  if (bad_objects > 0) failures.push_back(std::to_string(bad_objects) + " objects did not decode");
  if (restarts == 0 || compactions == 0) failures.push_back("no restart or no compaction happened");
  if (!died && extender_exit != 0)
    failures.push_back("kube-extender exit " + std::to_string(extender_exit) + " after SIGTERM");

  const auto mib = [](double kib) { return fixed(kib / 1024, 1) + " MiB"; };
  std::string requests;
  uint64_t total = 0;
  for (const char* v : {"filter", "prioritize", "preempt", "bind"}) {
    requests +=
        std::string(requests.empty() ? "" : ", ") + v + " " + std::to_string(member_u64(verb(v), "requests"));
    total += member_u64(verb(v), "requests");
  }
  std::string out;
  out += "\nsoak: " + fixed(o.seconds, 0) + " s, warm-up " + fixed(warm, 0) + " s, " +
         std::to_string(cluster.nodes.size()) + " nodes, " + std::to_string(cluster.pods) +
         " running pods, " + std::to_string(cluster.pdbs) + " PDBs\n";
  out += "| what | value |\n|---|---|\n";
  out += "| duration | " + fixed(traffic_s, 1) + " s of traffic and churn, then " + fixed(converge_s, 1) +
         " s to compare |\n";
  out += "| requests | " + requests + " (" + std::to_string(total) + ", " +
         fixed(total / std::max(traffic_s, 1.0), 0) + "/s on " + std::to_string(o.connections) +
         " connections) |\n";
  out += "| unexpected errors | " + std::to_string(unexpected) + " |\n";
  out += "| bind outcomes | " + std::to_string(bound) + " bound (API server: " + std::to_string(bindings) +
         "), " + std::to_string(conflicts) + " already bound (409), " + std::to_string(gone) +
         " pod gone (404) |\n";
  out += "| churn applied | " + std::to_string(churn.counts.total()) + " pod events (" +
         std::to_string(churn.counts.created) + " created, " + std::to_string(churn.counts.updated) +
         " updated, " + std::to_string(churn.counts.deleted) + " deleted) + " + std::to_string(bindings) +
         " binds |\n";
  out += "| faults | " + std::to_string(restarts) + " restarts, " + std::to_string(compactions) +
         " compactions (410 on every open stream), " + std::to_string(bookmarks) + " bookmarks; " +
         std::to_string(api.lists_served()) + " lists and " + std::to_string(api.watches_served()) +
         " watches served; " + std::to_string(log_lines) + " extender log lines |\n";
  const auto signed_percent = [](double p) { return (p >= 0 ? "+" : "") + fixed(p, 2) + " %"; };
  out += "| heap in use | baseline " + mib(heap_base) + ", end " + mib(heap_end) + ", drift " +
         signed_percent(heap_drift) + " (limit " + fixed(o.heap_limit, 0) + " %) |\n";
  out += "| RSS | baseline " + mib(rss_base) + ", end " + mib(rss_end) + ", drift " + signed_percent(drift) +
         "; peak to the baseline's end " + mib(rss_early_peak) + ", end vs that " +
         signed_percent(over_peak) + " (limit " + fixed(o.rss_limit, 0) + " %); max " + mib(rss_max) + "; " +
         std::to_string(samples.size()) + " samples |\n";
  out += "| fds | baseline " + fixed(median(base_fds), 0) + " (max " + std::to_string(base_fd_max) +
         "), end " + fixed(median(end_fds), 0) + " (min " +
         std::to_string(end_fd_min == INT32_MAX ? 0 : end_fd_min) + ") |\n";
  out += "| threads | baseline " + fixed(median(base_thr), 0) + " (max " + std::to_string(base_thr_max) +
         "), end " + fixed(median(end_thr), 0) + " (min " +
         std::to_string(end_thr_min == INT32_MAX ? 0 : end_thr_min) + ") |\n";
  out += "| cache equals a from-scratch build | " + std::string(equal ? "yes" : "NO") + " |\n";
  out += "| shutdown | " +
         (died ? std::string("died") : "exit " + std::to_string(extender_exit) + " after SIGTERM") + " |\n";
  std::cout << out;
  if (unexpected > 0 && lr["errors"].HasMember("first") && lr["errors"]["first"].IsArray()) {
    std::cout << "first unexpected errors:\n";
    for (const auto& e : lr["errors"]["first"].GetArray()) std::cout << "  " << e.GetString() << "\n";
  }
  if (!equal)
    std::cout << "cache difference (" << (work / "state.expected").string() << " vs state.cached):\n"
              << difference(want, got, 5);
  if (failures.empty()) {
    std::cout << "soak: PASS" << std::endl;
    return 0;
  }
  std::cout << "soak: FAIL:";
  for (const auto& f : failures) std::cout << " " << f << ";";
  std::cout << std::endl;
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    if (!parse_options(argc, argv, o)) return 0;
  } catch (const std::exception& e) {
    std::cerr << "soak-driver: " << e.what() << "\n(soak-driver --help lists the flags)\n";
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "soak-driver: " << e.what() << std::endl;
    return 1;
  }
}
