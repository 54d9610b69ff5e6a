#pragma once
// The cluster state kept live from the Kubernetes API: a reflector per resource (watched_resources():
// nodes, pods, PodDisruptionBudgets, namespaces, services, replicationcontrollers, replicasets,
// statefulsets, and where served podgroups and deviceclasses) feeding one StateCache, readiness once every
// one has listed, and the expiry of bind assumptions the watch never confirmed.
#include <malloc.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/client/api_client.h"
#include "kube/client/reflector.h"
#include "kube/state/state_cache.h"

namespace kext::kube {

// A pod the watch shows gone or ended (deleted, or its phase Succeeded or Failed): room freed on its node.
struct PodGone {
  std::string namespace_, name;
  bool held_gpus = false;  // it had cards (hami.io/vgpu-devices-allocated)
};

struct LiveStateOptions {
  ReflectorOptions reflector;  // resource and path are filled in per resource
  std::chrono::milliseconds housekeeping_interval{500};
  // Called from housekeeping with each resource's seconds since its stream last delivered anything
  // (events or bookmarks): how stale the cache may be. Optional.
  std::function<void(const std::string& resource, double seconds)> report_lag;
  // Called once every kind is listed, after the first lists and after each relist (410 Gone, an API
  // restart): a list's text and DOM, as large as the objects' JSON, are freed in pieces that glibc keeps
  // unless asked to hand them back. Tests replace it to count.
  std::function<void()> release_memory = [] { malloc_trim(0); };
  // Called from the pods' watch once the cache shows a pod gone or ended (after its batch is applied, so
  // that a filter asked then sees the room). Optional.
  std::function<void(const PodGone&)> on_pod_gone;
  // The kube-scheduler minor whose rules count the pods' requests (StateCache).
  KubeVersion version = KubeVersion::newest();
};

class LiveState {
 public:
  LiveState(ApiClient& api, StateStore& store, LiveStateOptions opts = {});
  ~LiveState();

  // Marks the store not ready, probes the optional resources (WatchedResource::optional), then lists
  // and watches in the background.
  void start();
  void stop();
  bool synced() const;

  struct ResourceStatus {
    std::string resource;
    ReflectorStatus status;
  };
  // The resources watched: an optional one only once its probe found it served.
  std::vector<ResourceStatus> status() const;

  StateCache& cache() { return cache_; }

 private:
  void housekeeping();

  ApiClient& api_;
  StateStore& store_;
  StateCache cache_;
  LiveStateOptions opts_;
  std::vector<std::unique_ptr<ResourceSink>> sinks_;
  std::vector<std::unique_ptr<Reflector>> reflectors_;
  // Per reflector: started (read by status() from other threads while start() probes).
  std::unique_ptr<std::atomic<bool>[]> watching_;
  std::thread housekeeper_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

}  // namespace kext::kube
