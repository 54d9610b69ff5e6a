#pragma once
// POST /bind: creates the pod's Binding through the API, and meanwhile counts the pod against its node
// in the cache (an assumption) so that the next pod cannot take the same capacity before the watch
// shows the bind. The assumption ends when the watch confirms it, the bind fails, or its TTL passes.
#include <chrono>
#include <string_view>

#include "extender/verbs/verbs.h"
#include "extender/kube/api_client.h"
#include "extender/kube/leader_election.h"
#include "extender/state/state_cache.h"

namespace kext {

class BindVerb {
 public:
  // elector (may be null: every bind is served) must outlive the verb.
  BindVerb(kube::ApiClient& api, StateCache& cache, std::chrono::milliseconds assume_ttl,
           const kube::LeaderElector* elector = nullptr)
      : api_(api), cache_(cache), ttl_(assume_ttl), elector_(elector) {}

  // 400 for a malformed request; otherwise 200 with {"Error":""} or the API's reason. With an elector,
  // a replica that does not hold the Lease creates no Binding and answers with an Error: kube-scheduler
  // then puts the pod back in its queue and schedules it again (pkg/scheduler/schedule_one.go:
  // bind -> handleBindingCycleError).
  Reply bind(std::string_view body) const;

 private:
  kube::ApiClient& api_;
  StateCache& cache_;
  std::chrono::milliseconds ttl_;
  const kube::LeaderElector* elector_;
};

}  // namespace kext
