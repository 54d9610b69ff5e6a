#include "kube/client/leader_election.h"

#include <unistd.h>

#include <random>

#include "algorithms/namespaced_key.h"
#include "common/log.h"
#include "common/rfc3339.h"
#include "json/json.h"

namespace kext::kube {

// The LeaseSpec fields client-go's LeaderElectionRecord carries, and the object's resourceVersion.
struct LeaseRecord {
  std::string holder;
  int64_t duration_seconds = 0;
  std::string acquire_time;
  std::string renew_time;
  int64_t transitions = 0;
  std::string url;  // metadata.annotations[kAdvertiseAnnotation]
  std::string resource_version;

  // What changes whenever any replica writes the Lease (client-go compares the whole record).
  std::string fingerprint() const {
    return holder + "\n" + std::to_string(duration_seconds) + "\n" + acquire_time + "\n" + renew_time + "\n" +
           std::to_string(transitions) + "\n" + url;
  }
};

namespace {

std::string str_member(const json::Value& obj, std::string_view key) {
  const json::Value* v = json::find(obj, key);
  return v && v->IsString() ? std::string(json::view(*v)) : std::string();
}

int64_t int_member(const json::Value& obj, std::string_view key) {
  const json::Value* v = json::find(obj, key);
  return v && v->IsInt64() ? v->GetInt64() : 0;
}

// False for anything that is not a Lease object; missing fields read as empty (an unheld Lease).
bool parse_lease(const std::string& body, LeaseRecord* out) {
  rapidjson::Document d;
  d.Parse<json::kParseFlags>(body.data(), body.size());
  if (d.HasParseError() || !d.IsObject()) return false;
  const json::Value* meta = json::find(d, "metadata");
  if (!meta || !meta->IsObject()) return false;
  out->resource_version = str_member(*meta, "resourceVersion");
  const json::Value* annotations = json::find(*meta, "annotations");
  if (annotations && annotations->IsObject()) out->url = str_member(*annotations, kAdvertiseAnnotation);
  const json::Value* spec = json::find(d, "spec");
  if (spec && spec->IsObject()) {
    out->holder = str_member(*spec, "holderIdentity");
    out->duration_seconds = int_member(*spec, "leaseDurationSeconds");
    out->acquire_time = str_member(*spec, "acquireTime");
    out->renew_time = str_member(*spec, "renewTime");
    out->transitions = int_member(*spec, "leaseTransitions");
  }
  return true;
}

std::string lease_json(const LeaderElectionConfig& c, const LeaseRecord& r) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  json::write_member(w, "apiVersion", "coordination.k8s.io/v1");
  json::write_member(w, "kind", "Lease");
  w.Key("metadata");
  w.StartObject();
  json::write_member(w, "name", c.lease_name);
  json::write_member(w, "namespace", c.lease_namespace);
  if (!r.resource_version.empty()) json::write_member(w, "resourceVersion", r.resource_version);
  if (!r.url.empty()) {
    w.Key("annotations");
    w.StartObject();
    json::write_member(w, kAdvertiseAnnotation, r.url);
    w.EndObject();
  }
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  json::write_member(w, "holderIdentity", r.holder);
  json::write_member(w, "leaseDurationSeconds", r.duration_seconds);
  json::write_member(w, "acquireTime", r.acquire_time);
  json::write_member(w, "renewTime", r.renew_time);
  json::write_member(w, "leaseTransitions", r.transitions);
  w.EndObject();
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

// Whole seconds, rounded up (other replicas then wait no less than configured), as the Lease's
// leaseDurationSeconds field holds them.
int64_t whole_seconds(std::chrono::milliseconds d) {
  return std::max<int64_t>(1, std::chrono::ceil<std::chrono::seconds>(d).count());
}

}  // namespace

std::string default_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "unknown");
  std::random_device rd;
  const uint64_t r = (uint64_t{rd()} << 32) ^ rd();
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "_%016llx", static_cast<unsigned long long>(r));
  return std::string(host) + suffix;
}

