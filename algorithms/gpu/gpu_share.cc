#include "algorithms/gpu/gpu_share.h"

#include <cmath>
#include <utility>

#include "algorithms/gpu/device_fit.h"
#include "algorithms/namespaced_key.h"

namespace kext {

namespace {

// The pod's request, worked out once per scheduling request (PreFilter state).
class RequestState : public FilterState, public ScorePrepared {
 public:
  explicit RequestState(gpu::PodRequest r) : request(std::move(r)) {}
  std::unique_ptr<FilterState> clone() const override { return std::make_unique<RequestState>(request); }
  // The fit reads the node's pods as they are: nothing to keep up to date.
  void add_pod(const PodContext&, const PodInfo&, const NodeInfo&) override {}
  void remove_pod(const PodContext&, const PodInfo&, const NodeInfo&) override {}

  gpu::PodRequest request;
};

bool names_resource(const Pod& pod, std::string_view name) {
  auto in = [&](const std::vector<Container>& cs) {
    for (const auto& c : cs)
      for (const auto& s : c.requests.scalars)
        if (s.name == name) return true;
    return false;
  };
  return in(pod.containers) || in(pod.init_containers);
}

constexpr std::string_view kNoDevices = "node(s) had no GPU registered by HAMi's device plugin";
constexpr std::string_view kSettingUp =
    "node(s) had their GPU lock held by a pod whose cards the device plugin is still setting up";

// The node's lock (hami.io/mutex.lock) names another pod bound to it: its device plugin serves one
// allocation at a time, so a bind there would only fail. The lock goes when Allocate is done, and that
// node update puts the pod back in kube-scheduler's active queue. A lock whose owner is not on the node
// (deleted, never bound) does not count: the bind takes such a lock over (extender/gpu/gpu_binder.h).
bool busy_setting_up(const Pod& pod, const NodeInfo& node) {
  const std::string& owner = node.node->gpus->locked_by;
  if (owner.empty() || owner == namespaced_key(pod.namespace_, pod.name)) return false;
  for (const auto& p : node.pods)
    if (namespaced_key(p->pod->namespace_, p->pod->name) == owner) return !p->pod->is_terminal();
  return false;
}

class GpuShareFilter : public FilterPlugin {
 public:
  GpuShareFilter(gpu::SharingConfig c, KubeVersion v) : config_(std::move(c)), version_(v) {}
  std::string_view name() const override { return kGpuSharePlugin; }
  bool can_fail(const PodContext& pod) const override {
    return names_resource(pod.pod, config_.count_resource);
  }
  std::unique_ptr<FilterState> pre_filter(const PodContext& pod,
                                          std::span<const NodeInfo* const>) const override {
    return std::make_unique<RequestState>(gpu::pod_request(pod.pod, config_));
  }

  FilterCode check(const PodContext& pod, const NodeInfo& node,
                   std::vector<std::string>& reasons) const override {
    const auto* state = static_cast<const RequestState*>(pod.state_of(this));
    const gpu::PodRequest request = state ? gpu::PodRequest{} : gpu::pod_request(pod.pod, config_);
    const gpu::PodRequest& r = state ? state->request : request;
    if (!r.asks()) return FilterCode::kSuccess;
    if (!node.node->gpus || node.node->gpus->devices.empty()) {
      const auto& g = node.node->gpus;
      reasons.push_back(g && !g->error.empty()
                            ? "node(s) had GPU annotations that did not decode: " + g->error
                            : std::string(kNoDevices));
      return FilterCode::kUnresolvable;
    }
    if (since::extender_rejection_requeues(version_) && busy_setting_up(pod.pod, node)) {
      reasons.push_back(std::string(kSettingUp));
      return FilterCode::kUnschedulable;
    }
    const gpu::NodeFit fit = gpu::fit_on_node(r, node);
    if (fit.fits) return FilterCode::kSuccess;
    if (!fit.error.empty()) {
      reasons.push_back(fit.error);
      return fit.use_unknown ? FilterCode::kUnschedulable : FilterCode::kUnresolvable;
    }
    reasons.push_back(fit.failure.reason());
    return fit.failure.unresolvable() ? FilterCode::kUnresolvable : FilterCode::kUnschedulable;
  }
  // The cards a bind would give it there (GpuBinder::reserve chooses the same way), so that the members
  // of a gang held on one node, or placed one after another in admission's trial, do not count one card
  // free for each of them.
  std::shared_ptr<const Pod> reserve(const Pod& pod, const NodeInfo& node) const override {
    std::shared_ptr<const gpu::PodShares> shares = gpu::shares_on_node(pod, node, config_);
    if (!shares) return nullptr;
    auto out = std::make_shared<Pod>(pod);
    out->gpu_shares = std::move(shares);
    return out;
  }
  // bench/gpu_bench.cc BM_GpuSharePluginCost (8 cards a node).
  uint64_t cost_per_node_ns() const override { return 1100; }

 private:
  gpu::SharingConfig config_;
  KubeVersion version_;
};

class GpuShareScore : public ScorePlugin {
 public:
  explicit GpuShareScore(gpu::SharingConfig c) : config_(std::move(c)) {}
  std::string_view name() const override { return kGpuSharePlugin; }
  std::unique_ptr<ScorePrepared> prepare(const PodContext& pod,
                                         std::span<const NodeInfo* const>) const override {
    return std::make_unique<RequestState>(gpu::pod_request(pod.pod, config_));
  }
  int64_t score(const PodContext& pod, const ScorePrepared* prepared, const NodeInfo& node) const override {
    const auto* state = dynamic_cast<const RequestState*>(prepared);
    const gpu::PodRequest r = state ? state->request : gpu::pod_request(pod.pod, config_);
    if (!r.asks() || !node.node->gpus || busy_setting_up(pod.pod, node)) return 0;
    const float s = gpu::node_score(gpu::node_usage(*node.node->gpus, node.pods));
    // 0..30 onto 0..100; spread prefers the idlest node as HAMi's NodeScoreList.Less sorts it.
    const auto busy = static_cast<int64_t>(std::lround(static_cast<double>(s) * kMaxNodeScore / 30.0));
    const int64_t packed = std::min<int64_t>(std::max<int64_t>(busy, 0), kMaxNodeScore);
    return r.node_policy == "spread" ? kMaxNodeScore - packed : packed;
  }
  // bench/gpu_bench.cc BM_GpuShareRequest prioritize, per node.
  uint64_t cost_per_node_ns() const override { return 600; }

 private:
  gpu::SharingConfig config_;
};

}  // namespace

std::unique_ptr<FilterPlugin> make_gpu_share_filter(gpu::SharingConfig config, KubeVersion version) {
  return std::make_unique<GpuShareFilter>(std::move(config), version);
}

std::unique_ptr<ScorePlugin> make_gpu_share_score(gpu::SharingConfig config) {
  return std::make_unique<GpuShareScore>(std::move(config));
}

}  // namespace kext
