#pragma once
// HAMi #1368: a pod waiting for GPU room is not retried when room frees. kube-scheduler does retry a pod
// an extender rejected on the next cluster event (pkg/scheduler/backend/queue/scheduling_queue.go: a
// rejection that names no plugin of its own is requeued on every event, from 1.29), and the deletion that
// frees a card is one. But its informer can show that deletion before this extender's watch does; the
// retry's filter then answers on the cards as they were, and the pod waits for some later event, up to
// podMaxInUnschedulablePodsDuration (5 minutes) in a quiet cluster. So once the watch shows a pod's cards
// freed, every GPU pod whose filter found no node in the moments before is updated (the annotation
// kube-extender.io/gpu-requeued-at): an update of a pod that waits as unschedulable puts it back in the
// queue (scheduling_queue.go Update). Each rejection is answered once; the updates go out from a thread
// of their own, so the watch never waits on them. A failed update is logged and counted.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "extender/observe/metrics.h"
#include "kube/client/api_client.h"

namespace kext {

inline constexpr std::string_view kGpuRequeuedAnnotation = "kube-extender.io/gpu-requeued-at";

struct GpuRequeueOptions {
  // A rejection this long before the watch showed the cards freed may have been answered without them:
  // well above a watch's usual lag behind the scheduler's informer (milliseconds).
  std::chrono::milliseconds window{2000};
  // Rejections remembered at most (the oldest go first): a bound on memory under a flood of pending pods.
  size_t max_remembered = 4096;
};

class GpuRequeue {
 public:
  using Clock = std::chrono::steady_clock;
  using WallClock = std::function<std::chrono::system_clock::time_point()>;
  GpuRequeue(
      kube::ApiClient& api, Metrics* metrics, GpuRequeueOptions opts = {},
      WallClock now = [] { return std::chrono::system_clock::now(); });
  ~GpuRequeue();
  GpuRequeue(const GpuRequeue&) = delete;
  GpuRequeue& operator=(const GpuRequeue&) = delete;

  // The filter found no node for this pod, which asks for GPUs.
  void rejected(const std::string& namespace_, const std::string& name, Clock::time_point at = Clock::now());
  // The watch shows a pod's cards freed, its batch applied: the pods rejected within the window before
  // `at` are updated.
  void cards_freed(Clock::time_point at = Clock::now());
  // Blocks until every update asked for so far has been sent (tests).
  void drain();

 private:
  void run();
  void send(const std::string& key);

  kube::ApiClient& api_;
  Metrics* metrics_;
  GpuRequeueOptions opts_;
  WallClock now_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Clock::time_point> rejected_;  // "namespace/name" -> its last rejection
  std::deque<std::string> to_send_;
  size_t sending_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace kext
