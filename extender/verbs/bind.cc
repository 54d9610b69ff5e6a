#include "extender/verbs/bind.h"

#include "extender/codec/binding_args.h"
#include "json/json.h"

namespace kext {

Reply BindVerb::bind(std::string_view body) const {
  BindingArgs args;
  try {
    args = decode_binding_args(body);
  } catch (const DecodeError& e) {
    return bad_request(e.what());
  }
  if (elector_ && !elector_->is_leader()) {
    const std::string holder = elector_->holder();
    return Reply{
        200, json::error_body("not binding pod " + args.pod_namespace + "/" + args.pod_name + ": replica " +
                              elector_->identity() + " does not hold the Lease " +
                              elector_->config().lease_namespace + "/" + elector_->config().lease_name +
                              " (holder: " + (holder.empty() ? "none" : holder) + ")")};
  }
  const std::string key = StateCache::pod_key(args.pod_uid, args.pod_namespace, args.pod_name);
  // Count it before the API call: the scheduler filters the next pod while this bind is in flight.
  const bool assumed = cache_.batch().assume_pod(key, args.node, StateCache::Clock::now() + ttl_);
  kube::ApiResponse r =
      api_.post("/api/v1/namespaces/" + args.pod_namespace + "/pods/" + args.pod_name + "/binding",
                encode_binding(args));
  if (r.ok()) return Reply{200, json::error_body("")};
  if (assumed) cache_.batch().forget_assumed(key);
  return Reply{200, json::error_body("binding pod " + args.pod_namespace + "/" + args.pod_name + " to node " +
                                     args.node + ": " + r.describe())};
}

}  // namespace kext
