#pragma once
// POST /bind: creates the pod's Binding through the API, and meanwhile counts the pod against its node
// in the cache (an assumption) so that the next pod cannot take the same capacity before the watch
// shows the bind. The assumption ends when the watch confirms it, the bind fails, or its TTL passes.
#include <chrono>
#include <string_view>

#include "extender/http/verbs.h"
#include "extender/kube/api_client.h"
#include "extender/state/state_cache.h"

namespace kext {

class BindVerb {
 public:
  BindVerb(kube::ApiClient& api, StateCache& cache, std::chrono::milliseconds assume_ttl)
      : api_(api), cache_(cache), ttl_(assume_ttl) {}

  // 400 for a malformed request; otherwise 200 with {"Error":""} or the API's reason.
  Reply bind(std::string_view body) const;

 private:
  kube::ApiClient& api_;
  StateCache& cache_;
  std::chrono::milliseconds ttl_;
};

}  // namespace kext