LeaderElector::LeaderElector(ApiClient& api, LeaderElectionConfig config, std::function<void(bool)> on_change)
    : api_(api), config_(std::move(config)), on_change_(std::move(on_change)) {
  if (config_.identity.empty()) config_.identity = default_identity();
}

LeaderElector::~LeaderElector() { stop(); }

std::string LeaderElector::lease_path() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + config_.lease_namespace + "/leases";
}

void LeaderElector::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void LeaderElector::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  release();
}

bool LeaderElector::is_leader() const {
  std::lock_guard lock(mu_);
  return held_ && Clock::now() - renewed_ < config_.renew_deadline;
}

std::string LeaderElector::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

std::string LeaderElector::lease_key() const {
  return namespaced_key(config_.lease_namespace, config_.lease_name);
}

// client-go's tryAcquireOrRenew logs each failed attempt ("error retrieving resource lock", "error
// initially creating leader election record", "Failed to update lock") every retry period; here the
// request is logged by ApiClient::errors() at most once a minute, and the attempt when its cause
// changes, saying what it means for this replica.
LeaderElector::Attempt LeaderElector::failed(const char* doing, const ApiResponse& r) {
  if (r.status == 409) return Attempt::kFailed;  // another replica wrote first: a race, retried as one
  const std::string cause = std::string(doing) + " Lease " + lease_key() + ": " +
                            (r.ok() ? std::string("the reply is not a Lease") : r.describe());
  bool changed, held;
  {
    std::lock_guard lock(mu_);
    changed = cause != last_error_;
    last_error_ = cause;
    held = held_;
  }
  if (changed) {
    log_line("--leader-elect: " + cause +
             (held ? ""
                   : "; this replica does not bind until it holds the Lease (retrying every " +
                         std::to_string(config_.retry_period.count()) + " ms)"));
  }
  return Attempt::kFailed;
}

void LeaderElector::succeeded() {
  bool had;
  {
    std::lock_guard lock(mu_);
    had = !last_error_.empty();
    last_error_.clear();
  }
  if (had) log_line("--leader-elect: Lease " + lease_key() + " answers again");
}

std::string LeaderElector::holder() const {
  std::lock_guard lock(mu_);
  return observed_holder_.identity;
}

LeaseHolder LeaderElector::lease_holder() const {
  std::lock_guard lock(mu_);
  return observed_holder_;
}

void LeaderElector::observe(const std::string& fingerprint, const LeaseHolder& holder, Clock::time_point t) {
  std::lock_guard lock(mu_);
  observed_record_ = fingerprint;
  observed_time_ = t;
  observed_holder_ = holder;
}

void LeaderElector::note_read(const LeaseRecord& read, Clock::time_point t) {
  // client-go's observedTime: when the record last changed as this replica saw it.
  if (read.fingerprint() != observed_record_) {
    observed_record_ = read.fingerprint();
    observed_time_ = t;
  }
  observed_holder_ = LeaseHolder{read.holder, read.url};
}

void LeaderElector::refresh() {
  const auto called = Clock::now();
  std::lock_guard one_read(refresh_mu_);
  if (last_refresh_start_ >= called) return;  // a read that began after this call has just ended
  last_refresh_start_ = Clock::now();
  ApiResponse got = api_.get(lease_path() + "/" + config_.lease_name, Expected{404});
  LeaseRecord read;
  if (got.status != 404 && (!got.ok() || !parse_lease(got.body, &read))) return;
  std::lock_guard lock(mu_);
  note_read(read, last_refresh_start_);
}

void LeaderElector::nudge() {
  {
    std::lock_guard lock(mu_);
    nudged_ = true;
  }
  cv_.notify_all();
}

