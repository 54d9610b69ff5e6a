#pragma once
// The bind of a pod that asks for GPUs, as HAMi's device plugin expects it (pkg/scheduler/scheduler.go
// Bind, pkg/util/nodelock/nodelock.go): the node's lock hami.io/mutex.lock names the pod whose cards the
// device plugin's Allocate is to set up, and the pod's annotations say which cards those are.
//
// Where HAMi departs from safety, this binder does not:
//   - the cards are chosen at bind, against the cache and the reservations of binds in flight, never at
//     filter (HAMi writes them at filter, for a node the scheduler may not pick);
//   - the reservation counts in the cache before any API call, and ends when the watch shows the pod
//     with its annotations, or when the bind fails: a failed bind leaves nothing counted;
//   - a lock whose owner is bound and still waiting for Allocate is never taken over, however old
//     (HAMi #3096: the next pod got the first pod's limits);
//   - an init container's GPU takes the lock too (HAMi #2640);
//   - every failure after the lock gives the lock back (HAMi #2305).
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "algorithms/gpu/devices.h"
#include "extender/observe/metrics.h"
#include "kube/client/api_client.h"
#include "kube/codec/binding_args.h"
#include "kube/state/state_cache.h"

namespace kext {

struct GpuBindOptions {
  gpu::SharingConfig sharing;
  // A lock whose owner never got bound is taken over after this long (HAMi's NodeLockTimeout).
  std::chrono::seconds lock_expiry{300};
  // How long a bind waits for a lock held by a pod still being set up, before it fails (and the
  // scheduler retries the pod). Well under a scheduler's httpTimeout.
  std::chrono::milliseconds lock_wait{2000};
};

class GpuBinder {
 public:
  using WallClock = std::function<std::chrono::system_clock::time_point()>;
  // metrics (may be null) counts each failed prepare by cause.
  GpuBinder(
      kube::ApiClient& api, StateCache& cache, GpuBindOptions opts, Metrics* metrics = nullptr,
      WallClock now = [] { return std::chrono::system_clock::now(); })
      : api_(api), cache_(cache), opts_(std::move(opts)), metrics_(metrics), now_(std::move(now)) {}

  struct Prepared {
    bool asks = false;                            // the pod asks for a GPU: the rest was done (or failed)
    std::string error;                            // why the pod cannot be bound now ("" when it can)
    GpuBindFailure cause = GpuBindFailure::kApi;  // with an error: its kind
  };
  // Before the Binding: lock the node, choose and reserve the pod's cards (assumed in the cache until
  // `assume_until`), and annotate the pod. On error, everything done is undone, and the failure is
  // counted in the metrics by its cause.
  Prepared prepare(const BindingArgs& args, StateCache::Clock::time_point assume_until) const;
  // The Binding failed after prepare: the lock back and the reservation forgotten.
  void abandon(const BindingArgs& args) const;
  // The bound pods in the cache whose hami.io/vgpu-devices-allocated did not decode: each closes its
  // node to GPU pods (gpu::fit_on_node).
  uint64_t undecoded_allocations() const;

 private:
  // prepare's steps, uncounted.
  Prepared lock_reserve_annotate(const BindingArgs& args, StateCache::Clock::time_point assume_until) const;
  // "" with the lock taken; else why not, with `held` set when a pod still being set up kept it.
  std::string lock_node(const BindingArgs& args, bool& held) const;
  void forget_reservation(const BindingArgs& args) const;
  std::string try_lock_node(const BindingArgs& args, std::string& busy) const;
  std::string check_lock_owner(const BindingArgs& args, std::string_view held, std::string& busy) const;
  void release_node(const BindingArgs& args) const;
  // The pod's cards on the node from the cache, reserved there; "" or why not (`cause` set).
  std::string reserve(const BindingArgs& args, const Pod& pod, StateCache::Clock::time_point until,
                      gpu::PodAllocation& allocation, GpuBindFailure& cause) const;
  std::string annotate(const BindingArgs& args, const gpu::PodAllocation& allocation) const;

  kube::ApiClient& api_;
  StateCache& cache_;
  GpuBindOptions opts_;
  Metrics* metrics_;
  WallClock now_;
  // One choice of cards at a time: each sees the reservations of the ones before it.
  mutable std::mutex choose_mu_;
};

}  // namespace kext
