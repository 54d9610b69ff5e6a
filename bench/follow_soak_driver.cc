// follow-soak-driver (run by bench/follow_soak): the real `extender-sim --follow` watching the in-repo
// API server while that server churns pods as a live cluster does (each pod created pending, bound
// by a scripted production scheduler half a second later, deleted after its lifetime) and expires
// every watch now and then (410: relists); the follower's RSS is sampled all along. Fails if the last
// RSS exceeds the RSS after warm-up by more than --rss-limit percent, if the follower stops
// answering /healthz, if it does not exit 0 on SIGTERM, if --html or --log are missing, or if it sent
// anything but GET requests.
#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "common/cli.h"
#include "common/read_file.h"
#include "tests/support/child_process.h"
#include "tests/support/fake_apiserver.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Options {
  double seconds = 3600;  // churn and sampling
  std::string sim;        // the extender-sim binary
  std::string work;       // scratch directory: kubeconfig, the follower's files, rss.tsv
  int nodes = 50;
  int pods_per_node = 10;     // running before the follow starts
  double churn = 300;         // pods created per minute
  double lifetime = 60;       // seconds a churned pod runs once bound
  double sample_every = 60;   // RSS sampling interval, seconds
  double warmup = 0;          // 0: max(120 s, seconds / 6), at least one sample before the end
  double expire_every = 300;  // every watch ends with 410 this often (a relist)
  double rss_limit = 5;       // % the last RSS may exceed the RSS after warm-up
  // The follower's Divergence keeps this many deleted pods' rows (its default row_limit): its memory
  // grows until that many churned pods are gone, which the warm-up must cover.
  double rows = 10000;
  std::vector<std::string> configs;  // the follower's --config files (none: its embedded default)
};

bool parse_options(int argc, char** argv, Options& o) {
  CLI::App app("follow-soak-driver: extender-sim --follow against the in-repo API server under churn",
               "follow-soak-driver");
  kext::cli::configure(app);
  app.add_option("--seconds", o.seconds, "churn and sampling")->check(CLI::Range(30.0, 86400.0));
  app.add_option("--sim", o.sim, "the extender-sim binary")->required()->type_name("BIN");
  app.add_option("--work", o.work, "scratch directory (kubeconfig, follow.html, follow.jsonl, rss.tsv)")
      ->required()
      ->type_name("DIR");
  app.add_option("--nodes", o.nodes, "nodes of the cluster")->check(CLI::Range(1, 100000));
  app.add_option("--pods-per-node", o.pods_per_node, "pods running on each node before the follow starts")
      ->check(CLI::Range(0, 110));
  app.add_option("--churn", o.churn, "pods created per minute")->check(CLI::Range(1.0, 100000.0));
  app.add_option("--lifetime", o.lifetime, "seconds a churned pod runs once bound")
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--sample-every", o.sample_every, "RSS sampling interval, seconds")
      ->check(CLI::Range(1.0, 3600.0));
  app.add_option("--warmup", o.warmup,
                 "seconds before the reference RSS (default: max(120, S/6, until --rows pods were deleted))")
      ->check(CLI::Range(0.0, 86400.0));
  app.add_option("--rows", o.rows, "deleted pods' rows the follower keeps (Divergence's row_limit)")
      ->check(CLI::Range(0.0, 1e7));
  app.add_option("--expire-every", o.expire_every, "seconds between 410s on every watch")
      ->check(CLI::Range(5.0, 86400.0));
  app.add_option("--config", o.configs, "a configuration for the follower to simulate (repeatable)")
      ->type_name("FILE");
  app.add_option("--rss-limit", o.rss_limit, "% the last RSS may exceed the RSS after warm-up")
      ->check(CLI::Range(0.0, 1000.0));
  if (!kext::cli::parse(app, argc, argv)) {
    std::cout << kext::cli::help_text(app);
    return false;
  }
  // Its rows fill once --rows churned pods were deleted: --lifetime after --rows creations, plus a
  // relist's worth of slack.
  if (o.warmup == 0) o.warmup = std::max({120.0, o.seconds / 6, 60 * o.rows / o.churn + o.lifetime + 30});
  if (o.warmup > o.seconds - 2 * o.sample_every) {
    std::cerr << "follow-soak-driver: the warm-up (" << o.warmup << " s) leaves less than two samples of "
              << o.seconds << " s; measuring from " << o.seconds / 2 << " s\n";
    o.warmup = o.seconds / 2;
  }
  return true;
}

