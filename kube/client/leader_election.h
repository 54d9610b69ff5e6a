#pragma once
// One binder among the replicas: a coordination.k8s.io/v1 Lease acquired, renewed and released as
// client-go does it (tools/leaderelection/leaderelection.go: tryAcquireOrRenew, renew, release), with
// kube-scheduler's default durations. Only the holder creates Bindings, so every assumption (a bound
// pod counted against its node before the watch shows it) lives in one cache. The holder also writes
// where it serves (kAdvertiseAnnotation), so that a replica that does not hold the Lease can pass a
// /bind on to it (extender/verbs/bind_forward.h).
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "kube/client/api_client.h"

namespace kext::kube {

// The Lease annotation in which the holder publishes the URL it serves the verbs at.
inline constexpr const char* kAdvertiseAnnotation = "kube-extender.io/holder-url";

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-extender";
  std::string lease_name = "kube-extender";
  std::string identity;  // empty = hostname + "_" + random, as kube-scheduler's default
  // Written to kAdvertiseAnnotation while this replica holds the Lease; empty = none.
  std::string advertise_url;
  // A replica that does not hold the Lease passes a /bind on to the holder within this time, its retry
  // included (--bind-forward-timeout); below the scheduler's httpTimeout.
  std::chrono::milliseconds forward_timeout{3000};
  // client-go's and kube-scheduler's defaults (--leader-elect-lease-duration etc.).
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
};

// "hostname_<16 hex digits>".
std::string default_identity();

// The holder as the Lease last named it.
struct LeaseHolder {
  std::string identity;  // "" when nobody holds the Lease
  std::string url;       // its kAdvertiseAnnotation; "" when it published none
  bool operator==(const LeaseHolder&) const = default;
};

struct LeaseRecord;

class LeaderElector {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Attempt { kHeld, kHeldByOther, kFailed };

  // on_change(true/false) runs on the election thread when this replica gains or loses the lease.
  LeaderElector(ApiClient& api, LeaderElectionConfig config, std::function<void(bool)> on_change = {});
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // The URL this replica publishes while it holds the Lease; before start() (the port is known only
  // once the server is bound).
  void set_advertise_url(std::string url) { config_.advertise_url = std::move(url); }
  // Tries to acquire every retry period; once held, renews every retry period.
  void start();
  // Stops the loop and, if this replica holds the lease, releases it (holder "", duration 1 s) so that
  // another replica takes over at its next retry instead of after a lease duration.
  void stop();

  // Held, and renewed less than renew_deadline ago (a replica cut off from the API stops binding
  // before any other replica may consider the lease expired).
  bool is_leader() const;
  // The holder last seen in the Lease ("" when none).
  std::string holder() const;
  LeaseHolder lease_holder() const;
  // Reads the Lease once (a GET, nothing written) and updates lease_holder(). Calls from many threads
  // share one read: a call that finds a read started after its own call began returns its result.
  void refresh();
  // Wakes the election loop for an attempt now instead of at the next retry period (a bind saw the
  // Lease without a holder: this replica may take it at once).
  void nudge();
  const std::string& identity() const { return config_.identity; }
  const LeaderElectionConfig& config() const { return config_; }
  // Why the last attempt on the Lease failed ("creating Lease kube-extender/kube-extender: HTTP 404:
  // namespaces \"kube-extender\" not found"); "" when it succeeded. Conflicts with another replica's
  // write are races, not failures, and leave it as it was.
  std::string last_error() const;

  // One round of client-go's tryAcquireOrRenew; updates what is_leader() answers.
  Attempt try_acquire_or_renew();
  // Gives the lease up if this replica holds it; true when released (or not held).
  bool release();

 private:
  void run();
  std::string lease_path() const;
  void set_held(bool held, Clock::time_point renewed);
  // Records a Lease read at t; mu_ held.
  void note_read(const LeaseRecord& read, Clock::time_point t);
  void observe(const std::string& fingerprint, const LeaseHolder& holder, Clock::time_point t);
  // An attempt's outcome for last_error(), logged when its cause changes.
  Attempt failed(const char* doing, const ApiResponse& r);
  void succeeded();
  std::string lease_key() const;

  ApiClient& api_;
  LeaderElectionConfig config_;
  std::function<void(bool)> on_change_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool nudged_ = false;
  bool held_ = false;
  Clock::time_point renewed_{};        // start of the last successful acquire or renew
  std::string observed_record_;        // the Lease spec last seen, to notice changes
  Clock::time_point observed_time_{};  // when it last changed (client-go's observedTime)
  LeaseHolder observed_holder_;
  std::string last_error_;
  std::thread thread_;

  std::mutex refresh_mu_;  // one refresh() read at a time
  Clock::time_point last_refresh_start_{};
};

}  // namespace kext::kube
