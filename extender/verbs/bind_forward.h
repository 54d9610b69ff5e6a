#pragma once
// A /bind that reaches a replica not holding the bind Lease is passed on to the replica that holds it,
// and the holder's reply is relayed. kube-scheduler keeps its keep-alive connections to the extender's
// Service, so each one stays on one replica: refusing binds there sent every pod bound through it back
// through the scheduler's backoff (pkg/scheduler/schedule_one.go: bind -> handleBindingCycleError) and
// starved its queue. Binding stays in one place (the holder creates every Binding and keeps every
// assumption), and the API server's refusal of a second Binding keeps a pod bound at most once.
//
// The holder publishes the URL it serves at in the Lease (kube::kAdvertiseAnnotation). A forward goes to
// kHolderBindRoute there, which a replica serves only while it holds the Lease and never passes on
// again: it answers kNotHolderStatus otherwise. One failed attempt (no connection, no reply, the
// replica reached no longer holding the Lease) rereads the Lease and tries its holder once more, within
// one deadline. While the Lease names no holder (it was just released), or still names the one that
// said it no longer holds it (it is releasing it), the forward waits for the next holder.
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "extender/observe/metrics.h"
#include "extender/verbs/preamble.h"
#include "kube/client/api_client.h"
#include "kube/client/leader_election.h"
#include "kube/codec/binding_args.h"

namespace kext {

// Where the holder takes forwarded binds, under the verbs' path prefix.
inline constexpr std::string_view kHolderBindRoute = "holder/bind";
// Where the holder takes a gang member's filter and preemption (extender/verbs/gang_replicas.h), and
// says which room it holds for gang members.
inline constexpr std::string_view kHolderFilterRoute = "holder/filter";
inline constexpr std::string_view kHolderPreemptRoute = "holder/preempt";
inline constexpr std::string_view kHolderGangRoomRoute = "holder/gang-room";
// What kHolderBindRoute answers on a replica that does not hold the Lease: 421 Misdirected Request.
inline constexpr int kNotHolderStatus = 421;

// The deadline of a whole forward, its retry and any wait for a holder included, is the elector's
// LeaderElectionConfig::forward_timeout.
struct ForwardConfig {
  // TLS to the holder when the verbs are served over TLS (the replicas share their settings): ca_pem is
  // what the holder's certificate must chain to (any certificate in it may be the anchor, the name is not
  // checked: replicas are reached by pod IP); the client pair is presented when the holder asks for one.
  bool tls = false;
  std::string ca_pem;
  std::string client_cert_pem;
  std::string client_key_pem;
  // Forwards that wait at once (for a holder, or to retry); more are answered with an Error at once, so
  // that waiting never occupies every worker (half of --threads). A first attempt never waits for a place.
  size_t max_waiting = 8;
};

class BindForwarder {
 public:
  // What deadlines and the unreachable holder's window are read from: steady_clock::now by default. A
  // test passes a clock it can move ahead instead of sleeping through a window.
  using Now = std::function<std::chrono::steady_clock::time_point()>;

  // elector must outlive the forwarder; metrics may be null.
  BindForwarder(kube::LeaderElector& elector, ForwardConfig config, Metrics* metrics, Now now = {});
  ~BindForwarder();

  // The holder's reply to `body` (args is the same request decoded), or an Error reply naming each
  // failed attempt. nullopt: this replica holds the Lease now, and binds the pod itself.
  std::optional<Reply> forward(std::string_view body, const BindingArgs& args) const;
  // The same for any holder route: `what` is what the replica would do itself ("filtering pod ns/name"),
  // `verb` what is passed on ("filter"), both for the Error. Counted in the bind forward metrics only
  // for binds.
  std::optional<Reply> forward(std::string_view route, std::string_view body, const std::string& what,
                               std::string_view verb) const;
  // One request to the holder the Lease names now, with no wait for one and no retry: for what is asked
  // often and may be a little stale (the held room). status 0 and an error when there is none to ask.
  kube::ApiResponse ask_holder(std::string_view route, std::string_view body,
                               std::chrono::milliseconds limit) const;
  // Forwards holding a place to wait now (ForwardConfig::max_waiting).
  size_t waiting() const { return waiting_.load(std::memory_order_acquire); }

 private:
  // The holder to try: waits, nudging the election, while the Lease names none or still names the
  // replica that has just answered that it no longer holds it.
  kube::LeaseHolder await_holder(std::chrono::steady_clock::time_point deadline,
                                 const kube::LeaseHolder& stepping_down) const;
  std::shared_ptr<kube::ApiClient> client_for(const std::string& url) const;
  std::chrono::milliseconds timeout() const;

  // How long ago the holder could not be connected to, when that was recent.
  std::optional<std::chrono::milliseconds> unreachable_for(const kube::LeaseHolder& h) const;
  void mark_unreachable(const kube::LeaseHolder& h) const;
  // Why there is no holder to post to: none took the Lease in time (or only the one stepping down
  // holds it), or the holder publishes no address.
  std::string no_holder_reason(const kube::LeaseHolder& h, const kube::LeaseHolder& stepping_down) const;

  kube::LeaderElector& elector_;
  ForwardConfig config_;
  Metrics* metrics_;
  const Now now_;
  mutable std::atomic<size_t> waiting_{0};
  mutable std::mutex unreachable_mu_;
  mutable kube::LeaseHolder unreachable_;
  mutable std::chrono::steady_clock::time_point unreachable_at_{};
  mutable std::mutex clients_mu_;
  mutable std::map<std::string, std::shared_ptr<kube::ApiClient>, std::less<>> clients_;  // by holder URL
};

}  // namespace kext
