#pragma once
// extender-sim --follow: the live cluster of --kubeconfig (LiveStream: list and watch, GET only)
// mirrored into one simulation per --config (PolicyMirror), each on the wall clock (simulated time =
// seconds since the follow started), compared with production's placements (Divergence), served on
// --listen (/ the live page, /metrics, /healthz) until stop() or --duration; then --html and --log
// are written and a summary printed.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/follow/divergence.h"
#include "sim/follow/live_stream.h"
#include "sim/follow/mirror.h"
#include "sim/follow/production.h"
#include "sim/sim_options.h"

namespace kext::kube {
class ApiClient;
}

namespace kext::simtool::follow {

struct FollowTuning {
  std::chrono::milliseconds backoff_initial{800};  // the reflectors' first retry
  std::chrono::milliseconds sync_timeout{30000};   // the nodes' first list, before the pods'
  std::chrono::milliseconds idle_wake{1000};       // the loop's longest sleep without events
};

class Follower {
 public:
  // Loads every --config (InputError naming it), the kubeconfig (InputError naming --kubeconfig),
  // opens --log and binds --listen (InputError naming them). Nothing is requested from the API yet.
  // `err` gets the progress notes (where it serves, the first sync).
  Follower(const SimCommand& command, std::ostream& err, FollowTuning tuning = {});
  ~Follower();
  Follower(const Follower&) = delete;
  Follower& operator=(const Follower&) = delete;

  // Lists, watches and follows until stop() or --duration, then stops the reflectors. Call once.
  // Throws InputError naming --kubeconfig and the server when the nodes cannot be listed at the start
  // (three failed attempts or tuning.sync_timeout); later failures are retried, as a reflector does.
  void run();
  // From any thread (a signal's): run() returns soon after.
  void stop();

  // The port --listen serves on (its own, or the one chosen for port 0).
  int port() const { return port_; }
  Divergence& divergence() { return *divergence_; }
  std::vector<StreamStatus> stream_status() const;
  // What /metrics serves: Divergence::prometheus() and the reflectors' and policies' counters.
  std::string metrics() const;
  // Runs `f` on the mirrors while the loop is between batches (tests, the summary).
  void inspect(const std::function<void(const std::vector<std::unique_ptr<PolicyMirror>>&)>& f) const;
  uint64_t live_events() const { return live_events_.load(); }

  // After run(): writes --html (Divergence::html) and the rest of --log (Divergence::write_jsonl)
  // and returns the summary (agreement per policy). Throws InputError when a file cannot be written.
  std::string finish();

 private:
  void serve();
  void handle(std::vector<LiveEvent>& batch, sim::SimTime now);
  void track(const LiveEvent& e);
  // Each policy's verdict on production's binding, on production's cluster before it.
  void judge(const ProductionMirror::Binding& binding, sim::SimTime now);
  sim::SimTime since_start() const;

  SimCommand command_;
  std::ostream& err_;
  FollowTuning tuning_;
  std::chrono::steady_clock::time_point start_;
  std::unique_ptr<kube::ApiClient> api_;
  LiveEventQueue queue_;
  std::unique_ptr<LiveStream> stream_;
  // stream_ for the page and /metrics, which the HTTP threads serve while run() creates it.
  std::atomic<const LiveStream*> live_stream_{nullptr};
  std::unique_ptr<Divergence> divergence_;
  std::unique_ptr<std::ostream> log_;
  mutable std::mutex loop_mu_;  // held while a batch is applied
  std::vector<std::unique_ptr<PolicyMirror>> mirrors_;
  struct Http;
  std::unique_ptr<Http> http_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> live_events_{0};
  uint64_t skipped_ = 0;  // live events a simulation refused (the first few are reported on err_)

  ProductionMirror production_;
  // Production's side, for the Divergence: each live pod's node ("" pending), nodes in first-seen order.
  std::unordered_map<std::string, std::string> live_pods_;
  std::vector<std::string> node_order_;
  std::unordered_map<std::string, NodeFacts> nodes_;
  std::vector<PriorityClass> priority_classes_;
};

}  // namespace kext::simtool::follow
