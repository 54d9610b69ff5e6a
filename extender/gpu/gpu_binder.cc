#include "extender/gpu/gpu_binder.h"

#include <optional>
#include <thread>
#include <vector>

#include "algorithms/gpu/device_fit.h"
#include "algorithms/namespaced_key.h"
#include "common/rfc3339.h"
#include "extender/gpu/api_objects.h"
#include "json/json.h"
#include "kube/codec/gpu_decode.h"
#include "kube/codec/k8s_decode.h"

namespace kext {

namespace {

// An object the API returned, parsed; nullopt (and `why` set) when it is not JSON.
std::optional<rapidjson::Document> parse_object(const kube::ApiResponse& r, std::string& why) {
  rapidjson::Document d;
  d.Parse<json::kParseFlags>(r.body.data(), r.body.size());
  if (d.HasParseError() || !d.IsObject()) {
    why = "the API server's answer is not a JSON object";
    return std::nullopt;
  }
  return d;
}

// metadata.annotations[key] and metadata.resourceVersion of an object.
std::string annotation(const json::Value& object, std::string_view key) {
  const json::Value* md = json::find_non_null(object, "metadata");
  const json::Value* ann = md && md->IsObject() ? json::find_non_null(*md, "annotations") : nullptr;
  const json::Value* v = ann && ann->IsObject() ? json::find_non_null(*ann, key) : nullptr;
  return v && v->IsString() ? std::string(json::view(*v)) : std::string();
}

std::string resource_version(const json::Value& object) {
  const json::Value* md = json::find_non_null(object, "metadata");
  return md && md->IsObject() ? json::get_string(*md, "resourceVersion", "metadata") : std::string();
}

// nodelock.go ParseNodeLock: "RFC3339,namespace,name" (or a bare time from older HAMi).
struct NodeLock {
  std::optional<int64_t> since;  // Unix seconds; nullopt: malformed
  std::string namespace_, name;
};

NodeLock parse_lock(std::string_view value) {
  NodeLock out;
  const size_t a = value.find(',');
  out.since = parse_rfc3339(value.substr(0, a));
  if (a == std::string_view::npos) return out;
  const size_t b = value.find(',', a + 1);
  if (b == std::string_view::npos || value.find(',', b + 1) != std::string_view::npos) {
    out.since.reset();
    return out;
  }
  out.namespace_ = std::string(value.substr(a + 1, b - a - 1));
  out.name = std::string(value.substr(b + 1));
  return out;
}

// How many times a lock is tried when another writer moved the node on between our read and our write.
constexpr int kLockAttempts = 5;
// How often a bind waiting for a lock reads the node again.
constexpr std::chrono::milliseconds kLockPoll{100};

}  // namespace

GpuBinder::Prepared GpuBinder::lock_reserve_annotate(const BindingArgs& args,
                                                     StateCache::Clock::time_point assume_until) const {
  Prepared out;
  const kube::ApiResponse got = api_.get(pod_path(args.pod_namespace, args.pod_name));
  if (!got.ok()) {
    out.error = "reading the pod for its GPU request: " + got.describe();
    return out;
  }
  std::string why;
  const auto doc = parse_object(got, why);
  if (!doc) {
    out.error = "reading the pod for its GPU request: " + why;
    return out;
  }
  Pod pod;
  try {
    pod = decode_pod(*doc, "pod");
  } catch (const DecodeError& e) {
    out.error = std::string("reading the pod for its GPU request: ") + e.what();
    return out;
  }
  if (!gpu::pod_request(pod, opts_.sharing).asks()) return out;
  out.asks = true;
  // The cards are reserved before the wait for the node's lock: while the device plugin sets up the
  // pod before this one, the filter already counts them, and the scheduler sends no more pods to a
  // node whose cards wait for binds (it would, and each would fail after the wait).
  gpu::PodAllocation allocation;
  if (out.error = reserve(args, pod, assume_until, allocation, out.cause); !out.error.empty()) return out;
  bool held = false;
  if (out.error = lock_node(args, held); !out.error.empty()) {
    out.cause = held ? GpuBindFailure::kLockHeld : GpuBindFailure::kApi;
    forget_reservation(args);
    return out;
  }
  out.cause = GpuBindFailure::kApi;
  if (out.error = annotate(args, allocation); !out.error.empty()) abandon(args);
  return out;
}

GpuBinder::Prepared GpuBinder::prepare(const BindingArgs& args,
                                       StateCache::Clock::time_point assume_until) const {
  Prepared out = lock_reserve_annotate(args, assume_until);
  if (!out.error.empty() && metrics_) metrics_->count_gpu_bind_failure(out.cause);
  return out;
}

uint64_t GpuBinder::undecoded_allocations() const {
  uint64_t n = 0;
  cache_.view()->nodes.for_each([&](const auto&, const std::shared_ptr<const NodeInfo>& node) {
    for (const auto& p : node->pods)
      if (gpu::cards_undecoded(p->pod->gpu_shares)) ++n;
  });
  return n;
}

void GpuBinder::forget_reservation(const BindingArgs& args) const {
  cache_.batch().forget_assumed(StateCache::pod_key(args.pod_uid, args.pod_namespace, args.pod_name));
}

void GpuBinder::abandon(const BindingArgs& args) const {
  forget_reservation(args);
  release_node(args);
}

// nodelock.go LockNode / SetNodeLock, with one change: a lock is taken over only when its owner can no
// longer be waiting for the device plugin's Allocate (gone, not allocating, or never bound and expired).
std::string GpuBinder::lock_node(const BindingArgs& args, bool& held) const {
  const auto give_up = std::chrono::steady_clock::now() + opts_.lock_wait;
  while (true) {
    std::string busy;
    const std::string error = try_lock_node(args, busy);
    held = !busy.empty();
    if (!held || std::chrono::steady_clock::now() >= give_up) return held ? busy : error;
    std::this_thread::sleep_for(kLockPoll);
  }
}

// Whether the lock's owner may still be waiting for the device plugin's Allocate on this node: the pod
// exists, is allocating, its cards are for this node (bound to it, or annotated for it when the bind
// is still to come), and it is bound or its lock is younger than the expiry. `busy` says so; the return
// is an API failure. An owner whose bind went to another node left a lock nobody here waits on
// (HAMi's device plugin sets up the pod whose hami.io/vgpu-node names its node: GetPendingPod).
std::string GpuBinder::check_lock_owner(const BindingArgs& args, std::string_view held,
                                        std::string& busy) const {
  const NodeLock lock = parse_lock(held);
  if (lock.namespace_.empty()) return "";
  const kube::ApiResponse o = api_.get(pod_path(lock.namespace_, lock.name), kube::Expected{404});
  if (!o.ok()) return o.status == 404 ? "" : "reading the GPU lock's owner: " + o.describe();
  std::string why;
  const auto owner = parse_object(o, why);
  if (!owner || annotation(*owner, gpu::kBindPhaseAnnotation) != "allocating") return "";
  const json::Value* spec = json::find_non_null(*owner, "spec");
  const std::string bound_to = spec && spec->IsObject() ? json::get_string(*spec, "nodeName", "spec") : "";
  const std::string cards_for =
      bound_to.empty() ? annotation(*owner, gpu::kAssignedNodeAnnotation) : bound_to;
  const auto age = std::chrono::system_clock::to_time_t(now_()) - lock.since.value_or(0);
  if (cards_for == args.node && (!bound_to.empty() || age < opts_.lock_expiry.count())) {
    busy = "node " + args.node + " is locked for GPU allocation by pod " +
           namespaced_key(lock.namespace_, lock.name) + ", whose cards the device plugin has not set up yet";
  }
  return "";
}

// One try: "" with the lock taken; `busy` set when a pod still being set up holds it.
std::string GpuBinder::try_lock_node(const BindingArgs& args, std::string& busy) const {
  const std::string owner = args.pod_namespace + "," + args.pod_name;
  for (int attempt = 0; attempt < kLockAttempts; ++attempt) {
    const kube::ApiResponse got = api_.get(node_path(args.node));
    if (!got.ok()) return "reading node " + args.node + " for its GPU lock: " + got.describe();
    std::string why;
    const auto node = parse_object(got, why);
    if (!node) return "reading node " + args.node + " for its GPU lock: " + why;
    const std::string held = annotation(*node, gpu::kNodeLockAnnotation);
    if (!held.empty()) {
      const NodeLock lock = parse_lock(held);
      if (lock.namespace_ == args.pod_namespace && lock.name == args.pod_name) return "";
      const std::string error = check_lock_owner(args, held, busy);
      if (!error.empty() || !busy.empty()) return error + busy;
    }
    const std::string stamp = rfc3339_seconds(std::chrono::system_clock::to_time_t(now_())) + "," + owner;
    const kube::ApiResponse r = api_.patch(
        node_path(args.node), annotations_patch({{gpu::kNodeLockAnnotation, stamp}}, resource_version(*node)),
        kube::Expected{409});
    if (r.ok()) return "";
    if (r.status != 409) return "locking node " + args.node + " for GPU allocation: " + r.describe();
  }
  return "locking node " + args.node + " for GPU allocation: the node kept changing";
}

// nodelock.go ReleaseNodeLock: only our own lock, with the node's resourceVersion as precondition.
void GpuBinder::release_node(const BindingArgs& args) const {
  const std::string suffix = "," + args.pod_namespace + "," + args.pod_name;
  for (int attempt = 0; attempt < kLockAttempts; ++attempt) {
    const kube::ApiResponse got = api_.get(node_path(args.node));
    std::string why;
    const auto node = got.ok() ? parse_object(got, why) : std::nullopt;
    if (!node) return;  // reported by the client
    const std::string held = annotation(*node, gpu::kNodeLockAnnotation);
    if (!held.ends_with(suffix)) return;
    const kube::ApiResponse r =
        api_.patch(node_path(args.node),
                   annotations_patch({{gpu::kNodeLockAnnotation, std::nullopt}}, resource_version(*node)),
                   kube::Expected{409});
    if (r.status != 409) return;
  }
}

std::string GpuBinder::reserve(const BindingArgs& args, const Pod& pod, StateCache::Clock::time_point until,
                               gpu::PodAllocation& allocation, GpuBindFailure& cause) const {
  const std::string key = StateCache::pod_key(args.pod_uid, args.pod_namespace, args.pod_name);
  std::lock_guard lock(choose_mu_);
  // A retried bind must not count its own earlier reservation.
  cache_.batch().forget_assumed(key);
  const auto view = cache_.view();
  const NodeInfo* node = view->find_node(args.node);
  cause = GpuBindFailure::kNotCached;
  if (!node) return "node " + args.node + " is not in the extender's cache";
  cause = GpuBindFailure::kNoCard;
  if (!node->node->gpus || node->node->gpus->devices.empty())
    return "node " + args.node + " has no GPU registered by HAMi's device plugin";
  const gpu::NodeFit fit = gpu::fit_on_node(gpu::pod_request(pod, opts_.sharing), *node);
  if (!fit.fits)
    return "no GPU for it on node " + args.node + ": " +
           (fit.error.empty() ? fit.failure.reason() : fit.error);
  allocation = fit.allocation;
  auto shares = std::make_shared<const gpu::PodShares>(
      gpu::collapse_allocation(allocation, pod.init_containers.size()));
  cause = GpuBindFailure::kNotCached;
  if (!cache_.batch().assume_pod(key, args.node, until, std::move(shares)))
    return "pod " + namespaced_key(args.pod_namespace, args.pod_name) + " is not in the extender's cache";
  return "";
}

// The annotations HAMi's scheduler writes and its device plugin reads (scheduler.go Filter and Bind,
// nvidia/device.go PatchAnnotations).
std::string GpuBinder::annotate(const BindingArgs& args, const gpu::PodAllocation& allocation) const {
  const std::string cards = gpu::encode_allocation(allocation);
  const std::string now = std::to_string(std::chrono::system_clock::to_time_t(now_()));
  const kube::ApiResponse r =
      api_.patch(pod_path(args.pod_namespace, args.pod_name),
                 annotations_patch({{gpu::kAssignedNodeAnnotation, args.node},
                                    {gpu::kAssignedTimeAnnotation, now},
                                    {gpu::kToAllocateAnnotation, cards},
                                    {gpu::kAllocatedAnnotation, cards},
                                    {gpu::kBindPhaseAnnotation, std::string("allocating")},
                                    {gpu::kBindTimeAnnotation, now}},
                                   ""));
  return r.ok() ? "" : "writing the pod's GPU annotations: " + r.describe();
}

}  // namespace kext
