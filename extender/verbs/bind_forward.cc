#include "extender/verbs/bind_forward.h"

#include <thread>
#include <utility>

#include "algorithms/namespaced_key.h"
#include "json/json.h"

namespace kext {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// While the Lease has no holder: how often to look again. A released Lease is taken at the next
// candidate's attempt, which nudge() makes immediate.
constexpr milliseconds kHolderPoll{50};
// After a holder could not be connected to, the forwards that follow within this time fail at once
// instead of each holding a worker for a connect timeout (a killed pod's address may not answer at all):
// the Lease names a dead holder until it runs out (15 s by default). One forward tries again after it.
constexpr milliseconds kUnreachableFor{1000};
// Holder URLs kept with their connections; a holder that changes more often than this is not kept.
constexpr size_t kMaxHolderClients = 8;

struct InFlight {
  explicit InFlight(std::atomic<size_t>& n) : n_(n) { n_.fetch_add(1, std::memory_order_acq_rel); }
  ~InFlight() { n_.fetch_sub(1, std::memory_order_acq_rel); }
  std::atomic<size_t>& n_;
};

// How one post to the holder that brought no answer to relay failed: the ForwardFailure it counts as and
// the words the refusal gives it.
std::pair<ForwardFailure, std::string> post_failure(const kube::ApiResponse& r) {
  // Stepping down (SIGTERM: it lets go before it writes the Lease) or past its renew deadline.
  if (r.status == kNotHolderStatus) return {ForwardFailure::kNotHolder, "no longer holds it"};
  if (r.never_sent()) return {ForwardFailure::kConnect, "no connection: " + r.describe()};
  return {ForwardFailure::kNoReply, "no reply: " + r.describe()};
}

}  // namespace

BindForwarder::BindForwarder(kube::LeaderElector& elector, ForwardConfig config, Metrics* metrics, Now now)
    : elector_(elector),
      config_(std::move(config)),
      metrics_(metrics),
      now_(now ? std::move(now) : Now(Clock::now)) {}

BindForwarder::~BindForwarder() = default;

milliseconds BindForwarder::timeout() const { return elector_.config().forward_timeout; }

std::shared_ptr<kube::ApiClient> BindForwarder::client_for(const std::string& url) const {
  std::lock_guard lock(clients_mu_);
  auto it = clients_.find(url);
  if (it != clients_.end()) return it->second;
  if (clients_.size() >= kMaxHolderClients) clients_.clear();
  kube::ApiConfig cfg;
  kube::set_server_url(cfg, url);
  if (config_.tls) {
    cfg.ca_pem = config_.ca_pem;
    cfg.client_cert_pem = config_.client_cert_pem;
    cfg.client_key_pem = config_.client_key_pem;
    cfg.verify_hostname = false;
  }
  kube::ApiClient::Timeouts timeouts;
  timeouts.connect = std::min(milliseconds(1000), timeout());
  timeouts.request = timeout();
  auto client = std::make_shared<kube::ApiClient>(std::move(cfg), timeouts);
  client->errors().set_enabled(
      false);  // not the API server: kube_extender_bind_forward_failures_total counts these
  clients_.emplace(url, client);
  return client;
}

kube::LeaseHolder BindForwarder::await_holder(Clock::time_point deadline,
                                              const kube::LeaseHolder& stepping_down) const {
  kube::LeaseHolder h = elector_.lease_holder();
  while ((h.identity.empty() || h == stepping_down) && !elector_.is_leader() &&
         now_() + kHolderPoll < deadline) {
    elector_.nudge();
    std::this_thread::sleep_for(kHolderPoll);
    elector_.refresh();
    h = elector_.lease_holder();
  }
  return h;
}

std::optional<milliseconds> BindForwarder::unreachable_for(const kube::LeaseHolder& h) const {
  std::lock_guard lock(unreachable_mu_);
  if (!(unreachable_ == h)) return std::nullopt;
  const auto ago = std::chrono::duration_cast<milliseconds>(now_() - unreachable_at_);
  return ago < kUnreachableFor ? std::optional(ago) : std::nullopt;
}

void BindForwarder::mark_unreachable(const kube::LeaseHolder& h) const {
  std::lock_guard lock(unreachable_mu_);
  unreachable_ = h;
  unreachable_at_ = now_();
}

