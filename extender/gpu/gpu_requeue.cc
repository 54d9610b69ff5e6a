#include "extender/gpu/gpu_requeue.h"

#include <algorithm>
#include <vector>

#include "algorithms/namespaced_key.h"
#include "common/log.h"
#include "common/rfc3339.h"
#include "extender/gpu/api_objects.h"

namespace kext {

GpuRequeue::GpuRequeue(kube::ApiClient& api, Metrics* metrics, GpuRequeueOptions opts, WallClock now)
    : api_(api), metrics_(metrics), opts_(opts), now_(std::move(now)), worker_([this] { run(); }) {}

GpuRequeue::~GpuRequeue() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void GpuRequeue::rejected(const std::string& namespace_, const std::string& name, Clock::time_point at) {
  std::lock_guard lock(mu_);
  rejected_[namespaced_key(namespace_, name)] = at;
  if (rejected_.size() <= opts_.max_remembered) return;
  auto oldest = std::min_element(rejected_.begin(), rejected_.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
  rejected_.erase(oldest);
}

void GpuRequeue::cards_freed(Clock::time_point at) {
  {
    std::lock_guard lock(mu_);
    for (auto it = rejected_.begin(); it != rejected_.end();) {
      if (it->second + opts_.window < at) {
        it = rejected_.erase(it);  // too old to have missed this event: forgotten
      } else if (it->second <= at) {
        to_send_.push_back(it->first);
        it = rejected_.erase(it);
      } else {
        ++it;
      }
    }
    if (to_send_.empty()) return;
  }
  cv_.notify_all();
}

void GpuRequeue::drain() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return to_send_.empty() && sending_ == 0; });
}

void GpuRequeue::run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !to_send_.empty(); });
    if (stopping_) return;
    const std::string key = std::move(to_send_.front());
    to_send_.pop_front();
    ++sending_;
    lock.unlock();
    send(key);
    lock.lock();
    --sending_;
    cv_.notify_all();
  }
}

void GpuRequeue::send(const std::string& key) {
  const NamespacedName pod = split_namespaced_key(key);
  const std::string at =
      rfc3339(std::chrono::duration_cast<std::chrono::microseconds>(now_().time_since_epoch()).count(), 6);
  // A pod deleted or bound since is no longer waiting: 404 is no failure.
  const kube::ApiResponse r =
      api_.patch(pod_path(pod.namespace_, pod.name), annotations_patch({{kGpuRequeuedAnnotation, at}}, ""),
                 kube::Expected{404});
  const bool ok = r.ok() || r.status == 404;
  if (!ok)
    log_line("sending pod " + key + " back to kube-scheduler's queue once GPU room freed: " + r.describe());
  if (metrics_ && r.status != 404) metrics_->count_gpu_requeue(ok);
}

}  // namespace kext
