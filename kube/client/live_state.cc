#include "kube/client/live_state.h"

#include "algorithms/gpu/devices.h"
#include "json/json.h"
#include "kube/client/cache_sinks.h"

namespace kext::kube {
namespace {

// The pods' sink, telling `gone` of each pod a batch removed or ended once the batch is applied.
class PodGoneSink final : public ResourceSink {
 public:
  PodGoneSink(std::unique_ptr<ResourceSink> inner, std::function<void(const PodGone&)> gone)
      : inner_(std::move(inner)), gone_(std::move(gone)) {}
  void list_begin() override { inner_->list_begin(); }
  void list_item(const json::Value& object) override { inner_->list_item(object); }
  void list_end() override { inner_->list_end(); }
  void event(EventType type, const json::Value& object) override {
    // The pod decoded there (or this threw): the fields read below are present and typed as decode_pod
    // read them, and are looked up by the same rules.
    inner_->event(type, object);
    const json::Value* status = json::find_non_null(object, "status");
    const std::string phase = status ? json::get_string(*status, "phase", "status") : "";
    if (type != EventType::Deleted && phase != "Succeeded" && phase != "Failed") return;
    const json::Value* md = json::find_non_null(object, "metadata");
    if (!md) return;
    const json::Value* annotations = json::find_non_null(*md, "annotations");
    const json::Value* cards =
        annotations ? json::find_non_null(*annotations, gpu::kAllocatedAnnotation) : nullptr;
    pending_.push_back({json::get_string(*md, "namespace", "metadata"),
                        json::get_string(*md, "name", "metadata"), cards && cards->IsString()});
  }
  void flush() override {
    inner_->flush();
    for (const PodGone& g : pending_) gone_(g);
    pending_.clear();
  }

 private:
  std::unique_ptr<ResourceSink> inner_;
  std::function<void(const PodGone&)> gone_;
  std::vector<PodGone> pending_;
};

}  // namespace

LiveState::LiveState(ApiClient& api, StateStore& store, LiveStateOptions opts)
    : api_(api), store_(store), cache_(&store, opts.version), opts_(std::move(opts)) {
  watching_ = std::make_unique<std::atomic<bool>[]>(watched_resources().size());
  for (const WatchedResource& r : watched_resources()) {
    std::unique_ptr<ResourceSink> sink = r.make_sink(cache_);
    if (r.name == "pods" && opts_.on_pod_gone)
      sink = std::make_unique<PodGoneSink>(std::move(sink), opts_.on_pod_gone);
    sinks_.push_back(std::move(sink));
    ReflectorOptions o = opts_.reflector;
    o.resource = std::string(r.name);
    o.path = std::string(r.path);
    reflectors_.push_back(std::make_unique<Reflector>(api, std::move(o), *sinks_.back()));
  }
}

LiveState::~LiveState() { stop(); }

void LiveState::start() {
  store_.set_ready(false);
  size_t i = 0;
  for (const WatchedResource& w : watched_resources()) {
    // An optional resource the cluster does not serve or grant: not watched, and readiness does not
    // wait for it.
    if (!w.optional || !resource_absent(api_, w.path)) {
      reflectors_[i]->start();
      watching_[i].store(true);
    }
    ++i;
  }
  housekeeper_ = std::thread([this] { housekeeping(); });
}

void LiveState::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& r : reflectors_) r->stop();
  if (housekeeper_.joinable()) housekeeper_.join();
}

bool LiveState::synced() const {
  for (const ResourceStatus& r : status())
    if (!r.status.synced) return false;
  return true;
}

std::vector<LiveState::ResourceStatus> LiveState::status() const {
  std::vector<ResourceStatus> out;
  for (size_t i = 0; i < reflectors_.size(); ++i)
    if (watching_[i].load() || !watched_resources()[i].optional)
      out.push_back({reflectors_[i]->resource(), reflectors_[i]->status()});
  return out;
}

void LiveState::housekeeping() {
  std::unique_lock lock(mu_);
  uint64_t lists_released = 0;
  while (!stopping_) {
    // Readiness polls quickly until the first sync, then the loop expires assumptions and releases the
    // memory of relists.
    auto interval = store_.ready() ? opts_.housekeeping_interval : std::chrono::milliseconds(20);
    cv_.wait_for(lock, interval, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    const auto statuses = status();
    bool all_synced = true;
    uint64_t lists = 0;
    for (const auto& r : statuses) {
      all_synced = all_synced && r.status.synced;
      lists += r.status.lists;
    }
    if (!store_.ready() && all_synced) store_.set_ready(true);
    if (all_synced && lists != lists_released) {
      lists_released = lists;
      if (opts_.release_memory) opts_.release_memory();
    }
    cache_.expire_assumed(StateCache::Clock::now());
    if (opts_.report_lag) {
      auto now = std::chrono::steady_clock::now();
      for (const auto& r : statuses) {
        if (!r.status.synced) continue;
        opts_.report_lag(r.resource, std::chrono::duration<double>(now - r.status.last_activity).count());
      }
    }
    lock.lock();
  }
}

}  // namespace kext::kube