std::string BindForwarder::no_holder_reason(const kube::LeaseHolder& h,
                                            const kube::LeaseHolder& stepping_down) const {
  if (h.identity.empty() || h == stepping_down)
    return "no other replica took the Lease within " + std::to_string(timeout().count()) + " ms";
  return "its holder " + h.identity + " publishes no address (annotation " + kube::kAdvertiseAnnotation + ")";
}

std::optional<Reply> BindForwarder::forward(std::string_view body, const BindingArgs& args) const {
  return forward(kHolderBindRoute, body, "binding pod " + namespaced_key(args.pod_namespace, args.pod_name),
                 "bind");
}

std::optional<Reply> BindForwarder::forward(std::string_view route, std::string_view body,
                                            const std::string& what, std::string_view verb) const {
  const auto start = now_();
  const auto deadline = start + timeout();
  const std::string lease = namespaced_key(elector_.config().lease_namespace, elector_.config().lease_name);
  Metrics* const metrics = route == kHolderBindRoute ? metrics_ : nullptr;
  auto fail = [&](ForwardFailure cause) {
    if (metrics) metrics->count_forward_failure(cause);
  };
  auto observe = [&] {
    if (metrics) metrics->observe_forward(std::chrono::duration<double>(now_() - start).count());
  };
  auto refused = [&](const std::string& why) {
    observe();
    return Reply{200, json::error_body("not " + what + ": replica " + elector_.identity() +
                                       " does not hold the Lease " + lease + ", and " + why)};
  };

  std::string attempts;  // "; "-separated, one per failed attempt
  auto note = [&attempts](const std::string& what) { attempts += (attempts.empty() ? "" : "; ") + what; };
  // A forward that waits for a holder or retries holds its worker for longer: it takes a place first.
  std::optional<InFlight> waiting;
  auto may_wait = [&] {
    if (waiting) return true;
    waiting.emplace(waiting_);
    if (waiting_.load(std::memory_order_acquire) <= config_.max_waiting) return true;
    fail(ForwardFailure::kBusy);
    note(std::to_string(config_.max_waiting) + " " + std::string(verb) +
         "s are already waiting for the holder");
    return false;
  };
  kube::LeaseHolder stepping_down;  // answered that it no longer holds the Lease, which still names it
  for (int attempt = 0; attempt < 2; ++attempt) {
    kube::LeaseHolder h = elector_.lease_holder();
    const bool no_holder = h.identity.empty() || h == stepping_down;
    if ((attempt > 0 || no_holder) && !may_wait()) break;
    if (no_holder) h = await_holder(deadline, stepping_down);
    if (elector_.is_leader()) return std::nullopt;
    if (h.identity.empty() || h.url.empty() || h == stepping_down) {
      fail(ForwardFailure::kNoHolder);
      note(no_holder_reason(h, stepping_down));
      break;
    }
    if (std::optional<milliseconds> ago = unreachable_for(h)) {
      fail(ForwardFailure::kUnreachable);
      note("holder " + h.identity + " at " + h.url + ": no connection " + std::to_string(ago->count()) +
           " ms ago, not tried again yet");
      elector_.refresh();
      continue;
    }
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - now_());
    if (left <= milliseconds(0)) {
      note("no time left for holder " + h.identity);
      break;
    }
    const kube::ApiResponse r = client_for(h.url)->post("/" + std::string(route), body, left);
    if (r.status != 0 && r.status != kNotHolderStatus) {
      observe();
      return Reply{r.status, r.body};
    }
    const auto [cause, failure] = post_failure(r);
    if (cause == ForwardFailure::kNotHolder) stepping_down = h;
    if (cause == ForwardFailure::kConnect) mark_unreachable(h);
    fail(cause);
    note("holder " + h.identity + " at " + h.url + ": " + failure);
    elector_.refresh();
  }
  return refused("passing the " + std::string(verb) + " on failed: " + attempts);
}

kube::ApiResponse BindForwarder::ask_holder(std::string_view route, std::string_view body,
                                            milliseconds limit) const {
  const kube::LeaseHolder h = elector_.lease_holder();
  kube::ApiResponse r;
  if (h.identity.empty() || h.url.empty()) {
    r.error = "the Lease names no holder to ask";
  } else if (unreachable_for(h)) {
    r.error = "holder " + h.identity + " at " + h.url + " could not be connected to just now";
  } else {
    r = client_for(h.url)->post("/" + std::string(route), body, limit);
    if (r.never_sent()) mark_unreachable(h);
  }
  return r;
}

}  // namespace kext
