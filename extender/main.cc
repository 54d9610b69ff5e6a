// kube-extender: a Kubernetes scheduler extender (filter, prioritize) with a map/reduce engine.
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "extender/http/server.h"
#include "extender/options.h"
#include "extender/state/snapshot_loader.h"

namespace {

kext::Server* g_server = nullptr;  // only for the signal handler: stop() is what a signal may call

void on_signal(int) {
  if (g_server) g_server->stop();
}

std::string read_file(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string(flag) + " " + path + ": cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  kext::Options opts;
  try {
    opts = kext::parse_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "kube-extender: " << e.what() << "\n" << kext::usage();
    return 2;
  }
  if (opts.help) {
    std::cout << kext::usage();
    return 0;
  }
  try {
    const std::string policy_text =
        opts.policy_file.empty() ? std::string(kext::default_policy_json()) : read_file(opts.policy_file, "--policy");
    kext::Policy policy;
    try {
      policy = kext::parse_policy(policy_text);
    } catch (const kext::PolicyError& e) {
      throw std::runtime_error("policy " + (opts.policy_file.empty() ? std::string("(embedded)") : opts.policy_file) +
                               ": " + e.what());
    }
    auto engine = kext::build_engine(policy);

    kext::StateStore store;
    if (!opts.snapshots.empty()) store.publish(kext::load_snapshot_files(opts.snapshots));

    kext::Verbs verbs(*engine, policy, store, opts.node_cache_entries);
    kext::Server server(opts.server, verbs, store);
    std::string error;
    if (!server.bind(&error)) throw std::runtime_error(error);
    g_server = &server;
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    auto state = store.current();
    std::cerr << "kube-extender " << KEXT_VERSION << " listening on " << opts.server.address << ":" << server.port()
              << opts.server.path_prefix << " (" << policy.predicates.size() << " predicates, "
              << policy.priorities.size() << " priorities, " << state->node_object_count() << " nodes, "
              << state->pods_by_uid.size() << " pods)" << std::endl;
    server.serve();
    std::cerr << "kube-extender: stopped" << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "kube-extender: " << e.what() << std::endl;
    return 1;
  }
}
