#include "extender/verbs/bind.h"

#include "algorithms/namespaced_key.h"
#include "common/log.h"
#include "json/json.h"
#include "kube/codec/binding_args.h"

namespace kext {

namespace {

// The API's answer to a Binding of a pod bound already (pkg/registry/core/pod/storage/storage.go
// assignPod: a Conflict "pod NAME is already assigned to node \"NODE\"").
bool already_bound_to(const kube::ApiResponse& r, const std::string& node) {
  return r.status == 409 &&
         r.body.find("is already assigned to node \\\"" + node + "\\\"") != std::string::npos;
}

}  // namespace

Reply Verbs::bind_traced(std::string_view body, VerbTrace* trace) const {
  if (!bind_) return bad_request("bind is not enabled on this extender (--enable-bind)", 404);
  return bind_->bind(body, trace, Origin::kScheduler);
}

Reply Verbs::holder_bind_traced(std::string_view body, VerbTrace* trace) const {
  if (!bind_) return bad_request("bind is not enabled on this extender (--enable-bind)", 404);
  return bind_->bind(body, trace, Origin::kForwarded);
}

Reply BindVerb::bind(std::string_view body, VerbTrace* trace, Origin origin) const {
  auto decoded = decode_request<BindingArgs>(
      "bind", body, trace, nullptr,
      [](std::string_view b, BindingArgs& args) { args = decode_binding_args(b); });
  if (Reply* refused = std::get_if<Reply>(&decoded)) return std::move(*refused);
  auto& r = std::get<Request<BindingArgs>>(decoded);

  if (elector_ && !elector_->is_leader()) {
    std::optional<Reply> relayed;
    if (origin == Origin::kForwarded) {
      relayed = Reply{kNotHolderStatus, json::error_body(not_holder(r.args))};
    } else if (forwarder_) {
      relayed = forwarder_->forward(body, r.args);  // nullopt: this replica took the Lease meanwhile
    } else {
      relayed = Reply{200, json::error_body(not_holder(r.args))};
    }
    if (relayed) {
      r.clock.end(Phase::kCompute);
      r.clock.end(Phase::kEncode);
      return std::move(*relayed);
    }
  }
  std::string error;
  if (gangs_) {
    // Held here, on the replica that binds: the Lease holder, where forwarding brings every bind.
    const BindPermit permit =
        gangs_->permit(r.args.pod_uid, r.args.pod_namespace, r.args.pod_name, r.args.node);
    error = permit.error;
    if (error.empty() && permit.group.empty())
      error = gangs_->check_bind(r.args.pod_uid, r.args.pod_namespace, r.args.pod_name, r.args.node);
    // A member this extender bound when its group completed, whose call the scheduler makes again,
    // is on its node already: done.
    if (error.empty()) error = bind_pod(r.args, !permit.group.empty());
    // Assumed in the cache by now, or failed: admissions count it from the state again.
    if (permit.group.empty()) gangs_->bind_ended(r.args.pod_uid);
    gangs_->bound(permit, r.args.pod_uid, error.empty());
    bind_detached(permit);
  } else {
    error = bind_pod(r.args);
  }
  r.clock.end(Phase::kCompute);
  Reply out{200, json::error_body(error)};
  r.clock.end(Phase::kEncode);
  return out;
}

void BindVerb::bind_detached(const BindPermit& permit) const {
  // Their group completed with this bind: each reached bind before and had its call answered, so no
  // call of the scheduler's makes their Bindings. The scheduler's queue drops each pod as its watch
  // shows it bound (pkg/scheduler/eventhandlers.go: an assigned pod leaves the scheduling queue).
  for (const MemberBind& m : permit.detached) {
    const std::string error = bind_pod(BindingArgs{m.name, m.namespace_, m.uid, m.node}, true);
    if (!error.empty()) log_line("pod group " + permit.group + ": " + error);
    gangs_->bound(permit, m.uid, error.empty());
  }
}

std::string BindVerb::not_holder(const BindingArgs& args) const {
  const std::string holder = elector_->holder();
  return "not binding pod " + namespaced_key(args.pod_namespace, args.pod_name) + ": replica " +
         elector_->identity() + " does not hold the Lease " +
         namespaced_key(elector_->config().lease_namespace, elector_->config().lease_name) +
         " (holder: " + (holder.empty() ? "none" : holder) + ")";
}

std::string BindVerb::bind_pod(const BindingArgs& args, bool done_if_there) const {
  const std::string key = StateCache::pod_key(args.pod_uid, args.pod_namespace, args.pod_name);
  const std::string what =
      "binding pod " + namespaced_key(args.pod_namespace, args.pod_name) + " to node " + args.node;
  const auto until = StateCache::Clock::now() + ttl_;
  // A pod's GPUs are locked, chosen and reserved, and annotated first (gpu_binder.h).
  const GpuBinder::Prepared gpu = gpus_ ? gpus_->prepare(args, until) : GpuBinder::Prepared{};
  if (!gpu.error.empty()) {
    // Counted by cause (kube_extender_gpu_bind_failures_total): a held lock, no card left, a pod the
    // cache lacks, a failed API call (which the client counts too). The scheduler retries the pod; the
    // log says why each attempt failed.
    log_line(what + ": " + gpu.error);
    return what + ": " + gpu.error;
  }
  // Count it before the API call: the scheduler filters the next pod while this bind is in flight.
  const bool assumed = gpu.asks || cache_.batch().assume_pod(key, args.node, until);
  // A member bound already answers 409, which is then no failure.
  kube::ApiResponse r =
      api_.post("/api/v1/namespaces/" + args.pod_namespace + "/pods/" + args.pod_name + "/binding",
                encode_binding(args), done_if_there ? kube::Expected{409} : kube::Expected{});
  if (r.ok() || (done_if_there && already_bound_to(r, args.node))) return "";
  if (gpu.asks) gpus_->abandon(args);
  if (assumed) cache_.batch().forget_assumed(key);
  return what + ": " + r.describe();
}

}  // namespace kext
