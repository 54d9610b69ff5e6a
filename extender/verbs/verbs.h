#pragma once
// The extender verbs as functions of the request body: no sockets, so tests call them directly. Each is
// decode (preamble.h) -> compute -> encode, in a file of its own: filter.cc, prioritize.cc, preempt.cc,
// bind.cc.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extender/gang/coordinator.h"
#include "extender/observe/verb_trace.h"
#include "extender/verbs/preamble.h"
#include "kube/codec/decode_cache.h"
#include "kube/state/cluster_state.h"
#include "policy/policy.h"

namespace kext {

// Who sent a request: the scheduler (POST /bind), or a replica passing it on to the Lease holder
// (POST /holder/bind, bind_forward.h; a gang member's /holder/filter and /holder/preempt,
// gang_replicas.h), which is never passed on again.
enum class Origin : uint8_t { kScheduler, kForwarded };

// What the verbs ask of the other replicas with gang scheduling and --leader-elect (gang_replicas.h): the
// Lease holder decides gang members' filters and preemptions, and the other replicas count the room it
// holds. An interface, so that the verbs need no HTTP client (the fuzz harnesses link them without one).
class GangReplicas {
 public:
  virtual ~GangReplicas() = default;
  virtual bool holds() const = 0;  // this replica holds the Lease now
  virtual const std::string& identity() const = 0;
  // A gang member's request passed on to the holder (BindForwarder::forward); nullopt: this replica
  // holds the Lease now and answers it itself.
  virtual std::optional<Reply> forward(std::string_view route, std::string_view body, const std::string& what,
                                       std::string_view verb) const = 0;
  // What kHolderGangRoomRoute answers (bind_forward.h).
  virtual Reply serve_room(std::string_view body) const = 0;
  // On a replica not holding the Lease: the room the holder holds, its members as `state` has them.
  // Never null.
  virtual std::shared_ptr<const HeldRoom> holder_room(
      const std::shared_ptr<const ClusterState>& state) const = 0;
};

// What /bind runs once binding is enabled (--enable-bind): BindVerb (bind.h), which needs the API.
class Binder {
 public:
  virtual ~Binder() = default;
  virtual Reply bind(std::string_view body, VerbTrace* trace, Origin origin) const = 0;
};

// Decoded full-mode node objects kept between requests when --node-cache-entries is not given.
inline constexpr size_t kDefaultNodeCacheEntries = 20000;
// Decoded pods kept for prioritize (PodReuse): what one scheduler has in flight between a pod's filter
// and its prioritize is one pod per profile; 256 (16 a shard) leave room for many schedulers and
// profiles at a few KB each.
inline constexpr size_t kPodCacheEntries = 256;

class Verbs {
 public:
  // profile, state, bind, gangs and replicas must outlive the Verbs. node_cache_entries: decoded
  // full-mode node objects kept between requests (0 = none). bind: null while binding is not enabled,
  // and /bind answers 404. gangs: null without gang scheduling (it needs bind: BindVerb holds the
  // members' binds). replicas: null without --leader-elect; else gang members' filters and preemptions
  // are decided by the Lease holder (gang_replicas.h).
  Verbs(const Profile& profile, const StateStore& state, size_t node_cache_entries = kDefaultNodeCacheEntries,
        const Binder* bind = nullptr, GangCoordinator* gangs = nullptr,
        const GangReplicas* replicas = nullptr)
      : profile_(profile),
        state_(state),
        bind_(bind),
        gangs_(gangs),
        replicas_(replicas),
        node_cache_(node_cache_entries),
        algorithms_(algorithm_infos(profile.engine)) {}

  // With GPU sharing: told of each GPU pod the filter finds no node for (extender/gpu/gpu_requeue.h
  // GpuRequeue::rejected), by namespace and name. Set before serving.
  using GpuRejected = std::function<void(const std::string& namespace_, const std::string& name)>;
  void set_gpu_rejected(GpuRejected rejected) { gpu_rejected_ = std::move(rejected); }

  Reply filter(std::string_view body) const { return filter_traced(body, nullptr); }
  Reply prioritize(std::string_view body) const { return prioritize_traced(body, nullptr); }
  Reply preempt(std::string_view body) const { return preempt_traced(body, nullptr); }
  Reply bind(std::string_view body) const { return bind_traced(body, nullptr); }

  // The same, reporting into trace (may be null): phase times, pod, node count and, if it asks, the
  // Decision. One signature, so that the server routes every verb alike.
  Reply filter_traced(std::string_view body, VerbTrace* trace) const;
  Reply prioritize_traced(std::string_view body, VerbTrace* trace) const;
  Reply preempt_traced(std::string_view body, VerbTrace* trace) const;
  Reply bind_traced(std::string_view body, VerbTrace* trace) const;
  // A bind, a gang member's filter or preemption another replica passed on to this one as the Lease
  // holder; and the room it holds for gang members, for the other replicas' filters.
  Reply holder_bind_traced(std::string_view body, VerbTrace* trace) const;
  Reply holder_filter_traced(std::string_view body, VerbTrace* trace) const;
  Reply holder_preempt_traced(std::string_view body, VerbTrace* trace) const;
  Reply holder_gang_room_traced(std::string_view body, VerbTrace* trace) const;

 private:
  Reply filter_from(std::string_view body, VerbTrace* trace, Origin origin) const;
  Reply preempt_from(std::string_view body, VerbTrace* trace, Origin origin) const;
  // A gang member's request on a replica not holding the Lease: passed on to the holder (from the
  // scheduler) or refused with kNotHolderStatus (from a replica); nullopt: decided here.
  std::optional<Reply> holder_decides(std::string_view route, std::string_view body, const Pod& pod,
                                      Origin origin) const;

  const Profile& profile_;
  const StateStore& state_;
  const Binder* bind_;
  GangCoordinator* gangs_;
  const GangReplicas* replicas_;
  GpuRejected gpu_rejected_;
  // The server's caches of decoded node objects and pods (thread-safe): the mutable members.
  mutable NodeDecodeCache node_cache_;
  mutable PodDecodeCache pod_cache_{kPodCacheEntries};
  // Shared by every prioritize Decision instead of copying the names per request.
  std::shared_ptr<const std::vector<AlgorithmInfo>> algorithms_;

  static std::shared_ptr<const std::vector<AlgorithmInfo>> algorithm_infos(const Engine& engine);
};

}  // namespace kext