std::string node_json(const std::string& name) {
  return R"({"metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" + name +
         R"("}},"status":{"allocatable":{"cpu":"16","memory":"64Gi","pods":"110"}}})";
}

std::string pod_json(const std::string& name, const std::string& node, const std::string& cpu,
                     const std::string& owner) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"soak","uid":"uid-)" + name +
         R"(","ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":")" + owner +
         R"(","uid":"rs-)" + owner + R"(","controller":true}]},"spec":{)" +
         (node.empty() ? "" : R"("nodeName":")" + node + R"(",)") +
         R"("priority":0,"containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
         R"(","memory":"256Mi"}}}]},"status":{"phase":")" + (node.empty() ? "Pending" : "Running") + R"("}})";
}

double rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr);
  return 0;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

int run(const Options& o) {
  fs::create_directories(o.work);
  kext::testing::FakeApiServer api;
  std::vector<std::string> nodes;
  for (int i = 0; i < o.nodes; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "node-%05d", i);
    nodes.emplace_back(name);
    api.put("nodes", node_json(name));
    for (int k = 0; k < o.pods_per_node; ++k)
      api.put("pods", pod_json(std::string(name) + "-run-" + std::to_string(k), name, "500m", "base"));
  }
  const std::string kubeconfig = o.work + "/kubeconfig";
  { std::ofstream(kubeconfig) << api.kubeconfig(); }
  const std::string html = o.work + "/follow.html", log = o.work + "/follow.jsonl";
  const std::string out = o.work + "/follow.out", err = o.work + "/follow.err";
  std::vector<std::string> argv{o.sim,         "--follow", "--kubeconfig", kubeconfig, "--listen",
                                "127.0.0.1:0", "--html",   html,           "--log",    log};
  for (const std::string& c : o.configs) argv.insert(argv.end(), {"--config", c});
  const pid_t pid = kext::testing::spawn_child(argv, out, err);
  if (pid <= 0) {
    std::cerr << "follow-soak: cannot start " << o.sim << "\n";
    return 1;
  }
  // Its port, from "live page http://127.0.0.1:PORT/".
  int port = 0;
  for (auto end = Clock::now() + 30s; port == 0 && Clock::now() < end; std::this_thread::sleep_for(50ms)) {
    std::string text;
    kext::read_whole_file(err, text);
    std::smatch m;
    if (std::regex_search(text, m, std::regex("http://127\\.0\\.0\\.1:([0-9]+)/"))) port = std::stoi(m[1]);
  }
  if (port == 0) {
    std::cerr << "follow-soak: the follower did not start; its stderr is in " << err << "\n";
    kext::testing::kill_child(pid);
    return 1;
  }
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(10, 0);

  std::vector<std::string> failures;
  std::vector<std::pair<double, double>> samples;  // (seconds, RSS KiB)
  struct Churned {
    Clock::time_point at;
    std::string name;
    std::string node;
  };
  std::deque<Churned> to_bind, to_delete;
  std::vector<int> churn_on(nodes.size(), 0);
  uint64_t created = 0, bound = 0, deleted = 0, expiries = 0;
  const auto start = Clock::now();
  const auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  const auto create_every =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(60.0 / o.churn));
  const auto lifetime =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.lifetime));
  auto next_create = start, next_sample = start,
       next_expire =
           start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.expire_every));
  const char* cpus[] = {"100m", "250m", "500m", "200m"};
  while (Clock::now() < end) {
    const auto now = Clock::now();
    while (next_create <= now) {
      const std::string name = "churn-" + std::to_string(created);
      api.put("pods", pod_json(name, "", cpus[created % 4], "rs-" + std::to_string(created % 7)));
      to_bind.push_back({now + 500ms, name, ""});
      ++created;
      next_create += create_every;
    }
    while (!to_bind.empty() && to_bind.front().at <= now) {
      // Production spreads: the node with the fewest churned pods.
      Churned c = std::move(to_bind.front());
      to_bind.pop_front();
      const size_t n =
          static_cast<size_t>(std::min_element(churn_on.begin(), churn_on.end()) - churn_on.begin());
      ++churn_on[n];
      const std::string cpu = cpus[std::stoull(c.name.substr(6)) % 4];
      const std::string owner = "rs-" + std::to_string(std::stoull(c.name.substr(6)) % 7);
      api.update("pods", "soak/" + c.name, [&](const std::string&) -> std::optional<std::string> {
        return pod_json(c.name, nodes[n], cpu, owner);
      });
      ++bound;
      to_delete.push_back({now + lifetime, c.name, nodes[n]});
    }
    while (!to_delete.empty() && to_delete.front().at <= now) {
      const Churned& c = to_delete.front();
      api.remove("pods", "soak/" + c.name);
      --churn_on[static_cast<size_t>(std::find(nodes.begin(), nodes.end(), c.node) - nodes.begin())];
      ++deleted;
      to_delete.pop_front();
    }
    if (next_expire <= now) {
      api.expire_streams();  // a 410 on every open watch: the follower relists
      ++expiries;
      next_expire +=
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.expire_every));
    }
    if (next_sample <= now) {
      const double t = std::chrono::duration<double>(now - start).count();
      const double rss = rss_kib(pid);
      if (rss <= 0) {
        failures.push_back("the follower exited early; its stderr is in " + err);
        break;
      }
      auto health = client.Get("/healthz");
      if (!health || health->status != 200)
        failures.push_back("/healthz did not answer at " + fixed(t, 0) + " s");
      samples.emplace_back(t, rss);
      std::cout << "follow-soak: " << fixed(t, 0) << " s  RSS " << fixed(rss / 1024, 1)
                << " MiB  pods created " << created << ", bound " << bound << ", deleted " << deleted
                << ", 410s " << expiries << std::endl;
      next_sample +=
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.sample_every));
    }
    std::this_thread::sleep_for(10ms);
  }
  // The last sample at the end.
  const double t_end = std::chrono::duration<double>(Clock::now() - start).count();
  if (const double rss = rss_kib(pid); rss > 0) samples.emplace_back(t_end, rss);
  std::string metrics;
  if (auto res = client.Get("/metrics"); res && res->status == 200) metrics = res->body;
  kill(pid, SIGTERM);
  const int status = kext::testing::wait_child(pid, 60s);
  if (status != 0)
    failures.push_back("exit status " + std::to_string(status) + " after SIGTERM (stderr: " + err + ")");
  std::string text;
  if (!kext::read_whole_file(html, text) || text.find("<html") == std::string::npos)
    failures.push_back("--html " + html + " missing");
  if (!kext::read_whole_file(log, text) || text.empty()) failures.push_back("--log " + log + " missing");
  for (const auto& [method, path] : api.requests()) {
    if (method != "GET") {
      failures.push_back("the follower sent " + method + " " + path);
      break;
    }
  }

  std::ofstream tsv(o.work + "/rss.tsv");
  tsv << "seconds\trss_kib\n";
  for (const auto& [t, rss] : samples) tsv << fixed(t, 1) << "\t" << fixed(rss, 0) << "\n";
  double warm = 0, last = samples.empty() ? 0 : samples.back().second;
  for (const auto& [t, rss] : samples) {
    if (t >= o.warmup) {
      warm = rss;
      break;
    }
  }
  std::cout << "follow-soak: " << fixed(o.seconds, 0) << " s, " << created << " pods created, " << bound
            << " bound, " << deleted << " deleted, " << expiries << " 410s\n";
  std::cout << "follow-soak: RSS after warm-up (" << fixed(o.warmup, 0) << " s) " << fixed(warm / 1024, 1)
            << " MiB, at the end " << fixed(last / 1024, 1) << " MiB ("
            << (warm > 0 ? (last >= warm ? "+" : "") + fixed(100 * (last - warm) / warm, 1)
                         : std::string("?"))
            << " %, limit +" << fixed(o.rss_limit, 1) << " %)\n";
  for (const char* family : {"kube_extender_sim_follow_reflector_lists_total",
                             "kube_extender_sim_follow_decision_agreement_ratio"}) {
    std::istringstream lines(metrics);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind(family, 0) == 0) std::cout << "follow-soak: " << line << "\n";
  }
  if (warm <= 0)
    failures.push_back("no RSS sample after the warm-up");
  else if (last > warm * (1 + o.rss_limit / 100))
    failures.push_back("RSS grew " + fixed(100 * (last - warm) / warm, 1) + " % after warm-up > " +
                       fixed(o.rss_limit, 1) + " %");
  std::string summary;
  if (kext::read_whole_file(out, summary)) std::cout << summary;
  for (const auto& f : failures) std::cout << "follow-soak: FAIL: " << f << "\n";
  if (failures.empty()) std::cout << "follow-soak: PASS\n";
  return failures.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    if (!parse_options(argc, argv, o)) return 0;
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "follow-soak-driver: " << e.what() << "\n";
    return 2;
  }
}
