#pragma once
// POST /bind: creates the pod's Binding through the API, and meanwhile counts the pod against its node
// in the cache (an assumption) so that the next pod cannot take the same capacity before the watch
// shows the bind. The assumption ends when the watch confirms it, the bind fails, or its TTL passes.
// Verbs::bind_traced runs it once --enable-bind has given the Verbs one.
#include <chrono>
#include <string>
#include <string_view>

#include "extender/gang/coordinator.h"
#include "extender/gpu/gpu_binder.h"
#include "extender/verbs/bind_forward.h"
#include "extender/verbs/verbs.h"
#include "kube/client/api_client.h"
#include "kube/client/leader_election.h"
#include "kube/state/state_cache.h"

namespace kext {

class BindVerb final : public Binder {
 public:
  // elector (may be null: every bind is served) must outlive the verb; so must forwarder (may be null:
  // a replica that does not hold the Lease refuses binds) and gangs (may be null: no gang scheduling;
  // else a gang member's bind waits for its group: GangCoordinator::permit), and gpus (may be null: a
  // pod's GPUs are chosen and annotated before its Binding, gpu_binder.h).
  BindVerb(kube::ApiClient& api, StateCache& cache, std::chrono::milliseconds assume_ttl,
           const kube::LeaderElector* elector = nullptr, const BindForwarder* forwarder = nullptr,
           GangCoordinator* gangs = nullptr, const GpuBinder* gpus = nullptr)
      : api_(api),
        cache_(cache),
        ttl_(assume_ttl),
        elector_(elector),
        forwarder_(forwarder),
        gangs_(gangs),
        gpus_(gpus) {}

  // 400 for a malformed request; otherwise 200 with {"Error":""} or the API's reason. With an elector,
  // a replica that does not hold the Lease creates no Binding: it relays the holder's reply to a bind
  // from the scheduler (bind_forward.h), and answers kNotHolderStatus to a forwarded one. Without a
  // forwarder it answers the scheduler with an Error, which puts the pod back in its queue
  // (pkg/scheduler/schedule_one.go: bind -> handleBindingCycleError). trace (may be null) gets the
  // phase times and the pod.
  Reply bind(std::string_view body, VerbTrace* trace, Origin origin) const override;
  Reply bind(std::string_view body) const { return bind(body, nullptr, Origin::kScheduler); }

 private:
  // The compute step: "" once the Binding is created, else why not. With `done_if_there`, a pod the API
  // has on args.node already counts as bound (a gang member's).
  std::string bind_pod(const BindingArgs& args, bool done_if_there = false) const;
  std::string not_holder(const BindingArgs& args) const;
  // The Bindings of the members whose group completed with this bind (BindPermit::detached).
  void bind_detached(const BindPermit& permit) const;

  kube::ApiClient& api_;
  StateCache& cache_;
  std::chrono::milliseconds ttl_;
  const kube::LeaderElector* elector_;
  const BindForwarder* forwarder_;
  GangCoordinator* gangs_;
  const GpuBinder* gpus_;  // null: GPUShare is not enabled; a pod's GPUs are not allocated at bind
};

}  // namespace kext