void LeaderElector::set_held(bool held, Clock::time_point renewed) {
  bool changed;
  {
    std::lock_guard lock(mu_);
    changed = held != held_;
    held_ = held;
    if (held) renewed_ = renewed;
  }
  if (changed) {
    log_line(std::string(held ? "acquired" : "lost") + " lease " + lease_key() + " as " + config_.identity);
    if (on_change_) on_change_(held);
  }
}

LeaderElector::Attempt LeaderElector::try_acquire_or_renew() {
  const auto started = Clock::now();
  const std::string now = rfc3339(unix_micros_now(), 6);
  LeaseRecord want;
  want.holder = config_.identity;
  want.duration_seconds = whole_seconds(config_.lease_duration);
  want.acquire_time = now;
  want.renew_time = now;
  want.url = config_.advertise_url;

  // 404: no Lease yet (its namespace may be missing too: the create says so).
  ApiResponse got = api_.get(lease_path() + "/" + config_.lease_name, Expected{404});
  if (got.status == 404) {
    // 409 here: another replica created it first.
    ApiResponse created = api_.post(lease_path(), lease_json(config_, want), Expected{409});
    if (!created.ok()) return failed("creating", created);
    observe(want.fingerprint(), LeaseHolder{want.holder, want.url}, started);
    succeeded();
    set_held(true, started);
    return Attempt::kHeld;
  }
  LeaseRecord old;
  if (!got.ok() || !parse_lease(got.body, &old)) return failed("reading", got);
  bool held_by_other;
  {
    std::lock_guard lock(mu_);
    note_read(old, started);
    // Someone else holds it and its lease, as this replica has watched it, has not run out.
    held_by_other = !old.holder.empty() && old.holder != config_.identity &&
                    observed_time_ + std::chrono::seconds(old.duration_seconds) > started;
  }
  if (held_by_other) {
    succeeded();
    set_held(false, {});  // taken over (this replica's renewals had stopped for a lease duration)
    return Attempt::kHeldByOther;
  }
  if (old.holder == config_.identity) {
    want.acquire_time = old.acquire_time;
    want.transitions = old.transitions;
  } else {
    want.transitions = old.transitions + 1;
  }
  want.resource_version = old.resource_version;  // a write since the GET answers 409 Conflict
  ApiResponse put =
      api_.put(lease_path() + "/" + config_.lease_name, lease_json(config_, want), Expected{409});
  if (!put.ok()) return failed("updating", put);
  observe(want.fingerprint(), LeaseHolder{want.holder, want.url}, started);
  succeeded();
  set_held(true, started);
  return Attempt::kHeld;
}

bool LeaderElector::release() {
  {
    std::lock_guard lock(mu_);
    if (!held_) return true;
  }
  set_held(false, {});
  ApiResponse got = api_.get(lease_path() + "/" + config_.lease_name);
  LeaseRecord old;
  if (!got.ok() || !parse_lease(got.body, &old)) return false;
  if (old.holder != config_.identity) return true;
  // client-go release: an empty holder and a one-second duration, so the next candidate takes it at once.
  LeaseRecord empty;
  empty.duration_seconds = 1;
  empty.acquire_time = empty.renew_time = rfc3339(unix_micros_now(), 6);
  empty.transitions = old.transitions;
  empty.resource_version = old.resource_version;
  const bool ok = api_.put(lease_path() + "/" + config_.lease_name, lease_json(config_, empty)).ok();
  if (ok) {
    log_line("released lease " + lease_key());
  }
  return ok;
}

void LeaderElector::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    const Attempt a = try_acquire_or_renew();
    lock.lock();
    // client-go renew: a holder that could not renew within renewDeadline steps down.
    if (held_ && a == Attempt::kFailed && Clock::now() - renewed_ >= config_.renew_deadline) {
      lock.unlock();
      set_held(false, {});
      lock.lock();
    }
    cv_.wait_for(lock, config_.retry_period, [this] { return stopping_ || nudged_; });
    nudged_ = false;
  }
}

}  // namespace kext::kube
